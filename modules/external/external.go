package external

import (
	"fmt"
	"os"
	"os/exec"
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
	if style == StyleNewPython {
		if msg := checkModuleUtils(req, cmd); msg != "" {
			return module.Failed(msg), nil
		}
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
	args.Set("_ansible_no_log", false)
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
	if !ok {
		return nil, module.ActionFail(fmt.Sprintf("module (%s) is missing interpreter line", req.Action), nil)
	}
	name := filepath.Base(interp)
	if v, set := req.Host.Var("ansible_" + name + "_interpreter"); set && value.Str(v) != "" {
		interp = value.Str(v)
	} else if name == "python" {
		interp = discoverPython(req)
	}
	return append([]string{interp}, iargs...), nil
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

// moduleUtilsMissing is why a new-style module cannot run here.
const moduleUtilsMissing = "The module %s is a new-style Python module (it imports ansible.module_utils), " +
	"but the interpreter %s cannot import ansible.module_utils.basic. cfzt-runner ships no Python and no " +
	"module_utils: install ansible-core's module_utils for that interpreter (or put them on PYTHONPATH), " +
	"or use a built-in module."

// checkModuleUtils returns why a new-style Python module cannot run with
// cmd's interpreter (empty when ansible.module_utils.basic imports).
func checkModuleUtils(req *module.Request, cmd []string) string {
	probe := exec.CommandContext(req.Ctx, cmd[0], append(cmd[1:], "-c", "import ansible.module_utils.basic")...)
	probe.Env = withPythonPath(req, req.Environ())
	if err := probe.Run(); err != nil {
		return fmt.Sprintf(moduleUtilsMissing, req.ModuleFile, cmd[0])
	}
	return ""
}

// withPythonPath adds to env's PYTHONPATH the directories a module's
// imports of module_utils resolve against: the module_utils/ beside its
// library directory become importable as ansible.module_utils.<name> by
// the module's own imports only through a package, so the directory that
// holds module_utils/ is put on the path too.
func withPythonPath(req *module.Request, env []string) []string {
	var extra []string
	libDir := filepath.Dir(req.ModuleFile)
	for _, d := range []string{filepath.Join(filepath.Dir(libDir), "module_utils"), filepath.Join(libDir, "module_utils")} {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			extra = append(extra, d)
		}
	}
	if len(extra) == 0 {
		return env
	}
	out := make([]string, 0, len(env)+1)
	cur := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PYTHONPATH="); ok {
			cur = v
			continue
		}
		out = append(out, kv)
	}
	if cur != "" {
		extra = append(extra, cur)
	}
	return append(out, "PYTHONPATH="+strings.Join(extra, string(os.PathListSeparator)))
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
