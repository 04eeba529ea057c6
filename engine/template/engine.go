package template

import (
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Vars is the variable source of a render.
type Vars interface {
	// Lookup returns the value of name; templated reports that the value
	// came from a playbook source and may hold templates to render on use.
	Lookup(name string) (v any, templated bool, ok bool)
}

// MapVars adapts a Dict of already-resolved values to Vars.
type MapVars struct{ D *value.Dict }

// Lookup implements Vars.
func (m MapVars) Lookup(name string) (any, bool, bool) {
	v, ok := m.D.Get(name)
	return v, false, ok
}

// Engine holds the filters, tests, lookups and globals of a run and a cache
// of parsed templates. It is safe for concurrent use.
type Engine struct {
	filters map[string]FilterFunc
	tests   map[string]TestFunc
	lookups map[string]LookupFunc
	cache   sync.Map // source -> []node

	// Getenv reads the environment for lookup('env'); Now gives the time.
	Getenv func(string) (string, bool)
	Now    func() time.Time
}

// New returns an engine with every built-in filter, test and lookup.
func New() *Engine {
	e := &Engine{
		filters: map[string]FilterFunc{},
		tests:   map[string]TestFunc{},
		lookups: map[string]LookupFunc{},
		Getenv:  os.LookupEnv,
		Now:     time.Now,
	}
	for _, set := range []map[string]FilterFunc{coreFilters(), ansibleFilters()} {
		for k, f := range set {
			e.filters[k] = f
		}
	}
	for k, t := range builtinTests() {
		e.tests[k] = t
	}
	for k, l := range builtinLookups() {
		e.lookups[k] = l
	}
	return e
}

// RegisterFilter adds or replaces a filter.
func (e *Engine) RegisterFilter(name string, f FilterFunc) { e.filters[name] = f }

// HasMarkers reports whether s contains Jinja2 delimiters and so needs
// rendering.
func HasMarkers(s string) bool {
	return strings.Contains(s, "{{") || strings.Contains(s, "{%") || strings.Contains(s, "{#")
}

func (e *Engine) parse(src string) ([]node, error) {
	if n, ok := e.cache.Load(src); ok {
		return n.([]node), nil
	}
	nodes, err := parseTemplate(src)
	if err != nil {
		if se, ok := err.(*SyntaxError); ok {
			return nil, &TemplateSyntaxError{Msg: se.Msg, Line: se.Line, Col: se.Col}
		}
		return nil, err
	}
	e.cache.Store(src, nodes)
	return nodes, nil
}

// Options adjust one render.
type Options struct {
	// SearchPaths are the directories for lookup('file'), lookup('template').
	SearchPaths []string
	// Locals are variables that shadow Vars (loop variables and the like).
	Locals *value.Dict
}

// Render renders src with vars. A template that is exactly one expression
// keeps the expression's type (ansible-core 2.19 native typing); anything
// else is a string. A string without delimiters is returned unchanged.
func (e *Engine) Render(src string, vars Vars, opt Options) (any, error) {
	if !HasMarkers(src) {
		return src, nil
	}
	c := e.newCtx(vars, opt)
	v, err := c.render(src)
	if err != nil {
		return nil, err
	}
	return finalize(v)
}

// RenderValue renders every string inside v (lists and dicts recursively).
func (e *Engine) RenderValue(v any, vars Vars, opt Options) (any, error) {
	c := e.newCtx(vars, opt)
	r, err := c.resolveDeep(v, false)
	if err != nil {
		return nil, err
	}
	return finalize(r)
}

// Eval evaluates a bare Jinja2 expression, as used by `when` and
// `failed_when`, and returns its value.
func (e *Engine) Eval(expression string, vars Vars, opt Options) (any, error) {
	c := e.newCtx(vars, opt)
	v, err := c.render("{{ " + expression + " }}")
	if err != nil {
		return nil, err
	}
	return finalize(v)
}

func (e *Engine) newCtx(vars Vars, opt Options) *Ctx {
	c := &Ctx{eng: e, vars: vars, opt: opt, resolved: map[string]any{}, resolving: map[string]bool{}}
	if opt.Locals != nil && opt.Locals.Len() > 0 {
		c.scopes = []*value.Dict{opt.Locals}
	}
	return c
}

// finalize checks a render result for values that cannot leave a template:
// undefined values and ranges.
func finalize(v any) (any, error) {
	switch x := v.(type) {
	case value.Undefined:
		return nil, undefinedErr(x)
	case *rangeVal:
		return nil, &RuntimeError{Msg: "Type 'range' is unsupported for variable storage."}
	case []any:
		for _, e := range x {
			if _, err := finalize(e); err != nil {
				return nil, err
			}
		}
	case *value.Dict:
		var err error
		x.Each(func(_ string, e any) bool { _, err = finalize(e); return err == nil })
		if err != nil {
			return nil, err
		}
	}
	return v, nil
}
