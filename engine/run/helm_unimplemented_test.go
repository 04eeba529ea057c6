package run_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// kubernetes.core 6.1's helm modules need the helm binary, which
// cfzt-runner does not drive (issue 21: out of scope). Each one, by its
// full name or by its short name through the play's collections, must
// load and then fail the task that runs it with a message naming the
// module, never run something else or succeed silently.
func TestHelmModulesFailNamingTheModule(t *testing.T) {
	mods := []string{"helm", "helm_info", "helm_plugin", "helm_plugin_info",
		"helm_pull", "helm_registry_auth", "helm_repository", "helm_template"}
	var b strings.Builder
	b.WriteString("- hosts: localhost\n  gather_facts: false\n  collections: [kubernetes.core]\n  tasks:\n")
	for _, m := range mods {
		b.WriteString("    - name: fqcn " + m + "\n      kubernetes.core." + m + ": {}\n      ignore_errors: true\n")
		b.WriteString("    - name: short " + m + "\n      " + m + ": {}\n      ignore_errors: true\n")
	}
	f := newFixture(t, map[string]string{"playbook.yml": b.String()})
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	byName := map[string]*run.Event{}
	for _, ev := range rec.events {
		byName[ev.Name] = ev
	}
	for _, m := range mods {
		for _, name := range []string{"fqcn " + m, "short " + m} {
			ev := byName[name]
			require.NotNil(t, ev, name)
			require.Equal(t, run.StatusFailed, ev.Status, name)
			require.Equal(t, "cfzt-runner does not implement the module 'kubernetes.core."+m+"'. It is an Ansible module, so the playbook loads; only a task that runs it fails. See the README's list of modules.",
				value.Str(ev.Result.Default("msg", "")), name)
		}
	}
}
