package main

import (
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/modules/builtin"
	"github.com/cfzt/cfzt-runner/modules/command"
	"github.com/cfzt/cfzt-runner/modules/external"
	"github.com/cfzt/cfzt-runner/modules/facts"
	"github.com/cfzt/cfzt-runner/modules/files"
	"github.com/cfzt/cfzt-runner/modules/getent"
	"github.com/cfzt/cfzt-runner/modules/k8s"
	"github.com/cfzt/cfzt-runner/modules/localsys"
	"github.com/cfzt/cfzt-runner/modules/ping"
	"github.com/cfzt/cfzt-runner/modules/system"
	templatemod "github.com/cfzt/cfzt-runner/modules/template"
	"github.com/cfzt/cfzt-runner/modules/uri"
	"github.com/cfzt/cfzt-runner/modules/waitfor"
)

// moduleSets are the registrations of every module package. A new module
// package is added here, and nowhere else.
func moduleSets() [][]module.Entry {
	return [][]module.Entry{
		builtin.Entries(),
		files.Entries(),
		k8s.Entries(),
		uri.Entries(),
		command.Entries(), ping.Entries(), waitfor.Entries(), getent.Entries(),
		facts.Entries(), system.Entries(), localsys.Entries(),
		templatemod.Entries(),
	}
}

// registerPlugins registers the template plugins of module packages on
// eng: kubernetes.core's k8s lookup, whose clients live in shared.
func registerPlugins(eng *template.Engine, shared *module.Shared) {
	k8s.RegisterLookups(eng, shared)
}

// newRegistry builds the module registry of every module package and the
// mode's own modules (own), with the runner of module files; wrap, when
// not nil, may replace an entry's module (the operator loop records what
// Kubernetes reads read).
func newRegistry(wrap func(module.Entry) module.Module, own ...[]module.Entry) (*module.Registry, error) {
	sets := append(moduleSets(), own...)
	if wrap != nil {
		for _, set := range sets {
			for i := range set {
				set[i].Module = wrap(set[i])
			}
		}
	}
	reg, err := module.NewRegistry(sets...)
	if err != nil {
		return nil, err
	}
	return reg.WithExternal(external.Module{}), nil
}
