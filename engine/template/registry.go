package template

import (
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/settings"
)

// FilterFunc implements a filter: `in | name(args)`.
type FilterFunc func(c *Ctx, in any, a *Args) (any, error)

// TestFunc implements a test: `in is name(args)`.
type TestFunc func(c *Ctx, in any, a *Args) (bool, error)

// LookupFunc implements a lookup plugin: lookup(name, terms..., kw...).
// Keyword arguments other than wantlist and errors arrive in a.Kw.
type LookupFunc func(c *Ctx, terms []any, a *Args) ([]any, error)

// Library is a set of plugins of one collection: a filter, test or lookup
// function by short name. The language's own plugins (Jinja2's and
// ansible-core's pure filters and tests, the list-shaping lookups) are
// libraries of this package, one file each, listed by families; the
// plugins that reach outside the template (files, processes, URLs, the
// environment) are engine/lookup's, which the composition root hands to
// New. A name registered twice is an error: short names must be unique
// across collections, as a fully qualified name is looked up by its
// short name.
type Library struct {
	// Collection is the FQCN prefix the plugins' errors name, as in
	// "The filter plugin 'ansible.builtin.to_json' failed".
	Collection string
	Filters    map[string]FilterFunc
	Tests      map[string]TestFunc
	Lookups    map[string]LookupFunc
	// LookupOptions are the options each lookup declares (ansible-core's
	// DOCUMENTATION options), by lookup and option name: Ctx.LookupOptions
	// reads a lookup's keyword arguments through them, and
	// Engine.LookupOptionDefs shows them to the config lookup. A lookup
	// absent from it takes no options (or parses its own).
	LookupOptions map[string]map[string]settings.Def
	// TakeUndefined names the lookups that receive undefined terms and
	// options as values (ansible-core's accept_args_markers) instead of
	// failing before they run.
	TakeUndefined []string
}

// families returns the language's own plugin libraries.
func families() []Library {
	return []Library{
		jinjaTextFilters(), jinjaHTMLFilters(), jinjaSeqFilters(), jinjaApplyFilters(), jinjaNumFilters(),
		ansibleCoreFilters(), ansibleDataFilters(), jsonYAMLFilters(), pathFilters(), regexFilters(),
		netFilters(), hashFilters(), mathFilters(), setFilters(), randomFilters(), dateFilters(),
		communityFilters(), ipaddrPlugins(),
		jinjaTests(), resultTests(), ansibleTests(),
		varLookups(), listLookups(), sequenceLookups(),
	}
}

// register adds the plugins of libs to e, wrapping filters and tests so
// that their failures name their collection. A name registered twice is an
// error.
func (e *Engine) register(libs []Library) error {
	for _, f := range libs {
		for name, fn := range f.Filters {
			if _, dup := e.filters[name]; dup {
				return fmt.Errorf("filter %s is registered twice", name)
			}
			e.filters[name] = wrapFilter(f.Collection+"."+name, fn)
		}
		for name, fn := range f.Tests {
			if _, dup := e.tests[name]; dup {
				return fmt.Errorf("test %s is registered twice", name)
			}
			e.tests[name] = wrapTest(f.Collection+"."+name, fn)
		}
		for name, fn := range f.Lookups {
			if _, dup := e.lookups[name]; dup {
				return fmt.Errorf("lookup %s is registered twice", name)
			}
			e.lookups[name] = fn
		}
		for name, defs := range f.LookupOptions {
			if _, ok := f.Lookups[name]; !ok {
				return fmt.Errorf("options of lookup %s, which the library lacks", name)
			}
			e.lookupOpts[name] = defs
		}
		for _, name := range f.TakeUndefined {
			if _, ok := f.Lookups[name]; !ok {
				return fmt.Errorf("lookup %s takes undefined values but the library lacks it", name)
			}
			e.takesUndefined[name] = true
		}
	}
	return nil
}

// wrapFilter makes a filter's failures read as ansible-core 2.19 reports
// them: "The filter plugin 'ansible.builtin.X' failed: <message>". Undefined
// errors pass through unchanged, as do failures already attributed to a
// plugin (a filter called by map, a test called by select).
func wrapFilter(fqcn string, f FilterFunc) FilterFunc {
	return func(c *Ctx, in any, a *Args) (any, error) {
		v, err := f(c, in, a)
		if err != nil {
			return nil, pluginErr("filter", fqcn, err)
		}
		return v, nil
	}
}

// wrapTest is wrapFilter for a test.
func wrapTest(fqcn string, f TestFunc) TestFunc {
	return func(c *Ctx, in any, a *Args) (bool, error) {
		v, err := f(c, in, a)
		if err != nil {
			return false, pluginErr("test", fqcn, err)
		}
		return v, nil
	}
}

// pluginErr attributes err to the plugin kind (filter, test or lookup)
// named name, unless it is an undefined value or already attributed.
func pluginErr(kind, name string, err error) error {
	err = fromPy(err)
	switch err.(type) {
	case *UndefinedError, *PluginError:
		return err
	}
	return &PluginError{Kind: kind, Name: name, Cause: err}
}

// fqcnPrefixes are the collections whose plugins resolve by short name.
var fqcnPrefixes = []string{"ansible.builtin.", "ansible.utils.", "community.general.", "ansible.netcommon.", "kubernetes.core."}

// stripFQCN returns a plugin name without its collection.
func stripFQCN(name string) string {
	for _, p := range fqcnPrefixes {
		if len(name) > len(p) && name[:len(p)] == p {
			return name[len(p):]
		}
	}
	return name
}

// lookupFilter finds a filter by short or fully qualified name.
func (e *Engine) lookupFilter(name string) (FilterFunc, bool) {
	if f, ok := e.resolvedFilter(name, true); ok {
		return f, true
	}
	if f, ok := e.filters[name]; ok {
		return f, true
	}
	if f, ok := e.filters[stripFQCN(name)]; ok {
		return f, true
	}
	return e.resolvedFilter(name, false)
}

// lookupTest finds a test by short or fully qualified name.
func (e *Engine) lookupTest(name string) (TestFunc, bool) {
	if t, ok := e.resolvedTest(name, true); ok {
		return t, true
	}
	if t, ok := e.tests[name]; ok {
		return t, true
	}
	if t, ok := e.tests[stripFQCN(name)]; ok {
		return t, true
	}
	return e.resolvedTest(name, false)
}
