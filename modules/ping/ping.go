// Package ping is ansible.builtin.ping: a module that answers "pong" (or
// its data), to check that modules run at all.
package ping

import (
	"errors"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Entries returns ansible.builtin.ping.
func Entries() []module.Entry {
	return []module.Entry{{FQCN: "ansible.builtin.ping", Module: module.Func(ping)}}
}

var spec = argspec.Spec{Options: []argspec.Option{{Name: "data", Type: argspec.Str, Default: "pong"}}}

// errCrash is the exception ping raises on purpose when data is "crash",
// so playbooks can test how a module failure is handled.
var errCrash = errors.New("boom")

func ping(req *module.Request) (*value.Dict, error) {
	v := spec.Validate(req.Args)
	if fail := v.Failure(req.Action); fail != nil {
		return fail, nil
	}
	data, _ := v.Params.Get("data")
	if data == "crash" {
		return module.Crashed(errCrash), nil
	}
	return value.DictOf("changed", false, "ping", data), nil
}
