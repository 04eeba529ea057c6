package template

import (
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// PluginResolver finds the filters, tests and lookups that are not built
// in: the Python plugins of the playbooks, roles and collections of a run
// (modules/pyplugin). The engine asks it before its built-ins for a short
// name, since ansible-core searches the plugin directories of playbooks,
// roles and configured paths before its own package, and after them for
// a fully qualified name. It must answer a name it does not provide
// quickly: the engine asks on every call of such a name.
type PluginResolver interface {
	// Filter returns the filter a plugin provides under name and the name
	// ansible-core reports it by ("stripnone", "ns.coll.name").
	Filter(name string) (fn FilterFunc, resolved string, ok bool)
	// Test is Filter for a test. A result that is not a bool is taken by
	// its truth value, with ansible-core's deprecation warning.
	Test(name string) (fn FilterFunc, resolved string, ok bool)
	// Lookup returns the lookup a plugin provides under name.
	Lookup(name string) (LookupFunc, bool)
}

// pluginsFirst reports whether the plugins of the run take precedence for
// name over the built-ins: a short or ansible.legacy name does (the
// legacy plugin directories come before ansible-core's package); a fully
// qualified name of another collection is the collection's.
func pluginsFirst(name string) bool {
	return !strings.Contains(name, ".") || strings.HasPrefix(name, "ansible.legacy.")
}

// resolvedFilter asks the resolver for a filter; first is whether this is
// the lookup before the built-ins.
func (e *Engine) resolvedFilter(name string, first bool) (FilterFunc, bool) {
	if e.Resolver == nil || first != pluginsFirst(name) || strings.HasPrefix(name, "ansible.builtin.") {
		return nil, false
	}
	fn, resolved, ok := e.Resolver.Filter(name)
	if !ok {
		return nil, false
	}
	return wrapFilter(resolved, fn), true
}

// resolvedTest asks the resolver for a test, as resolvedFilter.
func (e *Engine) resolvedTest(name string, first bool) (TestFunc, bool) {
	if e.Resolver == nil || first != pluginsFirst(name) || strings.HasPrefix(name, "ansible.builtin.") {
		return nil, false
	}
	fn, resolved, ok := e.Resolver.Test(name)
	if !ok {
		return nil, false
	}
	return wrapTest(resolved, func(c *Ctx, in any, a *Args) (bool, error) {
		r, err := fn(c, in, a)
		if err != nil {
			return false, err
		}
		if b, ok := r.(bool); ok {
			return b, nil
		}
		c.warnAtValue(diag.Deprecate(fmt.Sprintf("The test plugin '%s' returned a non-boolean result of type <class '%s'>. Test plugins must have a boolean result.", resolved, value.TypeName(r)), "2.23", nil))
		return value.Truthy(r), nil
	}), true
}

// lookupPlugin finds a lookup by short or fully qualified name: the run's
// plugins first for a short name, the built-ins first for another.
func (e *Engine) lookupPlugin(name string) (LookupFunc, bool) {
	first := pluginsFirst(name)
	if e.Resolver != nil && first {
		if fn, ok := e.Resolver.Lookup(name); ok {
			return fn, true
		}
	}
	if fn, ok := e.lookups[stripFQCN(name)]; ok {
		return fn, true
	}
	if e.Resolver != nil && !first && !strings.HasPrefix(name, "ansible.builtin.") {
		return e.Resolver.Lookup(name)
	}
	return nil, false
}

// WithResolver returns an engine that shares e's plugins, settings and
// parsed templates and resolves the names they lack with r: each run of a
// session whose engine outlives runs (the operator) has its own plugins.
func (e *Engine) WithResolver(r PluginResolver) *Engine {
	c := *e
	c.Resolver = r
	return &c
}

// Warn reports a warning of the render (a plugin's own warning).
func (c *Ctx) Warn(w *diag.Diagnostic) { c.warn(w) }

// Decrypt returns the plaintext of a `!vault` value met inside a value a
// plugin receives, or the error of its use.
func (c *Ctx) Decrypt(x value.Vaulted) (any, error) { return c.decrypt(x) }

// FindFile finds a file on the task's search path as lookups do, in
// subdir ("files", "templates"); "" when it is not there.
func (c *Ctx) FindFile(subdir, name string) string {
	found, _, ok := c.SearchPath().Find(subdir, name)
	if !ok {
		return ""
	}
	return found
}
