package template

import (
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Args are the evaluated arguments of a filter, test, lookup or call: a
// Python call's positional and keyword arguments.
type Args = py.Args

// undefinedOK lists filters and tests that accept an undefined input.
var undefinedOK = map[string]bool{
	"default": true, "d": true, "mandatory": true, "defined": true, "undefined": true,
	"ansible.builtin.default": true, "ansible.builtin.mandatory": true,
}

// acceptsUndefinedArgs lists the filters and tests that receive undefined
// inputs and arguments as values (ansible-core's accept_args_markers). Any
// other filter or test, and any call other than a macro's, given an
// undefined input or argument returns that undefined without running, so
// it fails only where it is used: `a.b | default(a.missing)` is a.b when a.b
// is defined.
var acceptsUndefinedArgs = map[string]bool{
	"default": true, "d": true, "mandatory": true, "ternary": true, "type_debug": true,
	"defined": true, "undefined": true, "vault_encrypted": true,
}

// isUndefined reports whether v is an Ansible undefined value (a marker;
// Jinja2's own Undefined from an if-expression without else is not one).
func isUndefined(v any) bool {
	_, ok := v.(value.Undefined)
	return ok
}

// firstUndefinedArg returns the first undefined value among in (when given)
// and the arguments a, or nil.
func firstUndefinedArg(a *Args, in ...any) any {
	for _, v := range in {
		if isUndefined(v) {
			return v
		}
	}
	for _, v := range a.Pos {
		if isUndefined(v) {
			return v
		}
	}
	if a.Kw != nil {
		var found any
		a.Kw.Each(func(_ string, v any) bool {
			if isUndefined(v) {
				found = v
			}
			return found == nil
		})
		return found
	}
	return nil
}

// evalArg evaluates a call argument: Ansible undefined values are kept, to
// be passed on (see acceptsUndefinedArgs); template-only wrappers become
// plain values.
func (c *Ctx) evalArg(e syntax.Expr) (any, error) {
	v, err := c.eval(e)
	if err != nil {
		return nil, err
	}
	switch u := v.(type) {
	case jinjaUndefined:
		return nil, &UndefinedError{Msg: u.hint}
	case markup, *groupTuple:
		return plain(v), nil
	}
	return v, nil
}

// evalArgs evaluates the arguments written in a call, filter or test;
// star and dstar are a call's *args and **kwargs, or nil.
func (c *Ctx) evalArgs(w syntax.Arguments, star, dstar syntax.Expr) (*Args, error) {
	args, kwNames, kwVals := w.Args, w.KwNames, w.KwValues
	// One allocation holds the Args and up to three positional values.
	ab := &struct {
		Args
		buf [3]any
	}{}
	a := &ab.Args
	if len(args) <= len(ab.buf) {
		a.Pos = ab.buf[:0]
	} else {
		a.Pos = make([]any, 0, len(args))
	}
	for _, e := range args {
		v, err := c.evalArg(e)
		if err != nil {
			return nil, err
		}
		a.Pos = append(a.Pos, v)
	}
	if star != nil {
		v, err := c.evalDefined(star)
		if err != nil {
			return nil, err
		}
		items, err := Iterate(v)
		if err != nil {
			return nil, err
		}
		a.Pos = append(a.Pos, items...)
	}
	if len(kwNames) > 0 || dstar != nil {
		a.Kw = value.NewDict(len(kwNames))
		for i, n := range kwNames {
			v, err := c.evalArg(kwVals[i])
			if err != nil {
				return nil, err
			}
			a.Kw.Set(n, v)
		}
		if dstar != nil {
			v, err := c.evalDefined(dstar)
			if err != nil {
				return nil, err
			}
			if d, ok := v.(*value.Dict); ok {
				a.Kw.Update(d)
			}
		}
	}
	return a, nil
}

func (c *Ctx) evalFilters(x *syntax.Filter) (any, error) {
	v, err := c.eval(x.Expr)
	if err != nil {
		return nil, err
	}
	for _, f := range x.Filters {
		if v, err = c.applyFilter(f, v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func (c *Ctx) applyFilter(f *syntax.FilterCall, in any) (any, error) {
	fn, ok := c.eng.lookupFilter(f.Name)
	if !ok {
		return nil, &TemplateSyntaxError{Msg: "No filter named '" + f.Name + "'."}
	}
	a, err := c.evalArgs(f.Arguments, nil, nil)
	if err != nil {
		return nil, err
	}
	if !acceptsUndefinedArgs[stripFQCN(f.Name)] {
		if u := firstUndefinedArg(a, in); u != nil {
			return u, nil
		}
	}
	in, err = checkInput(in, f.Name)
	if err != nil {
		return nil, err
	}
	return fn(c, in, a)
}

// checkInput fails on an undefined input unless the filter or test accepts
// one, and converts template-only wrappers to plain values.
func checkInput(in any, name string) (any, error) {
	if undefinedOK[name] {
		return in, nil
	}
	switch u := in.(type) {
	case value.Undefined:
		return nil, UndefinedErr(u)
	case jinjaUndefined:
		return nil, &UndefinedError{Msg: u.hint}
	case *groupTuple, markup:
		switch name {
		case "type_debug", "ansible.builtin.type_debug", "escaped":
			return in, nil
		}
	}
	return plain(in), nil
}

// Filter applies a named filter from Go code.
func (c *Ctx) Filter(name string, in any, args ...any) (any, error) {
	fn, ok := c.eng.lookupFilter(name)
	if !ok {
		return nil, &TemplateSyntaxError{Msg: "No filter named '" + name + "'."}
	}
	return fn(c, plain(in), &Args{Pos: args})
}

// Test applies a named test from Go code.
func (c *Ctx) Test(name string, in any, args ...any) (bool, error) {
	fn, ok := c.eng.lookupTest(name)
	if !ok {
		return false, &TemplateSyntaxError{Msg: "No test named '" + name + "'."}
	}
	return fn(c, in, &Args{Pos: args})
}

func (c *Ctx) evalTest(x *syntax.Test) (any, error) {
	fn, ok := c.eng.lookupTest(x.Name)
	if !ok {
		return nil, &TemplateSyntaxError{Msg: "No test named '" + x.Name + "'."}
	}
	in, err := c.eval(x.Expr)
	if err != nil {
		return nil, err
	}
	a, err := c.evalArgs(x.Arguments, nil, nil)
	if err != nil {
		return nil, err
	}
	if !acceptsUndefinedArgs[stripFQCN(x.Name)] {
		if u := firstUndefinedArg(a, in); u != nil {
			return u, nil
		}
	}
	if in, err = checkInput(in, x.Name); err != nil {
		return nil, err
	}
	r, err := fn(c, in, a)
	if err != nil {
		return nil, err
	}
	return r != x.Negate, nil
}

func (c *Ctx) evalCall(x *syntax.Call) (any, error) {
	if done, res, err := c.callGrow(x); done {
		return res, err
	}
	fn, err := c.eval(x.Fn)
	if err != nil {
		return nil, err
	}
	if u, ok := fn.(value.Undefined); ok {
		return nil, UndefinedErr(u)
	}
	a, err := c.evalArgs(x.Arguments, x.Star, x.DStar)
	if err != nil {
		return nil, err
	}
	if err := c.renderEmbeddedTerms(x, a); err != nil {
		return nil, err
	}
	if _, isMacro := fn.(*macro); !isMacro && !c.eng.lookupTakesUndefined(x, a) {
		if u := firstUndefinedArg(a); u != nil {
			return u, nil
		}
	}
	switch f := fn.(type) {
	case *boundMethod:
		res, mutated, err := callMethod(f, a)
		if err != nil {
			return nil, err
		}
		if mutated != nil {
			// A list or dict that takes in its arguments grows at most one
			// level deeper than they are: bounded, as namespaces are.
			if argsTooDeep(a) {
				return nil, &recursionError{}
			}
			if attr, ok := x.Fn.(*syntax.Attr); ok {
				c.writeBack(attr.Obj, mutated)
			}
		}
		return res, nil
	case globalFunc:
		return f(c, a)
	case *macro:
		return f.call(a.Pos, a.Kw)
	case blockRef:
		return f.render(c)
	}
	return nil, TypeErrorf("'%s' object is not callable", value.TypeName(fn))
}

// argsTooDeep reports whether an argument of a call nests beyond
// value.MaxDepth.
func argsTooDeep(a *Args) bool {
	for _, v := range a.Pos {
		if value.TooDeep(v) {
			return true
		}
	}
	return a.Kw != nil && value.TooDeep(a.Kw)
}
