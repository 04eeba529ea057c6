package external

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ansibleVersion is the ansible-core version modules are told they run
// under (_ansible_version), the one whose behaviour cfzt-runner follows.
const ansibleVersion = "2.19.11"

// Module runs the module file of a request (Request.ModuleFile).
type Module struct{}

// Run implements module.Module.
func (Module) Run(req *module.Request) (*value.Dict, error) {
	src, err := os.ReadFile(req.ModuleFile)
	if err != nil {
		return nil, module.ActionFail(fmt.Sprintf("Could not read the module file %s: %v", req.ModuleFile, err), nil)
	}
	style := Classify(src)
	if style == StylePowerShell {
		return nil, module.ActionFail(fmt.Sprintf("module (%s) is a PowerShell module, which cfzt-runner cannot run on a POSIX host", req.Action), nil)
	}
	args := internalArgs(req)
	cmd, err := command(req, src, style)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(localTemp(req), "cfzt-module-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	inv, err := prepare(tmp, req, src, style, args, cmd)
	if err != nil {
		return nil, err
	}
	return execute(req, inv)
}

// internalArgs are the task's arguments with the _ansible_* settings
// ansible-core's action base adds before it runs any module.
func internalArgs(req *module.Request) *value.Dict {
	args := req.Args.Copy()
	args.Set("_ansible_check_mode", req.Check)
	args.Set("_ansible_no_log", req.NoLog)
	args.Set("_ansible_debug", false)
	args.Set("_ansible_diff", req.Diff)
	args.Set("_ansible_verbosity", req.Verbosity)
	args.Set("_ansible_version", ansibleVersion)
	args.Set("_ansible_module_name", req.Action)
	args.Set("_ansible_syslog_facility", "LOG_USER")
	args.Set("_ansible_selinux_special_fs", []any{"fuse", "nfs", "vboxsf", "ramfs", "9p", "vfat"})
	args.Set("_ansible_socket", nil)
	args.Set("_ansible_shell_executable", "/bin/sh")
	args.Set("_ansible_keep_remote_files", false)
	args.Set("_ansible_tmpdir", nil)
	args.Set("_ansible_remote_tmp", "~/.ansible/tmp")
	args.Set("_ansible_ignore_unknown_opts", false)
	args.Set("_ansible_target_log_info", nil)
	args.Set("_ansible_tracebacks_for", []any{})
	return args
}

// localTemp is where a module's transfer directory goes: the task's or
// the process's ANSIBLE_LOCAL_TEMP, else the system's temporary directory.
func localTemp(req *module.Request) string {
	if d, ok := req.Getenv("ANSIBLE_LOCAL_TEMP"); ok && d != "" {
		if err := os.MkdirAll(d, 0o700); err == nil {
			return d
		}
	}
	return os.TempDir()
}

// command is the argv that starts a module (before its file and argument
// file are appended): a binary module runs itself; any other needs an
// interpreter line, whose python is replaced by the host's interpreter.
func command(req *module.Request, src []byte, style Style) ([]string, error) {
	if style == StyleBinary {
		return nil, nil
	}
	interp, iargs, ok := shebang(src)
	if style == StyleNewPython {
		// ansible-core runs its AnsiballZ wrapper with the host's python
		// whatever the module's own interpreter line says.
		interp, iargs, ok = "/usr/bin/python", nil, true
	}
	if !ok {
		// An AnsibleError of the action, not a failed result: the task
		// fails with it below "Task failed.".
		return nil, fmt.Errorf("module (%s) is missing interpreter line", req.Action)
	}
	name := filepath.Base(interp)
	if name == "python" {
		return append([]string{pythonInterpreter(req)}, iargs...), nil
	}
	if v, set := req.Host.Var("ansible_" + name + "_interpreter"); set && value.Str(v) != "" {
		interp = value.Str(v)
	}
	return append([]string{interp}, iargs...), nil
}

// discoveryModes are the interpreter settings that ask for discovery.
var discoveryModes = map[string]bool{"": true, "auto": true, "auto_silent": true, "auto_legacy": true, "auto_legacy_silent": true}

// pythonInterpreter is the python a module runs under: the host's
// ansible_python_interpreter, else INTERPRETER_PYTHON
// (ANSIBLE_PYTHON_INTERPRETER), else the one discovery finds.
func pythonInterpreter(req *module.Request) string {
	if v, set := req.Host.Var("ansible_python_interpreter"); set && !discoveryModes[value.Str(v)] {
		return value.Str(v)
	}
	if v, set := req.Getenv("ANSIBLE_PYTHON_INTERPRETER"); set && !discoveryModes[v] {
		return v
	}
	return discoverPython(req)
}

// discoverPython is the python3 on the task's PATH, as ansible-core's
// interpreter discovery finds on a local host, else /usr/bin/python3.
func discoverPython(req *module.Request) string {
	path, _ := req.Getenv("PATH")
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, "python3")
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return "/usr/bin/python3"
}

// moduleUtilsMissing is why a new-style module cannot run here: the
// interpreter imports neither ansible-core's module_utils nor cfzt-runner's
// compatibility package (a Python older than 3.7).
const moduleUtilsMissing = "The module %s is a new-style Python module (it imports ansible.module_utils), " +
	"but the interpreter %s can import neither ansible.module_utils.basic nor cfzt-runner's compatibility " +
	"package for it (which needs Python 3.7 or later): install ansible-core's module_utils for that " +
	"interpreter (or put them on PYTHONPATH), or use a built-in module."

// missingMarker and missingStatus are what the bootstrap prints and exits
// with when ansible.module_utils.basic cannot be imported.
const (
	missingMarker = "cfzt-runner: ansible.module_utils.basic is not importable"
	missingStatus = 97
)

// crashKey marks the result the bootstrap prints for a module that raised
// an exception instead of exiting (see crashResult).
const crashKey = "_cfzt_module_exception"

// bootstrap is the Python program that starts a new-style module in place
// of ansible-core's AnsiballZ wrapper: it checks that module_utils import
// (ansible-core's, else cfzt-runner's compatibility package, which then
// goes first on the import path), puts the module_utils/ directories of
// the play's playbooks and roles under ansible.module_utils, and runs the
// module as __main__ (a collection's module as its package's module, so
// that relative imports work). The module reads its arguments on standard
// input. An exception the module raises (or its return without exiting)
// is printed as a failed result carrying the messages of the exception and
// its causes, as ansible-core 2.19's AnsiballZ _handle_exception does.
const bootstrap = `import sys, runpy
try:
    import ansible.module_utils
    import ansible.module_utils.basic
except ImportError:
    for name in [n for n in sys.modules if n == 'ansible' or n.startswith('ansible.')]:
        del sys.modules[name]
    sys.path.insert(0, %[6]s)
    try:
        import ansible.module_utils
        import ansible.module_utils.basic
    except Exception:
        sys.stdout.write(%[1]s)
        sys.exit(%[2]d)
ansible.module_utils.__path__[:0] = %[3]s
sys.argv = [%[4]s]
try:
    if %[5]s:
        runpy.run_module(%[5]s, run_name='__main__', alter_sys=True)
    else:
        runpy.run_path(%[4]s, run_name='__main__')
    raise RuntimeError('New-style module did not handle its own exit.')
except Exception as ex:
    import json
    msgs, e = [], ex
    while e is not None and len(msgs) <= 10:
        msgs.append(str(e).strip())
        e = e.__cause__
    handling = ex.__cause__ is None and ex.__context__ is not None and not ex.__suppress_context__
    sys.stdout.write(json.dumps({'failed': True, 'exception': {%[7]s: msgs, 'handling': handling}}) + '\n')
    sys.exit(1)
`

// newStyleArgv is the command that runs a new-style Python module through
// the bootstrap.
func newStyleArgv(req *module.Request, cmd []string, file, shim string) []string {
	utils := make([]any, 0, len(req.ModuleUtils))
	for _, d := range req.ModuleUtils {
		utils = append(utils, d)
	}
	pkg := ""
	if root, rel, ok := collectionPart(req.ModuleFile); ok && root != "" {
		pkg = strings.ReplaceAll(strings.TrimSuffix(rel, filepath.Ext(rel)), "/", ".")
	}
	quote := func(v any) string { return value.JSON(v, value.JSONOptions{}) }
	prog := fmt.Sprintf(bootstrap, quote(missingMarker), missingStatus, quote(utils), quote(file), quote(pkg), quote(shim), quote(crashKey))
	return append(append([]string(nil), cmd...), "-c", prog)
}

// collectionPart splits a module file inside an installed collection into
// the collections root (the directory holding ansible_collections) and
// its path below that root.
func collectionPart(path string) (root, rel string, ok bool) {
	const marker = string(filepath.Separator) + "ansible_collections" + string(filepath.Separator)
	i := strings.LastIndex(path, marker)
	if i < 0 {
		return "", "", false
	}
	return path[:i], path[i+1:], true
}

// withPythonPath puts the collections root of a collection's module on
// env's PYTHONPATH, so that it imports as a package with its
// module_utils.
func withPythonPath(req *module.Request, env []string) []string {
	root, _, ok := collectionPart(req.ModuleFile)
	if !ok {
		return env
	}
	out := make([]string, 0, len(env)+1)
	path := root
	for _, kv := range env {
		if v, found := strings.CutPrefix(kv, "PYTHONPATH="); found {
			if v != "" {
				path += string(os.PathListSeparator) + v
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PYTHONPATH="+path)
}

// oldStyleArgs is the key=value file an old-style module reads, each
// value quoted for a POSIX shell, in the arguments' order.
func oldStyleArgs(args *value.Dict) string {
	var b strings.Builder
	args.Each(func(k string, v any) bool {
		fmt.Fprintf(&b, "%s=%s ", k, shellQuote(pyStr(v)))
		return true
	})
	return b.String()
}

// pyStr is Python's str() of an argument value, as the old-style args
// file holds it.
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return x
	}
	return value.Repr(v)
}

// shellQuote is Python's shlex.quote.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./-_", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
