package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const pyFilterFile = `
class FilterModule:
    def filters(self):
        return {'twice': lambda v: v * 2}
`

const pyTestFile = `
class TestModule:
    def tests(self):
        return {'small': lambda v: v < 10}
`

const pyLookupFile = `
from ansible.plugins.lookup import LookupBase
class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        return [t + '!' for t in terms]
`

const pyBook = `- hosts: localhost
  gather_facts: false
  roles: [r]
  tasks:
    - debug:
        msg: "{{ 3 | twice }} {{ 3 is small }} {{ lookup('bang', 'x') }} {{ 2 | conf_filter }}"
`

func pyPluginFiles() map[string]string {
	return map[string]string{"pb.yml": pyBook, "roles/r/tasks/main.yml": "- debug: msg=role\n",
		"roles/r/filter_plugins/f.py": pyFilterFile, "test_plugins/t.py": pyTestFile, "roles/r/lookup_plugins/bang.py": pyLookupFile,
		"conf/sub/c.py": "class FilterModule:\n    def filters(self):\n        return {'conf_filter': lambda v: v + 1}\n"}
}

// TestPythonPluginsListUnsupported: --list-unsupported does not report the
// filters, tests and lookups that Python plugins of the playbook, its
// roles and the configured paths provide.
func TestPythonPluginsListUnsupported(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	dir := t.TempDir()
	writeFiles(t, dir, pyPluginFiles())
	conf := "ANSIBLE_FILTER_PLUGINS=" + filepath.Join(dir, "conf")
	tmp := t.TempDir()
	res := runCLIEnv(t, dir, t.TempDir(), []string{conf, "TMPDIR=" + tmp}, "-i", "localhost,", "--list-unsupported", "pb.yml")
	require.Equal(t, cliResult{stdout: "Every module, lookup, filter and test the playbooks use is implemented.\n"}, res)
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, left, "the helper's files are removed when the listing ends")
	res = runCLIEnv(t, dir, t.TempDir(), []string{conf}, "-i", "localhost,", "pb.yml")
	require.Equal(t, 0, res.rc, res.stdout+res.stderr)
	require.Contains(t, res.stdout, `"msg": "6 True x! 3"`)
	// Without the configured path its filter is unknown.
	res = runCLIProcess(t, dir, t.TempDir(), "-i", "localhost,", "--list-unsupported", "pb.yml")
	require.Equal(t, 1, res.rc)
	require.Equal(t, filepath.Join(dir, "pb.yml")+":5: debug: filter 'conf_filter'\n", res.stdout)
}

// TestPythonPluginsWithoutPython: without python3 a task using a Python
// plugin fails naming the plugin, its file and how to get python3; the
// rest of the play runs.
func TestPythonPluginsWithoutPython(t *testing.T) {
	dir := t.TempDir()
	files := pyPluginFiles()
	files["pb.yml"] = "- hosts: localhost\n  gather_facts: false\n  roles: [r]\n  tasks:\n    - debug:\n        msg: \"{{ 3 | twice }}\"\n      ignore_errors: true\n    - debug:\n        msg: \"{{ 'a' | upper }}\"\n"
	writeFiles(t, dir, files)
	res := runCLIEnv(t, dir, t.TempDir(), []string{"PATH=" + t.TempDir()}, "-i", "localhost,", "pb.yml")
	require.Equal(t, 0, res.rc, res.stdout+res.stderr)
	file := filepath.Join(dir, "roles/r/filter_plugins/f.py")
	require.Contains(t, res.stdout, "The filter plugin 'twice' failed: the filter plugin 'twice' is written in Python ("+file+"), and cfzt-runner runs Python plugins with python3, which is not on PATH: install python3, or use cfzt-runner's image flavour with Python (see docs/ansible-operator.md)")
	require.True(t, strings.Contains(res.stdout, `"msg": "A"`), res.stdout)
}
