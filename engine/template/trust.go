package template

import (
	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Trust is implemented by a variable source that knows where each
// variable came from. Lookup's templated flag cannot tell: a value from a
// trusted source that holds no template may be returned as plain data.
type Trust interface {
	// Trusted reports whether the value of name came from a trusted
	// source (a playbook, role, vars file, inventory, extra vars) rather
	// than from data (module results, registered output, facts). Parts of
	// a trusted value may still be data, marked value.Untrusted.
	Trusted(name string) bool
}

// maxIndirection bounds how many variables holding one whole template
// ("{{ other }}") a trusted reference is followed through.
const maxIndirection = 50

// RenderTrusted renders src as Render does and also reports whether the
// result is trusted as a template or expression, as ansible-core 2.19
// decides when a conditional or debug's `var` is one whole template
// ("{{ x }}") whose result is then evaluated as an expression. Only a
// string that reaches the result unchanged from a trusted source is: src
// must be one {{ }} naming a variable (attributes and items with constant
// or variable keys), possibly through variables that are themselves one
// such template. Any string a template computes (concatenation, a filter,
// a constant in the template) or that came from data is not.
func (e *Engine) RenderTrusted(src string, vars Vars, opt Options) (any, bool, error) {
	v, err := e.Render(src, vars, opt)
	if err != nil {
		return v, false, err
	}
	if _, ok := v.(string); !ok {
		return v, false, nil
	}
	c := e.newCtx(vars, opt)
	return v, c.trustedTemplate(src, 0), nil
}

// trustedTemplate reports whether the template src evaluates to a trusted
// string: it is one {{ }} whose expression is a trusted reference.
func (c *Ctx) trustedTemplate(src string, depth int) bool {
	if depth > maxIndirection || !isTemplate(src, nil) || hasHeader(src) {
		return false
	}
	nodes, err := c.eng.parseConfig(src, !c.jinjaEscapes, nil)
	if err != nil {
		return false
	}
	o, ok := singleOutput(nodes)
	if !ok {
		return false
	}
	v, trusted, ok := c.trustedRef(o.Expr, depth)
	if !ok || !trusted {
		return false
	}
	s, isStr := v.(string)
	return isStr && !isTemplate(s, nil)
}

func hasHeader(src string) bool {
	return len(src) >= len(HeaderPrefix) && src[:len(HeaderPrefix)] == HeaderPrefix
}

// trustedRef follows a variable reference to the raw value it names,
// without rendering anything, and reports whether that value is trusted.
// ok is false for an expression that is no plain reference.
func (c *Ctx) trustedRef(e syntax.Expr, depth int) (v any, trusted bool, ok bool) {
	switch x := e.(type) {
	case *syntax.Name:
		for i := len(c.scopes) - 1; i >= 0; i-- {
			if c.scopes[i].Has(x.Name) {
				return nil, false, false
			}
		}
		raw, templated, found := c.vars.Lookup(x.Name)
		if !found {
			return nil, false, false
		}
		if d, isDep := raw.(DeprecatedVar); isDep {
			raw = d.Value
		}
		trusted = templated
		if t, has := c.vars.(Trust); has {
			trusted = t.Trusted(x.Name)
		}
		return c.follow(raw, trusted, depth)
	case *syntax.Attr:
		obj, trusted, ok := c.trustedRef(x.Obj, depth)
		if !ok {
			return nil, false, false
		}
		return c.child(obj, x.Attr, trusted, depth)
	case *syntax.Item:
		obj, trusted, ok := c.trustedRef(x.Obj, depth)
		if !ok {
			return nil, false, false
		}
		var key any
		switch k := x.Key.(type) {
		case *syntax.Literal:
			key = k.Value
		case *syntax.Name:
			kv, err := c.eval(k)
			if err != nil {
				return nil, false, false
			}
			key = kv
		default:
			return nil, false, false
		}
		return c.child(obj, key, trusted, depth)
	}
	return nil, false, false
}

// child is the raw element key of a container met by trustedRef.
func (c *Ctx) child(obj, key any, trusted bool, depth int) (any, bool, bool) {
	var e any
	var found bool
	switch o := obj.(type) {
	case *value.Dict:
		e, found = o.Get(value.Str(key))
	case []any:
		if n, isInt := value.AsInt(key); isInt && n >= 0 && n < len(o) {
			e, found = o[n], true
		}
	}
	if !found {
		return nil, false, false
	}
	return c.follow(e, trusted, depth)
}

// follow resolves, in a trusted value, a string that is one whole
// template naming another variable: its result is that variable's value.
// Data marks end trust.
func (c *Ctx) follow(v any, trusted bool, depth int) (any, bool, bool) {
	switch x := v.(type) {
	case value.Untrusted:
		return x.V, false, true
	case value.Unsafe:
		return string(x), false, true
	case string:
		if !trusted || !isTemplate(x, nil) {
			return x, trusted, true
		}
		if depth >= maxIndirection || hasHeader(x) {
			return nil, false, false
		}
		nodes, err := c.eng.parseConfig(x, !c.jinjaEscapes, nil)
		if err != nil {
			return nil, false, false
		}
		o, ok := singleOutput(nodes)
		if !ok {
			// A template that computes a new string: not trusted.
			return x, false, true
		}
		return c.trustedRef(o.Expr, depth+1)
	}
	return v, trusted, true
}

// TrustedSource returns the raw value (not rendered) that src, one {{ }}
// naming a variable, refers to, when that value is trusted: what a loop
// over it gives keeps the trust of its strings, as ansible-core's lazy
// containers keep their elements.
func (e *Engine) TrustedSource(src string, vars Vars, opt Options) (any, bool) {
	if !isTemplate(src, nil) || hasHeader(src) {
		return nil, false
	}
	c := e.newCtx(vars, opt)
	nodes, err := e.parseConfig(src, !c.jinjaEscapes, nil)
	if err != nil {
		return nil, false
	}
	o, ok := singleOutput(nodes)
	if !ok {
		return nil, false
	}
	v, trusted, ok := c.trustedRef(o.Expr, 0)
	return v, ok && trusted
}
