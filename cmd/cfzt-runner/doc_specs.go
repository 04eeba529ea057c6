package main

import (
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/modules/builtin"
	"github.com/cfzt/cfzt-runner/modules/command"
	"github.com/cfzt/cfzt-runner/modules/facts"
	"github.com/cfzt/cfzt-runner/modules/files"
	"github.com/cfzt/cfzt-runner/modules/getent"
	"github.com/cfzt/cfzt-runner/modules/k8s"
	"github.com/cfzt/cfzt-runner/modules/localsys"
	"github.com/cfzt/cfzt-runner/modules/ping"
	"github.com/cfzt/cfzt-runner/modules/uri"
	"github.com/cfzt/cfzt-runner/modules/waitfor"
)

// moduleSpecs are the argument specs of the module packages' Specs(), by
// fully qualified name, for `cfzt-runner doc`. A package whose modules all
// check their arguments in their own code (system, template) has none.
func moduleSpecs() map[string]*argspec.Spec {
	out := map[string]*argspec.Spec{}
	for _, m := range []map[string]*argspec.Spec{
		builtin.Specs(), files.Specs(), k8s.Specs(), uri.Specs(), command.Specs(),
		ping.Specs(), waitfor.Specs(), getent.Specs(), facts.Specs(), localsys.Specs(),
	} {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}
