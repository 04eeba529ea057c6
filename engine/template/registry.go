package template

import "fmt"

// FilterFunc implements a filter: `in | name(args)`.
type FilterFunc func(c *Ctx, in any, a *Args) (any, error)

// TestFunc implements a test: `in is name(args)`.
type TestFunc func(c *Ctx, in any, a *Args) (bool, error)

// LookupFunc implements a lookup plugin: lookup(name, terms..., kw...).
// Keyword arguments other than wantlist and errors arrive in a.Kw.
type LookupFunc func(c *Ctx, terms []any, a *Args) ([]any, error)

// family is one file's plugins, all in one collection. Each file of
// plugins has a function that returns its family as map literals; families
// lists those functions. Adding a plugin means adding it to its family's
// map, in the file that implements it.
type family struct {
	// collection is the FQCN prefix the plugins' errors name, as in
	// "The filter plugin 'ansible.builtin.to_json' failed".
	collection string
	filters    map[string]FilterFunc
	tests      map[string]TestFunc
	lookups    map[string]LookupFunc
}

// families returns every plugin family an engine has.
func families() []family {
	return []family{
		jinjaTextFilters(), jinjaHTMLFilters(), jinjaSeqFilters(), jinjaApplyFilters(), jinjaNumFilters(),
		ansibleCoreFilters(), ansibleDataFilters(), jsonYAMLFilters(), pathFilters(), regexFilters(),
		netFilters(), hashFilters(), mathFilters(), setFilters(), randomFilters(), dateFilters(),
		communityFilters(), ipaddrPlugins(),
		jinjaTests(), resultTests(), ansibleTests(), fileTests(),
		fileLookups(), firstFoundLookups(), varLookups(), listLookups(), sequenceLookups(),
		commandLookups(), inventoryLookups(), passwordLookups(), configLookups(), urlLookups(), dataFileLookups(),
	}
}

// register adds the plugins of fams to e, wrapping filters and tests so
// that their failures name their collection. A name registered twice is an
// error: short names must be unique across collections, as lookups of a
// fully qualified name strip the collection.
func (e *Engine) register(fams []family) error {
	for _, f := range fams {
		for name, fn := range f.filters {
			if _, dup := e.filters[name]; dup {
				return fmt.Errorf("filter %s is registered twice", name)
			}
			e.filters[name] = wrapFilter(f.collection+"."+name, fn)
		}
		for name, fn := range f.tests {
			if _, dup := e.tests[name]; dup {
				return fmt.Errorf("test %s is registered twice", name)
			}
			e.tests[name] = wrapTest(f.collection+"."+name, fn)
		}
		for name, fn := range f.lookups {
			if _, dup := e.lookups[name]; dup {
				return fmt.Errorf("lookup %s is registered twice", name)
			}
			e.lookups[name] = fn
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
