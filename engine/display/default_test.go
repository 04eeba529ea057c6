package display

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func debugTask() *playbook.Task {
	return &playbook.Task{Module: "debug", Action: "ansible.builtin.debug"}
}
func moduleTask() *playbook.Task { return &playbook.Task{Module: "uri", Action: "ansible.builtin.uri"} }

func TestColourOnAndOff(t *testing.T) {
	ev := &run.Event{Host: "h1", Task: moduleTask(), Status: run.StatusChanged, Result: value.DictOf("changed", true)}

	var plain bytes.Buffer
	(&Default{Out: &plain}).Result(ev)
	require.Equal(t, "changed: [h1]\n", plain.String())

	var coloured bytes.Buffer
	(&Default{Out: &coloured, Color: true}).Result(ev)
	// Ansible's COLOR_CHANGED is "yellow", SGR 0;33.
	require.Equal(t, "\x1b[0;33mchanged: [h1]\x1b[0m\n", coloured.String())

	var recap bytes.Buffer
	(&Default{Out: &recap, Color: true}).Recap([]*run.Stats{{Host: "h1", OK: 1, Failed: 1}})
	require.Contains(t, recap.String(), "\x1b[0;31mh1\x1b[0m")
	require.Contains(t, recap.String(), "\x1b[0;32mok=1   \x1b[0m")
	require.Contains(t, recap.String(), "changed=0    ")
}

func TestNoLogCensoring(t *testing.T) {
	res := value.DictOf("msg", "the password is hunter2", "changed", false, "_ansible_verbose_always", true)
	var out bytes.Buffer
	d := &Default{Out: &out}
	d.Result(&run.Event{Host: "h", Task: debugTask(), Status: run.StatusOK, Result: res, NoLog: true})
	require.Equal(t, "ok: [h]\n", out.String(), "no_log drops the verbose display")

	out.Reset()
	d.Verbose = 1
	d.Result(&run.Event{Host: "h", Task: moduleTask(), Status: run.StatusOK, Result: res, NoLog: true})
	require.Equal(t, `ok: [h] => {"censored": "the output has been hidden due to the fact that 'no_log: true' was specified for this result", "changed": false}`+"\n", out.String())

	out.Reset()
	item := value.DictOf("msg", "hunter2", "item", "hunter2", "_ansible_no_log", true, "_ansible_item_label", "hunter2")
	d.Verbose = 0
	d.Result(&run.Event{Host: "h", Task: debugTask(), Status: run.StatusOK, Result: item, Item: true})
	require.Equal(t, "ok: [h] => (item=(censored due to no_log))\n", out.String())
	require.NotContains(t, out.String(), "hunter2")
}

func TestMaskingWithoutNoLog(t *testing.T) {
	res := value.DictOf(
		"changed", false,
		"request", value.DictOf("headers", value.DictOf("Authorization", "Bearer s3cr3t", "Accept", "json")),
		"resources", []any{value.DictOf("kind", "Secret", "metadata", value.DictOf("name", "cf"),
			"data", value.DictOf("token", "dG9rZW4="), "stringData", value.DictOf("raw", "plain"))},
	)
	var out bytes.Buffer
	(&Default{Out: &out, Verbose: 1}).Result(&run.Event{Host: "h", Task: moduleTask(), Status: run.StatusOK, Result: res})
	s := out.String()
	require.NotContains(t, s, "s3cr3t")
	require.NotContains(t, s, "dG9rZW4=")
	require.NotContains(t, s, "plain")
	require.Contains(t, s, `"Authorization": "********"`)
	require.Contains(t, s, `"data": {"token": "********"}`)
	require.Contains(t, s, `"Accept": "json"`, "other headers stay")
	require.Contains(t, s, `"name": "cf"`, "the Secret's metadata stays")
	// The registered value (what playbooks see) is not masked.
	tok, _ := res.Default("resources", nil).([]any)[0].(*value.Dict).Default("data", nil).(*value.Dict).Get("token")
	require.Equal(t, "dG9rZW4=", tok)
}

func TestErrorFormat(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pb.yml")
	require.NoError(t, os.WriteFile(file, []byte("- hosts: localhost\n  tasks:\n    - name: t\n      debug:\n        msg: \"{{ x }}\"\n"), 0o644))
	taskPos := value.Pos{File: file, Line: 3, Col: 7}
	argPos := value.Pos{File: file, Line: 5, Col: 14}
	modPos := value.Pos{File: file, Line: 4, Col: 7}
	err := &diag.Diagnostic{Summary: "Task failed.", Origin: &taskPos, Cause: &diag.Diagnostic{
		Summary: "Finalization of task args for 'ansible.builtin.debug' failed.", Origin: &modPos,
		Cause: &diag.Diagnostic{Summary: "Error while resolving value for 'msg'.", Origin: &argPos, Cause: errors.New("'x' is undefined")}}}
	got := (&Default{}).FormatError(err)
	want := "[ERROR]: Task failed: Finalization of task args for 'ansible.builtin.debug' failed: Error while resolving value for 'msg': 'x' is undefined\n\n" +
		"Task failed.\nOrigin: " + file + ":3:7\n\n1 - hosts: localhost\n2   tasks:\n3     - name: t\n        ^ column 7\n\n" +
		"<<< caused by >>>\n\n" +
		"Finalization of task args for 'ansible.builtin.debug' failed.\nOrigin: " + file + ":4:7\n\n2   tasks:\n3     - name: t\n4       debug:\n        ^ column 7\n\n" +
		"<<< caused by >>>\n\n" +
		"Error while resolving value for 'msg': 'x' is undefined\nOrigin: " + file + ":5:14\n\n3     - name: t\n4       debug:\n5         msg: \"{{ x }}\"\n               ^ column 14\n\n"
	require.Equal(t, want, got)

	// Links at the same origin are joined into one section.
	same := &diag.Diagnostic{Summary: "Task failed.", Origin: &taskPos, Cause: &diag.Diagnostic{Summary: "Finalization failed.", Origin: &taskPos}}
	require.True(t, strings.HasPrefix((&Default{}).FormatError(same), "[ERROR]: Task failed: Finalization failed.\nOrigin: "))

	// A single-line error without origin and with help stays on one line.
	require.Equal(t, "[ERROR]: Broken. Fix it.\n", (&Default{}).FormatError(&diag.Diagnostic{Summary: "Broken.", Help: "Fix it."}))
}

func TestWarningsAreDeduplicated(t *testing.T) {
	var errOut bytes.Buffer
	d := &Default{Out: &bytes.Buffer{}, Err: &errOut}
	d.Warn(diag.Warn("once", nil))
	d.Warn(diag.Warn("once", nil))
	d.Warn(diag.Deprecate("Old thing.", "2.23", nil))
	require.Equal(t, "[WARNING]: once\n"+
		"[WARNING]: Deprecation warnings can be disabled by setting `deprecation_warnings=False` in ansible.cfg.\n"+
		"[DEPRECATION WARNING]: Old thing. This feature will be removed from ansible-core version 2.23.\n", errOut.String())
}

func TestDiffOutput(t *testing.T) {
	res := value.DictOf("changed", true, "diff", value.DictOf("before", "a\nb\nc\n", "after", "a\nB\nc\n"))
	var out bytes.Buffer
	(&Default{Out: &out}).Result(&run.Event{Host: "h", Task: moduleTask(), Status: run.StatusChanged, Result: res, Diff: true})
	// The diff comes first, as ansible-core's v2_on_file_diff runs before
	// v2_runner_on_ok.
	require.Equal(t, "--- before\n+++ after\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n\nchanged: [h]\n", out.String())
}
