// Package lookup is the template engine's library of plugins that reach
// outside the template: ansible-core's lookups of files, processes, URLs,
// passwords, the configuration, the environment and the inventory, and
// the file tests and path filters that read the controller's filesystem.
// The template language (engine/template) does no I/O of its own; the
// composition root hands this library to template.New, as hcl's callers
// hand their function library to its evaluation context.
//
// A plugin here is a template.LookupFunc, FilterFunc or TestFunc in the
// file of its family, added to that family's map; Libraries lists the
// families. Plugins reach the run through the template.Ctx methods of the
// plugin API: LookupOptions (set_options), FindFile and FindFileWarn,
// SearchPath, LoopAction, SelectHosts, Var, Vars, Warn, Decrypt,
// RenderTemplateFile, and Engine (Getenv, Environ, Settings, Vault,
// LookupOptionDefs); they fail with template.Errorf, TypeErrorf,
// Detachedf and OptionErr, as the language's own plugins do.
package lookup

import "github.com/cfzt/cfzt-runner/engine/template"

// Libraries returns the plugin libraries of this package, for
// template.New.
func Libraries() []template.Library {
	return []template.Library{
		fileLookups(), firstFoundLookups(), dataFileLookups(), commandLookups(), envLookups(),
		inventoryLookups(), passwordLookups(), configLookups(), urlLookups(), treeLookups(),
		fileTests(), pathFilters(),
	}
}
