package run_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// A module ansible-core has and cfzt-runner lacks loads; a task that is
// skipped costs nothing, and a task that runs fails as a module would,
// so ignore_errors and rescue apply.
func TestUnimplementedModuleFailsOnlyWhenItRuns(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - apt: name=x
      when: false
    - community.docker.docker_container: name=x
      ignore_errors: true
    - block:
        - ansible.legacy.yum: name=x
      rescue:
        - debug: msg=rescued
`})
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	byName := map[string]*run.Event{}
	for _, ev := range rec.events {
		byName[ev.Name] = ev
	}
	require.Equal(t, run.StatusSkipped, byName["apt"].Status)
	docker := byName["community.docker.docker_container"]
	require.Equal(t, run.StatusFailed, docker.Status)
	require.Contains(t, value.Str(docker.Result.Default("msg", "")), "cfzt-runner does not implement the module 'community.docker.docker_container'")
	require.Equal(t, run.StatusFailed, byName["ansible.legacy.yum"].Status)
	require.Contains(t, f.out.String(), "rescued")
}
