package builtin

import (
	"github.com/cfzt/cfzt-runner/engine/asyncjob"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// asyncStatusSpec is the argument spec the async_status action plugin
// validates before it runs its module.
var asyncStatusSpec = &argspec.Spec{
	Options: []argspec.Option{
		{Name: "jid", Type: argspec.Str, Required: true},
		{Name: "mode", Type: argspec.Str, Default: "status", Choices: []any{"status", "cleanup"}},
	},
}

// asyncStatusModule is async_status: the state of the background job jid
// (mode status), or the removal of its job file (mode cleanup), read in
// the host's async directory (ansible_async_dir, else ANSIBLE_ASYNC_DIR,
// else ~/.ansible_async).
func asyncStatusModule(req *module.Request) (*value.Dict, error) {
	v := asyncStatusSpec.Validate(req.Args)
	if err := v.ActionError(actionLoadName(req)); err != nil {
		return nil, err
	}
	args := v.P()
	fromVar := ""
	if req.Host != nil {
		if d, ok := req.Host.Var(asyncjob.DirVar); ok && d != nil {
			fromVar = value.Str(d)
		}
	}
	dir := asyncjob.ResolveDir(fromVar, req.Getenv)
	if args.Str("mode") == "cleanup" {
		return asyncjob.Cleanup(dir, args.Str("jid")), nil
	}
	res := asyncjob.Status(dir, args.Str("jid"))
	// A job's warnings are part of its status, not shown by async_status.
	module.MarkWarningsShown(res)
	return res, nil
}
