package main

import (
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/modules/pyplugin"
)

// pythonPlugins makes the resolver of a run's Python filter, test and
// lookup plugins (modules/pyplugin); its helper process starts at the
// first call of one, with exported over the process environment, and
// ends with the run.
func pythonPlugins(exported map[string]string) func(loaded func(string) []string, configured map[string][]string, roots func() []string) (template.PluginResolver, func()) {
	return func(loaded func(string) []string, configured map[string][]string, roots func() []string) (template.PluginResolver, func()) {
		r := pyplugin.New(pyplugin.Dirs{Loaded: loaded, Configured: configured, CollectionRoots: roots})
		r.Exported = exported
		return r, r.Close
	}
}
