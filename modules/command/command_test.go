package command

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// newHost returns a test host whose playbook directory is a fresh
// temporary directory.
func newHost(t *testing.T) (*moduletest.Host, string) {
	dir := t.TempDir()
	return moduletest.NewHost(value.DictOf("playbook_dir", dir)), dir
}

// stable drops what changes from run to run.
func stable(res *value.Dict) *value.Dict {
	out := withoutInvocation(res)
	for _, k := range []string{"start", "end", "delta"} {
		if v, _ := out.Get(k); v != nil {
			out.Set(k, "<time>")
		}
	}
	return out
}

// withoutInvocation drops the invocation, which TestCommandInvocation
// checks, so the other tests compare the rest of the result.
func withoutInvocation(res *value.Dict) *value.Dict {
	out := value.NewDict(res.Len())
	res.Each(func(k string, v any) bool {
		if k != "invocation" {
			out.Set(k, v)
		}
		return true
	})
	return out
}

func lines(ss ...any) []any { return append([]any{}, ss...) }

func TestCommand(t *testing.T) {
	for _, tc := range []struct {
		name   string
		action string
		args   []any
		check  bool
		env    map[string]string
		want   *value.Dict
	}{
		{name: "free form", action: "command", args: []any{"_raw_params", "echo 'a  b' c"},
			want: value.DictOf("changed", true, "stdout", "a  b c", "stderr", "", "rc", 0, "cmd", lines("echo", "a  b", "c"),
				"start", "<time>", "end", "<time>", "delta", "<time>", "msg", "", "stdout_lines", lines("a  b c"), "stderr_lines", lines())},
		{name: "non-zero rc", action: "shell", args: []any{"cmd", "echo out; echo err >&2; exit 3"},
			want: value.DictOf("changed", true, "stdout", "out", "stderr", "err", "rc", 3, "cmd", "echo out; echo err >&2; exit 3",
				"start", "<time>", "end", "<time>", "delta", "<time>", "msg", "non-zero return code", "failed", true,
				"stdout_lines", lines("out"), "stderr_lines", lines("err"))},
		{name: "stdin without newline, ends kept", action: "command",
			args: []any{"argv", []any{"cat"}, "stdin", "x\n", "stdin_add_newline", false, "strip_empty_ends", false},
			want: value.DictOf("changed", true, "stdout", "x\n", "stderr", "", "rc", 0, "cmd", lines("cat"),
				"start", "<time>", "end", "<time>", "delta", "<time>", "msg", "", "stdout_lines", lines("x"), "stderr_lines", lines())},
		{name: "argv expanded with the task environment", action: "command",
			args: []any{"argv", []any{"echo", "$GREETING", "${NOPE}", "~"}}, env: map[string]string{"GREETING": "hi", "HOME": "/h"},
			want: value.DictOf("changed", true, "stdout", "hi ${NOPE} /h", "stderr", "", "rc", 0, "cmd", lines("echo", "$GREETING", "${NOPE}", "~"),
				"start", "<time>", "end", "<time>", "delta", "<time>", "msg", "", "stdout_lines", lines("hi ${NOPE} /h"), "stderr_lines", lines())},
		{name: "check mode skips", action: "command", args: []any{"_raw_params", "false"}, check: true,
			want: value.DictOf("changed", false, "stdout", "", "stderr", "", "rc", 0, "cmd", lines("false"),
				"start", nil, "end", nil, "delta", nil, "msg", "Command would have run if not in check mode", "skipped", true,
				"stdout_lines", lines(), "stderr_lines", lines())},
		{name: "check mode with removes of a missing file", action: "command", args: []any{"_raw_params", "false", "removes", "/nonexistent/*"}, check: true,
			want: value.DictOf("changed", false, "stdout", "skipped, since /nonexistent/* does not exist", "stderr", "", "rc", 0, "cmd", lines("false"),
				"start", nil, "end", nil, "delta", nil, "msg", "Would not run command since '/nonexistent/*' does not exist",
				"stdout_lines", lines("skipped, since /nonexistent/* does not exist"), "stderr_lines", lines())},
		{name: "bad arguments", action: "ansible.builtin.command", args: []any{"_raw_params", "true", "argv", []any{"true"}},
			want: module.Failed("parameters are mutually exclusive: _raw_params|cmd|argv")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := newHost(t)
			req := h.Request(tc.action, tc.args...)
			req.Name = map[string]string{"command": "command", "shell": "shell", "ansible.builtin.command": "command"}[tc.action]
			req.Check, req.Env = tc.check, tc.env
			res, err := Entries()[map[string]int{"command": 0, "shell": 1}[req.Name]].Module.Run(req)
			require.NoError(t, err)
			require.Equal(t, tc.want, stable(res))
		})
	}
}

func run1(t *testing.T, h *moduletest.Host, name string, args ...any) *value.Dict {
	t.Helper()
	req := h.Request(name, args...)
	for _, e := range Entries() {
		if e.Short() == name {
			res, err := e.Module.Run(req)
			require.NoError(t, err)
			return withoutInvocation(res)
		}
	}
	t.Fatalf("no module %s", name)
	return nil
}

func TestCommandCreatesRemovesAndChdir(t *testing.T) {
	h, dir := newHost(t)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "made"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", ".hidden"), nil, 0o644))

	res := run1(t, h, "command", "_raw_params", "pwd")
	require.Equal(t, dir, res.Default("stdout", nil), "commands run in the playbook's directory")

	res = run1(t, h, "command", "_raw_params", "pwd", "chdir", "sub")
	require.Equal(t, filepath.Join(dir, "sub"), res.Default("stdout", nil))

	res = run1(t, h, "command", "_raw_params", "pwd", "chdir", "sub", "creates", "m*")
	require.Equal(t, "Did not run command since 'm*' exists", res.Default("msg", nil), "creates is relative to chdir")
	require.Equal(t, false, res.Default("changed", nil))

	res = run1(t, h, "command", "_raw_params", "pwd", "creates", "sub/h*")
	require.Equal(t, true, res.Default("changed", nil), "wildcards do not match hidden files")

	res = run1(t, h, "command", "_raw_params", "true", "removes", "sub/.h*")
	require.Equal(t, true, res.Default("changed", nil))

	res = run1(t, h, "command", "_raw_params", "true", "chdir", "nowhere")
	require.Equal(t, "Unable to change directory before execution.", res.Default("msg", nil))
	require.EqualError(t, res.Default("exception", nil).(error),
		"Unable to change directory before execution: [Errno 2] No such file or directory: b'nowhere'")
}

func TestCommandMissingProgram(t *testing.T) {
	h, dir := newHost(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "noexec.sh"), []byte("#!/bin/sh\n"), 0o644))
	for _, tc := range []struct {
		name string
		args []any
		cmd  string
		exc  string
	}{
		{"command", []any{"_raw_params", "nosuchcmd --password secret arg"}, "nosuchcmd --password '********' arg",
			"Error executing command: [Errno 2] No such file or directory: b'nosuchcmd'"},
		{"command", []any{"_raw_params", "./noexec.sh"}, "./noexec.sh",
			"Error executing command: [Errno 13] Permission denied: b'./noexec.sh'"},
		{"shell", []any{"_raw_params", "echo 'hi there'", "executable", "/nonexistent/sh"}, "/nonexistent/sh -c 'echo '\"'\"'hi there'\"'\"''",
			"Error executing command: [Errno 2] No such file or directory: b'/nonexistent/sh'"},
	} {
		res := run1(t, h, tc.name, tc.args...)
		require.Equal(t, value.DictOf("changed", false, "rc", int(map[bool]int{true: 13, false: 2}[tc.cmd == "./noexec.sh"]), "stdout", "", "stderr", "",
			"cmd", tc.cmd, "msg", "Error executing command.", "failed", true, "exception", res.Default("exception", nil),
			"stdout_lines", lines(), "stderr_lines", lines()), res)
		require.EqualError(t, res.Default("exception", nil).(error), tc.exc)
	}
}

func TestCommandWarningsAndCrashes(t *testing.T) {
	h, _ := newHost(t)
	res := run1(t, h, "command", "_raw_params", "echo hi", "executable", "/bin/bash")
	require.Equal(t, "hi", res.Default("stdout", nil))
	require.Equal(t, []string{"As of Ansible 2.4, the parameter 'executable' is no longer supported with the 'command' module. Not using '/bin/bash'."}, h.Warnings)

	res, err := Entries()[0].Module.Run(h.Request("command", "_raw_params", `echo "open`))
	require.NoError(t, err)
	require.Equal(t, true, res.Default("failed", nil))
	require.EqualError(t, res.Default("exception", nil).(error), "No closing quotation")

	req := h.Request("shell", "_raw_params", "true", "expand_argument_vars", false)
	_, err = Entries()[1].Module.Run(req)
	require.Equal(t, module.ActionFail("Unsupported parameters for (shell) module: expand_argument_vars", nil), err)

	res = run1(t, h, "shell", "_raw_params", "true", "foo", 1)
	require.Regexp(t, regexp.MustCompile(`^Unsupported parameters for \(ansible.legacy.command\) module: foo\.`), res.Default("msg", nil))
}

func TestCommandTimes(t *testing.T) {
	h, _ := newHost(t)
	res := run1(t, h, "command", "_raw_params", "true")
	stamp := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{6})?$`)
	require.Regexp(t, stamp, res.Default("start", nil))
	require.Regexp(t, stamp, res.Default("end", nil))
	require.Regexp(t, `^0:00:\d\d(\.\d{6})?$`, res.Default("delta", nil))
}

func TestShellUsesShellExecutableVar(t *testing.T) {
	h, _ := newHost(t)
	h.Vars.Set("ansible_shell_executable", "/bin/bash")
	res := run1(t, h, "shell", "_raw_params", "echo $0")
	require.Equal(t, "/bin/bash", res.Default("stdout", nil))
}

func TestCancelKillsProcessGroup(t *testing.T) {
	h, dir := newHost(t)
	pidFile := filepath.Join(dir, "child.pid")
	ctx, cancel := context.WithCancel(context.Background())
	req := h.Request("shell", "_raw_params", "sleep 60 & echo $! > child.pid; wait")
	req.Ctx = ctx
	done := make(chan error, 1)
	go func() {
		_, err := Entries()[1].Module.Run(req)
		done <- err
	}()
	var pid int
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(pidFile)
		if err != nil || len(b) == 0 || b[len(b)-1] != '\n' {
			return false
		}
		_, err = fmt.Sscan(string(b), &pid)
		return err == nil
	}, 10*time.Second, 10*time.Millisecond)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	require.Eventually(t, func() bool { return !alive(pid) }, 5*time.Second, 10*time.Millisecond,
		"the background child is killed with its group")
}

// alive reports whether a process exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

func TestCommandPathsExpandWithTaskEnvironment(t *testing.T) {
	h, dir := newHost(t)
	req := h.Request("command", "_raw_params", "pwd", "chdir", "$TARGET")
	req.Env = map[string]string{"TARGET": dir}
	res, err := Entries()[0].Module.Run(req)
	require.NoError(t, err)
	require.Equal(t, dir, res.Default("stdout", nil))

	req = h.Request("command", "_raw_params", "pwd", "creates", "~/marker")
	req.Env = map[string]string{"HOME": dir}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "marker"), nil, 0o644))
	res, err = Entries()[0].Module.Run(req)
	require.NoError(t, err)
	require.Equal(t, "Did not run command since '"+filepath.Join(dir, "marker")+"' exists", res.Default("msg", nil))
}

func TestCommandOutputMustBeUTF8(t *testing.T) {
	h, _ := newHost(t)
	for line, want := range map[string]string{
		`printf 'ok\xff'`:             "character '\\udcff' in position 2",
		`printf 'é\xff\xfe\xe2\x82A'`: "characters in position 1-4",
	} {
		_, err := Entries()[0].Module.Run(h.Request("command", "_raw_params", line))
		require.Equal(t, module.ArgError("Refusing to deserialize an invalid UTF8 string value: 'utf-8' codec can't encode "+want+": surrogates not allowed", value.Pos{}, strictUTF8Help, nil), err, line)
	}
}

func TestCommandEmptyArgv(t *testing.T) {
	h, _ := newHost(t)
	res := run1(t, h, "command", "argv", []any{})
	require.Equal(t, "", res.Default("cmd", nil))
	require.Equal(t, 257, res.Default("rc", nil))
	require.EqualError(t, res.Default("exception", nil).(error), "Error executing command: list index out of range")
}

// TestCommandInvocation checks the invocation the command module adds:
// every option in the order AnsibleModule fills them (given, then those
// with a default, then the unset ones).
func TestCommandInvocation(t *testing.T) {
	h, _ := newHost(t)
	req := h.Request("shell", "_raw_params", "echo hi")
	res, err := Entries()[1].Module.Run(req)
	require.NoError(t, err)
	inv, ok := res.Default("invocation", nil).(*value.Dict)
	require.True(t, ok)
	args := inv.Default("module_args", nil).(*value.Dict)
	require.Equal(t, []string{"_raw_params", "_uses_shell", "expand_argument_vars", "stdin_add_newline", "strip_empty_ends",
		"cmd", "argv", "chdir", "executable", "creates", "removes", "stdin"}, args.Keys())
	require.Equal(t, true, args.Default("_uses_shell", nil))
}
