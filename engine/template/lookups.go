package template

// The language's own lookups live in the lookups_*.go files, one library
// each (variables, list shapes, sequence); those that read files, run
// processes or fetch URLs are engine/lookup's, handed to New. A lookup is
// a LookupFunc added to its library's map: it gets the terms (the
// positional arguments after the plugin's name) and its options in a.Kw,
// already without lookup()'s own wantlist and errors, and returns a list,
// which invokeLookup merges for lookup() or returns as is for query() and
// with_<lookup> loops. The Ctx methods here are the plugin API of
// engine/lookup: they read options as ansible-core's set_options does and
// find files on the task's search path (engine/search) as its
// find_file_in_search_path does.

import (
	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/settings"
	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// LookupOptions resolves the options the lookup name declares (its
// library's LookupOptions) from its keyword arguments, as
// set_options(direct=kwargs) does: each option is converted to its type
// and checked against its choices, an option not given (or given as None)
// takes its default from a variable, the environment or ansible.cfg where
// the option says, else its default, and keywords the lookup does not
// declare are ignored.
func (c *Ctx) LookupOptions(name string, a *Args) (map[string]any, error) {
	defs := c.eng.lookupOpts[name]
	out := make(map[string]any, len(defs))
	for opt, d := range defs {
		var direct any
		has := false
		if a.Kw != nil {
			direct, has = a.Kw.Get(opt)
		}
		v, origin, err := c.eng.Settings.ResolveWithVars(settings.Label("lookup", name, opt), d, direct, has, c.definedVar)
		if err != nil {
			return nil, OptionErr(err)
		}
		if d.Deprecated != nil && origin != "default" {
			w := diag.Deprecate(d.Deprecated.Message(opt), d.Deprecated.Version, nil)
			w.Plugin = "lookup plugin '" + name + "'"
			c.warn(w)
		}
		out[opt] = v
	}
	return out, nil
}

// LookupOptionDefs returns the options the lookup name declares and
// whether the engine has that lookup in its libraries, by short or fully
// qualified name (the config lookup's plugin_type=lookup). The options are
// found under the short name only: ansible-core keeps a plugin's option
// definitions under the name it was first loaded by, so its fully
// qualified name loads it but finds none.
func (e *Engine) LookupOptionDefs(name string) (map[string]settings.Def, bool) {
	_, found := e.lookups[stripFQCN(name)]
	return e.lookupOpts[name], found
}

// OptionErr turns a settings error into a lookup's failure; ansible-core
// shows an invalid choice in a section of its own, with the valid values.
func OptionErr(err error) error {
	if oe, ok := err.(*settings.OptionError); ok && oe.Help != "" {
		return &FilterError{Msg: oe.Error(), Help: oe.Help, Detached: true}
	}
	return Errorf("%s", err.Error())
}

// definedVar returns a variable's value unless it is undefined.
func (c *Ctx) definedVar(name string) (any, bool) {
	v := c.lookupName(name)
	if _, undefined := v.(value.Undefined); undefined {
		return nil, false
	}
	return v, true
}

// SearchPath is the path lookups search: ansible_search_path, which ends
// with the play's directory.
func (c *Ctx) SearchPath() search.Path { return c.opt.Search.ForLookups() }

// FindFileWarn is find_file_in_search_path: the file (or directory)
// needle on the lookup search path, with subdir tried first in each
// directory; a missing file is "" and the warning ansible-core gives.
// FindFile is the same without the warning.
func (c *Ctx) FindFileWarn(subdir, needle string) string {
	found := c.FindFile(subdir, needle)
	if found == "" {
		c.warn(diag.Warn("Unable to find '"+needle+"' in expected paths (use -vvvvv to see paths)", nil))
	}
	return found
}

// LoopAction is the task's action when a with_<lookup> loop runs the
// lookup (Options.LoopAction), else "".
func (c *Ctx) LoopAction() string { return c.opt.LoopAction }

// SelectHosts is the inventory hostnames that patterns select, from the
// groups variable, as lookup('inventory_hostnames') selects them
// (Options.Hosts); none when the render has no inventory.
func (c *Ctx) SelectHosts(groups *value.Dict, patterns []string) []string {
	if c.opt.Hosts == nil {
		return nil
	}
	return c.opt.Hosts(groups, patterns)
}

// EmbeddedTemplateWarning is ansible-core 2.19's warning for a string
// constant of an expression that holds a template, which it still renders
// (in a conditional, or as a lookup's term).
const EmbeddedTemplateWarning = "Jinja constant strings should not contain embedded templates. This feature will be disabled by default in ansible-core 2.23."

// embeddedTermHelp is the advice that follows the warning for a lookup term.
const embeddedTermHelp = "Use inline expressions, for example: `msg: \"{{ lookup('env', '{{ a_var }}') }}\"` becomes `msg: \"{{ lookup('env', a_var) }}\"`"

// embeddedCondHelp is the advice that follows the warning in a conditional.
const embeddedCondHelp = "Use inline expressions, for example: `when: \"{{ a_var }}\" == 42` becomes `when: a_var == 42`"

// renderConstTemplate renders a string constant of a conditional that
// holds a template ("x == '{{ y }}'") to its native value, as ansible-core
// 2.19 still does, warning at the conditional.
func (c *Ctx) renderConstTemplate(s string) (any, error) {
	c.warnAtValue(&diag.Diagnostic{Severity: diag.Warning, Summary: EmbeddedTemplateWarning, Help: embeddedCondHelp})
	return c.render(s)
}

// renderEmbeddedTerms renders the terms of lookup(), query() or q() that
// are string constants holding a template ('{{ d }}/x'), as ansible-core
// 2.19 still does for backward compatibility, warning at the value being
// rendered. Other arguments are left alone.
func (c *Ctx) renderEmbeddedTerms(call *syntax.Call, a *Args) error {
	if c.eng.NoEmbeddedTemplates {
		return nil
	}
	name, ok := call.Fn.(*syntax.Name)
	if !ok || (name.Name != "lookup" && name.Name != "query" && name.Name != "q") {
		return nil
	}
	for i := 1; i < len(call.Args) && i < len(a.Pos); i++ {
		lit, ok := call.Args[i].(*syntax.Literal)
		if !ok {
			continue
		}
		s, ok := lit.Value.(string)
		if !ok || !HasMarkers(s) {
			continue
		}
		c.warnAtValue(&diag.Diagnostic{Severity: diag.Warning, Summary: EmbeddedTemplateWarning, Help: embeddedTermHelp})
		v, err := c.render(s)
		if err != nil {
			return err
		}
		a.Pos[i] = v
	}
	return nil
}

// lookupTakesUndefined reports whether call is lookup(), query() or q()
// of a lookup that takes undefined values (Library.TakeUndefined: env's
// default may be undef(), and first_found skips undefined terms of a
// with_first_found loop).
func (e *Engine) lookupTakesUndefined(call *syntax.Call, a *Args) bool {
	name, ok := call.Fn.(*syntax.Name)
	if !ok || (name.Name != "lookup" && name.Name != "query" && name.Name != "q") || len(a.Pos) == 0 {
		return false
	}
	plugin, ok := a.Pos[0].(string)
	return ok && e.takesUndefined[stripFQCN(plugin)]
}

func kwGet(kw *value.Dict, k string) any {
	v, _ := kw.Get(k)
	return v
}
