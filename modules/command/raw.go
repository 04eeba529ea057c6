package command

import (
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// rawAction is ansible-core's raw action: the line goes to /bin/sh (or to
// executable, started by /bin/sh) in the playbook's directory, without the
// task's environment, which raw never applied; it is skipped in check mode.
// Its other arguments are ignored, as the action plugin ignores them.
func rawAction(req *module.Request) (*value.Dict, error) {
	if len(req.Env) > 0 {
		req.Host.Warn("raw module does not support the environment keyword", value.Pos{})
	}
	if req.Check {
		return value.DictOf("changed", false, "skipped", true), nil
	}
	args := req.Args
	line := ""
	if l, ok := args.Get("_raw_params"); ok && l != nil {
		line = value.Str(l)
	}
	if e, ok := args.Get("executable"); ok && value.Truthy(e) {
		// The connection's /bin/sh starts the executable, so a missing one
		// is the shell's "not found" (rc 127), as in ansible-core.
		line = value.Str(e) + " -c " + py.Quote(line)
	}
	dir := req.BaseDir()
	return shellLine(req, process{argv: []string{"/bin/sh", "-c", line}, dir: dir, env: withPWD(req.ProcessEnv(false), dir)})
}

// shellLine runs a low-level command as ansible-core's
// _low_level_execute_command does for raw and script: output unstripped,
// a non-zero status a failure, always changed.
func shellLine(req *module.Request, p process) (*value.Dict, error) {
	out, err := run(req.Ctx, p)
	if oe, ok := err.(*osError); ok {
		// The connection's shell could not be started at all.
		return value.DictOf("changed", false, "failed", true, "rc", int(oe.errno), "msg", oe.Error()), nil
	}
	if err != nil {
		return nil, err
	}
	res := withLines(value.DictOf("changed", true, "rc", out.rc, "stdout", string(out.stdout), "stderr", string(out.stderr)))
	if out.rc != 0 {
		res.Set("failed", true)
		res.Set("msg", "non-zero return code")
	}
	return res, nil
}
