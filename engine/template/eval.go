package template

import (
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// eval evaluates an expression. Undefined values are returned, not raised:
// they fail only where they are used.
func (c *Ctx) eval(e syntax.Expr) (any, error) {
	switch x := e.(type) {
	case *syntax.Literal:
		if s, ok := x.Value.(string); ok && c.opt.Conditional && !c.eng.NoEmbeddedTemplates && HasMarkers(s) {
			return c.renderConstTemplate(s)
		}
		return x.Value, nil
	case *syntax.Name:
		return c.lookupName(x.Name), nil
	case *syntax.List:
		return c.evalItems(x.Items)
	case *syntax.Tuple:
		items, err := c.evalItems(x.Items)
		if err != nil {
			return nil, err
		}
		return value.Tuple(items), nil
	case *syntax.Dict:
		return c.evalDict(x)
	case *syntax.Attr:
		obj, err := c.eval(x.Obj)
		if err != nil {
			return nil, err
		}
		return getAttr(obj, x.Attr), nil
	case *syntax.Item:
		obj, err := c.eval(x.Obj)
		if err != nil {
			return nil, err
		}
		key, err := c.evalDefined(x.Key)
		if err != nil {
			return nil, err
		}
		return getItem(obj, key)
	case *syntax.Slice:
		return c.evalSlice(x)
	case *syntax.Call:
		return c.evalCall(x)
	case *syntax.Binary:
		return c.evalBinary(x)
	case *syntax.And:
		l, err := c.evalDefined(x.L)
		if err != nil || !value.Truthy(l) {
			return l, err
		}
		return c.eval(x.R)
	case *syntax.Or:
		l, err := c.evalDefined(x.L)
		if err != nil || value.Truthy(l) {
			return l, err
		}
		return c.eval(x.R)
	case *syntax.Not:
		v, err := c.evalDefined(x.Expr)
		if err != nil {
			return nil, err
		}
		return !value.Truthy(v), nil
	case *syntax.Unary:
		v, err := c.evalDefined(x.Expr)
		if err != nil {
			return nil, err
		}
		v, err = py.Negate(v, x.Plus)
		return v, fromPy(err)
	case *syntax.Compare:
		return c.evalCompare(x)
	case *syntax.Cond:
		return c.evalCond(x)
	case *syntax.Filter:
		return c.evalFilters(x)
	case *syntax.Test:
		return c.evalTest(x)
	}
	return nil, TypeErrorf("unsupported expression %T", e)
}

// evalDefined evaluates e and fails if the result is undefined.
func (c *Ctx) evalDefined(e syntax.Expr) (any, error) {
	v, err := c.eval(e)
	if err != nil {
		return nil, err
	}
	switch u := v.(type) {
	case value.Undefined:
		return nil, UndefinedErr(u)
	case jinjaUndefined:
		return nil, &UndefinedError{Msg: u.hint}
	case markup, *groupTuple:
		return plain(v), nil
	}
	return v, nil
}

// evalItems evaluates the items of a list or tuple display.
func (c *Ctx) evalItems(items []syntax.Expr) ([]any, error) {
	out := make([]any, len(items))
	for i, it := range items {
		v, err := c.evalDefined(it)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (c *Ctx) evalDict(x *syntax.Dict) (any, error) {
	d := value.NewDict(len(x.Keys))
	for i := range x.Keys {
		k, err := c.evalDefined(x.Keys[i])
		if err != nil {
			return nil, err
		}
		v, err := c.evalDefined(x.Values[i])
		if err != nil {
			return nil, err
		}
		d.Set(value.Str(k), v)
	}
	return d, nil
}

func (c *Ctx) evalBinary(x *syntax.Binary) (any, error) {
	l, err := c.evalDefined(x.L)
	if err != nil {
		return nil, err
	}
	r, err := c.evalDefined(x.R)
	if err != nil {
		return nil, err
	}
	v, err := py.BinaryOp(x.Op, l, r)
	return v, fromPy(err)
}

// evalCond evaluates an inline if-expression; without an else, a false
// condition gives Jinja2's own undefined value.
func (c *Ctx) evalCond(x *syntax.Cond) (any, error) {
	cond, err := c.evalDefined(x.Cond)
	if err != nil {
		return nil, err
	}
	if value.Truthy(cond) {
		return c.eval(x.Then)
	}
	if x.Else == nil {
		return jinjaUndefined{hint: "the inline if-expression on line 1 evaluated to false and no else section was defined."}, nil
	}
	return c.eval(x.Else)
}

func (c *Ctx) evalSlice(x *syntax.Slice) (any, error) {
	obj, err := c.evalDefined(x.Obj)
	if err != nil {
		return nil, err
	}
	var bounds [3]*int
	for i, e := range [3]syntax.Expr{x.Start, x.Stop, x.Step} {
		if e == nil {
			continue
		}
		v, err := c.evalDefined(e)
		if err != nil {
			return nil, err
		}
		if bounds[i], err = py.SliceIndex(v); err != nil {
			return nil, fromPy(err)
		}
	}
	v, err := py.Slice(obj, bounds[0], bounds[1], bounds[2])
	return v, fromPy(err)
}

func (c *Ctx) evalCompare(x *syntax.Compare) (any, error) {
	l, err := c.evalDefined(x.First)
	if err != nil {
		return nil, err
	}
	for i, op := range x.Ops {
		r, err := c.evalDefined(x.Rest[i])
		if err != nil {
			return nil, err
		}
		ok, err := py.Compare(op, l, r)
		if err != nil {
			return nil, fromPy(err)
		}
		if !ok {
			return false, nil
		}
		l = r
	}
	return true, nil
}
