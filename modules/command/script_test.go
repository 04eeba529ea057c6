package command

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestRaw(t *testing.T) {
	h, dir := newHost(t)
	res := run1(t, h, "raw", "_raw_params", "pwd; echo e >&2; echo $FOO")
	require.Equal(t, value.DictOf("changed", true, "rc", 0, "stdout", dir+"\n\n", "stderr", "e\n",
		"stdout_lines", lines(dir, ""), "stderr_lines", lines("e")), res)

	req := h.Request("raw", "_raw_params", "echo $0", "executable", "/bin/bash")
	req.Env = map[string]string{"FOO": "ignored"}
	res, err := Entries()[2].Module.Run(req)
	require.NoError(t, err)
	require.Equal(t, "/bin/bash\n", res.Default("stdout", nil))
	require.Equal(t, []string{"raw module does not support the environment keyword"}, h.Warnings)

	res = run1(t, h, "raw", "_raw_params", "exit 4")
	require.Equal(t, value.DictOf("changed", true, "rc", 4, "stdout", "", "stderr", "", "stdout_lines", lines(), "stderr_lines", lines(),
		"failed", true, "msg", "non-zero return code"), res)

	// The run's exported variables (cfzt-runner operator's flags, which
	// ansible-operator exports to its process) reach raw's shell, which
	// runs in that process's environment, without the keyword's warning.
	h.Warnings = nil
	req = h.Request("raw", "_raw_params", "echo $ANSIBLE_ROLES_PATH")
	req.BaseEnv = map[string]string{"ANSIBLE_ROLES_PATH": "/opt/roles"}
	res, err = Entries()[2].Module.Run(req)
	require.NoError(t, err)
	require.Equal(t, "/opt/roles\n", res.Default("stdout", nil))
	require.Empty(t, h.Warnings)

	req = h.Request("raw", "_raw_params", "exit 4")
	req.Check = true
	res, err = Entries()[2].Module.Run(req)
	require.NoError(t, err)
	require.Equal(t, value.DictOf("changed", false, "skipped", true), res)
}

func TestScript(t *testing.T) {
	h, dir := newHost(t)
	h.Dirs = []string{dir}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "files"), 0o755))
	// Not executable: the copy that runs is.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "files", "args.sh"),
		[]byte("#!/bin/sh\necho \"$# [$1] [$2] $FOO $(pwd)\"\necho warn >&2\nexit ${3:-0}\n"), 0o644))

	req := h.Request("script", "_raw_params", `args.sh "a b" $FOO`)
	req.Env = map[string]string{"FOO": "foo"}
	res, err := Entries()[3].Module.Run(req)
	require.NoError(t, err)
	require.Equal(t, value.DictOf("changed", true, "rc", 0, "stdout", "2 [a b] [foo] foo "+dir+"\n", "stderr", "warn\n",
		"stdout_lines", lines("2 [a b] [foo] foo "+dir), "stderr_lines", lines("warn")), res)

	res = run1(t, h, "script", "cmd", "args.sh x y 3", "chdir", "/", "executable", "/bin/bash")
	require.Equal(t, "3 [x] [y]  /\n", res.Default("stdout", nil))
	require.Equal(t, "non-zero return code", res.Default("msg", nil))
	require.Equal(t, true, res.Default("failed", nil))

	res = run1(t, h, "script", "_raw_params", "args.sh", "creates", "files")
	require.Equal(t, value.DictOf("changed", false, "skipped", true, "msg", "files exists, matching creates option"), res)

	res = run1(t, h, "script", "_raw_params", "args.sh", "removes", "nothing")
	require.Equal(t, value.DictOf("changed", false, "skipped", true, "msg", "nothing does not exist, matching removes option"), res)

	req = h.Request("script", "_raw_params", "args.sh")
	req.Check = true
	res, err = Entries()[3].Module.Run(req)
	require.NoError(t, err)
	require.Equal(t, value.DictOf("changed", false, "skipped", true, "msg", "Check mode is not supported for this task."), res)

	req = h.Request("script", "_raw_params", "args.sh", "creates", "nothing")
	req.Check = true
	res, err = Entries()[3].Module.Run(req)
	require.NoError(t, err)
	require.Equal(t, value.DictOf("changed", true), res)

	for _, tc := range []struct {
		args []any
		msg  string
	}{
		{[]any{"_raw_params", "args.sh", "chdir", "rel"}, "chdir rel must be an absolute path for a Unix-aware remote node"},
		{[]any{"_raw_params", "missing.sh"}, "Could not find or access 'missing.sh'\nSearched in:\n\t" +
			filepath.Join(dir, "files", "missing.sh") + "\n\t" + filepath.Join(dir, "missing.sh") +
			" on the Ansible Controller.\nIf you are using a module and expect the file to exist on the remote, see the remote_src option"},
		{[]any{"foo", 1}, "one of the following is required: _raw_params, cmd"},
		{[]any{"cmd", "args.sh", "foo", 1}, "Unsupported parameters for (script) module: foo. Supported parameters include: _raw_params, chdir, cmd, creates, executable, removes."},
	} {
		_, err := Entries()[3].Module.Run(h.Request("script", tc.args...))
		var af *diag.Diagnostic
		require.ErrorAs(t, err, &af)
		require.True(t, af.AsResult)
		require.Equal(t, tc.msg, af.Summary)
	}
}
