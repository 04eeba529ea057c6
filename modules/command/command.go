// Package command runs programs the way ansible-core's command, shell, raw
// and script actions do, on the controller (cfzt-runner's only host), as
// the runner's own user: privilege escalation is not performed.
package command

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Entries returns ansible.builtin.command, shell, raw and script.
// All four take a free-form command line; raw and script are action
// plugins whose failures are their own ("Action failed").
func Entries() []module.Entry {
	line := module.FreeForm | module.CommandLine
	actionPlugin := line | module.ControllerAction
	return []module.Entry{
		{FQCN: "ansible.builtin.command", Flags: line, Module: module.Func(commandAction)},
		{FQCN: "ansible.builtin.shell", Flags: line, Module: module.Func(shellAction)},
		{FQCN: "ansible.builtin.raw", Flags: actionPlugin | module.NoAsync, Module: module.Func(rawAction)},
		{FQCN: "ansible.builtin.script", Flags: actionPlugin | module.NoAsync, Module: module.Func(scriptAction)},
	}
}

// commandLoadName is the name every command and shell task's arguments are
// validated under: both action plugins call the module by this name.
const commandLoadName = "ansible.legacy.command"

// commandSpec is the command module's argument_spec.
var commandSpec = argspec.Spec{
	Options: []argspec.Option{
		{Name: "_raw_params"},
		{Name: "_uses_shell", Type: argspec.Bool, Default: false},
		{Name: "cmd"},
		{Name: "argv", Type: argspec.List, Elements: argspec.Str},
		{Name: "chdir", Type: argspec.Path},
		{Name: "executable"},
		{Name: "expand_argument_vars", Type: argspec.Bool, Default: true},
		{Name: "creates", Type: argspec.Path},
		{Name: "removes", Type: argspec.Path},
		{Name: "stdin"},
		{Name: "stdin_add_newline", Type: argspec.Bool, Default: true},
		{Name: "strip_empty_ends", Type: argspec.Bool, Default: true},
	},
	Rules: argspec.Rules{
		RequiredOneOf:     [][]string{{"_raw_params", "cmd", "argv"}},
		MutuallyExclusive: [][]string{{"_raw_params", "cmd", "argv"}},
	},
}

// commandAction is the command action: it runs the command module.
func commandAction(req *module.Request) (*value.Dict, error) {
	return commandModule(req, req.Args)
}

// shellAction is the shell action: the command module with _uses_shell,
// refusing the one option that makes no sense through a shell.
func shellAction(req *module.Request) (*value.Dict, error) {
	args := req.Args
	if args.Has("expand_argument_vars") {
		return nil, module.ActionFail("Unsupported parameters for ("+req.Action+") module: expand_argument_vars", nil)
	}
	args = args.Copy()
	args.Set("_uses_shell", true)
	return commandModule(req, args)
}

// commandRun is one validated invocation of the command module.
type commandRun struct {
	req *module.Request
	// args are the arguments as given (options of a free-form line taken
	// out), p the validated parameters.
	args   *value.Dict
	p      argspec.Params
	shell  bool
	env    []string
	cwd    string
	result *value.Dict
}

// commandModule is ansible-core's command module (which shell runs too).
func commandModule(req *module.Request, args *value.Dict) (*value.Dict, error) {
	v := commandSpec.Validate(args)
	if fail := v.Failure(commandLoadName); fail != nil {
		return fail, nil
	}
	c := &commandRun{req: req, args: args, p: v.P(), shell: v.P().Bool("_uses_shell"), cwd: req.BaseDir()}
	c.env = withPWD(req.Environ(), c.cwd)
	c.result = value.DictOf("changed", false, "stdout", "", "stderr", "", "rc", nil, "cmd", nil,
		"start", nil, "end", nil, "delta", nil, "msg", "")
	return c.run()
}

func (c *commandRun) run() (*value.Dict, error) {
	executable := c.p.Str("executable")
	if !c.shell && executable != "" {
		c.req.Host.Warn(fmt.Sprintf("As of Ansible 2.4, the parameter 'executable' is no longer supported with the 'command' module. Not using '%s'.", executable), value.Pos{})
		executable = ""
	}
	line := c.p.Str("_raw_params")
	if line == "" {
		line = c.p.Str("cmd")
	}
	var argv []string
	if !c.shell && line != "" {
		words, err := shlexSplit(line)
		if err != nil {
			return module.Crashed(err), nil
		}
		argv = words
	} else if line == "" && c.p.IsSet("argv") {
		argv = c.p.Strs("argv")
	}
	if c.shell && line != "" {
		c.result.Set("cmd", line)
	} else if argv != nil {
		c.result.Set("cmd", stringList(argv))
	}
	if chdir := c.path("chdir"); chdir != "" {
		if err := enterDir(&c.cwd, chdir); err != nil {
			return c.fail("Unable to change directory before execution.", err), nil
		}
	}
	if skipped := c.skipForCreatesRemoves(); skipped {
		return c.finish(), nil
	}
	c.result.Set("changed", true)
	if c.req.Check {
		c.result.Set("rc", 0)
		c.result.Set("msg", "Command would have run if not in check mode")
		if !c.p.IsSet("creates") && !c.p.IsSet("removes") {
			c.result.Set("skipped", true)
			c.result.Set("changed", false)
		}
		return c.finish(), nil
	}
	return c.execute(line, argv, executable)
}

// execute runs the command and records its outcome and timing.
func (c *commandRun) execute(line string, argv []string, executable string) (*value.Dict, error) {
	proc := process{dir: c.cwd, env: c.env}
	if c.shell {
		if line == "" {
			line = shellJoin(argv)
		}
		proc.argv = []string{shellExecutable(c.req, executable), "-c", line}
	} else {
		lookup := func(name string) (string, bool) { return lookupIn(c.env, name) }
		for _, a := range argv {
			if c.p.Bool("expand_argument_vars") {
				a = expandPath(a, lookup)
			}
			proc.argv = append(proc.argv, a)
		}
	}
	switch {
	case len(proc.argv) == 0 && argv != nil:
		// Python's Popen fails on an empty list.
		c.result = value.DictOf("changed", false, "rc", 257, "stdout", "", "stderr", "", "cmd", "")
		return c.fail("Error executing command.", errors.New("list index out of range")), nil
	case len(proc.argv) == 0:
		c.result = value.DictOf("rc", 257, "cmd", nil)
		return c.fail("Argument 'args' to run_command must be list or string", nil), nil
	}
	if stdin := c.p.Str("stdin"); stdin != "" {
		if c.p.Bool("stdin_add_newline") {
			stdin += "\n"
		}
		proc.stdin = []byte(stdin)
	}
	start := time.Now()
	c.result.Set("start", (&py.Datetime{Time: start}).String())
	out, err := run(c.req.Ctx, proc)
	if err != nil {
		if oe, ok := err.(*osError); ok {
			shown := proc.argv
			if c.shell && proc.argv[0] == "/bin/sh" {
				// ansible-core gave the line to Popen(shell=True), and
				// reports it split.
				if words, err := shlexSplit(line); err == nil {
					shown = words
				}
			}
			c.result = value.DictOf("changed", false, "rc", int(oe.errno), "stdout", "", "stderr", "", "cmd", cleanArgs(shown))
			return c.fail("Error executing command.", err), nil
		}
		return nil, err
	}
	end := time.Now()
	c.result.Set("end", (&py.Datetime{Time: end}).String())
	c.result.Set("delta", (&py.Timedelta{Micros: end.Sub(start).Microseconds()}).String())
	c.result.Set("rc", out.rc)
	c.result.Set("stdout", string(out.stdout))
	c.result.Set("stderr", string(out.stderr))
	if c.p.Bool("strip_empty_ends") {
		c.result.Set("stdout", strings.TrimRight(string(out.stdout), "\r\n"))
		c.result.Set("stderr", strings.TrimRight(string(out.stderr), "\r\n"))
	}
	for _, k := range []string{"stdout", "stderr"} {
		if err := checkUTF8(c.result.Default(k, "").(string)); err != nil {
			return nil, err
		}
	}
	if out.rc != 0 {
		c.result.Set("msg", "non-zero return code")
		c.result.Set("failed", true)
	}
	return c.finish(), nil
}

// skipForCreatesRemoves fills the result of a command that creates says
// already ran, or removes says has nothing left to do.
func (c *commandRun) skipForCreatesRemoves() bool {
	verb := "Did"
	if c.req.Check {
		verb = "Would"
	}
	if creates := c.path("creates"); creates != "" && py.GlobAny(creates, c.cwd) {
		c.skip(fmt.Sprintf("%s not run command since '%s' exists", verb, creates), "skipped, since "+creates+" exists")
		return true
	}
	if removes := c.path("removes"); removes != "" && !py.GlobAny(removes, c.cwd) {
		c.skip(fmt.Sprintf("%s not run command since '%s' does not exist", verb, removes), "skipped, since "+removes+" does not exist")
		return true
	}
	return false
}

func (c *commandRun) skip(msg, stdout string) {
	c.result.Set("msg", msg)
	c.result.Set("stdout", stdout)
	c.result.Set("rc", 0)
}

// path is a `path` argument expanded as the module process would expand
// it: with the task's environment, which the argument validation (run in
// the runner's own environment) does not see.
func (c *commandRun) path(name string) string {
	if raw, ok := c.args.Get(name); ok {
		if s, isStr := raw.(string); isStr {
			return expandPath(s, func(k string) (string, bool) { return lookupIn(c.env, k) })
		}
	}
	return c.p.Str(name)
}

// fail turns the result into fail_json's, with cause as the exception
// ansible-core shows after the message.
func (c *commandRun) fail(msg string, cause error) *value.Dict {
	c.result.Set("msg", msg)
	c.result.Set("failed", true)
	if cause != nil {
		c.result.Set("exception", &diag.Diagnostic{Summary: msg, Cause: cause})
	}
	return c.finish()
}

// finish adds the module's invocation and the _lines keys ansible-core's
// action layer derives.
func (c *commandRun) finish() *value.Dict {
	c.result.Set("invocation", c.p.Invocation(&commandSpec))
	return withLines(c.result)
}

// enterDir changes *cwd to dir (relative to *cwd) as os.chdir would, with
// the error os.chdir would raise.
func enterDir(cwd *string, dir string) error {
	target := dir
	if !filepath.IsAbs(target) {
		target = filepath.Join(*cwd, target)
	}
	fi, err := os.Stat(target)
	switch {
	case err != nil:
		return &osError{errno: errnoOf(err), file: dir}
	case !fi.IsDir():
		return &osError{errno: syscall.ENOTDIR, file: dir}
	case syscall.Access(target, 1) != nil:
		return &osError{errno: syscall.EACCES, file: dir}
	}
	*cwd = target
	return nil
}

// withPWD sets PWD to dir, as the /bin/sh that starts ansible-core's
// module process in that directory does.
func withPWD(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PWD=") {
			out = append(out, kv)
		}
	}
	return append(out, "PWD="+dir)
}

// shellExecutable is the shell a shell task runs: its executable option,
// else the host's ansible_shell_executable, else /bin/sh.
func shellExecutable(req *module.Request, executable string) string {
	if executable != "" {
		return executable
	}
	if v, ok := req.Host.Var("ansible_shell_executable"); ok {
		if s, isStr := v.(string); isStr && s != "" {
			return s
		}
	}
	return "/bin/sh"
}

func stringList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
