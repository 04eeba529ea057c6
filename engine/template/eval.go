package template

import (
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// eval evaluates an expression. Undefined values are returned, not raised:
// they fail only where they are used.
func (c *Ctx) eval(e expr) (any, error) {
	switch x := e.(type) {
	case *literalExpr:
		return x.v, nil
	case *nameExpr:
		return c.lookupName(x.name), nil
	case *listExpr:
		out := make([]any, len(x.items))
		for i, it := range x.items {
			v, err := c.evalDefined(it)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *tupleExpr:
		out := make(value.Tuple, len(x.items))
		for i, it := range x.items {
			v, err := c.evalDefined(it)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *dictExpr:
		d := value.NewDict(len(x.keys))
		for i := range x.keys {
			k, err := c.evalDefined(x.keys[i])
			if err != nil {
				return nil, err
			}
			v, err := c.evalDefined(x.values[i])
			if err != nil {
				return nil, err
			}
			d.Set(value.Str(k), v)
		}
		return d, nil
	case *attrExpr:
		obj, err := c.eval(x.obj)
		if err != nil {
			return nil, err
		}
		return getAttr(obj, x.attr), nil
	case *itemExpr:
		obj, err := c.eval(x.obj)
		if err != nil {
			return nil, err
		}
		key, err := c.evalDefined(x.key)
		if err != nil {
			return nil, err
		}
		return getItem(obj, key)
	case *sliceExpr:
		return c.evalSlice(x)
	case *callExpr:
		return c.evalCall(x)
	case *binExpr:
		l, err := c.evalDefined(x.l)
		if err != nil {
			return nil, err
		}
		r, err := c.evalDefined(x.r)
		if err != nil {
			return nil, err
		}
		v, err := py.BinaryOp(x.op, l, r)
		return v, fromPy(err)
	case *andExpr:
		l, err := c.evalDefined(x.l)
		if err != nil {
			return nil, err
		}
		if !value.Truthy(l) {
			return l, nil
		}
		return c.eval(x.r)
	case *orExpr:
		l, err := c.evalDefined(x.l)
		if err != nil {
			return nil, err
		}
		if value.Truthy(l) {
			return l, nil
		}
		return c.eval(x.r)
	case *notExpr:
		v, err := c.evalDefined(x.e)
		if err != nil {
			return nil, err
		}
		return !value.Truthy(v), nil
	case *negExpr:
		v, err := c.evalDefined(x.e)
		if err != nil {
			return nil, err
		}
		v, err = py.Negate(v, x.plus)
		return v, fromPy(err)
	case *compareExpr:
		return c.evalCompare(x)
	case *condExpr:
		cond, err := c.evalDefined(x.cond)
		if err != nil {
			return nil, err
		}
		if value.Truthy(cond) {
			return c.eval(x.then)
		}
		if x.els == nil {
			return jinjaUndefined{hint: "the inline if-expression on line 1 evaluated to false and no else section was defined."}, nil
		}
		return c.eval(x.els)
	case *filterExpr:
		return c.evalFilters(x)
	case *testExpr:
		return c.evalTest(x)
	}
	return nil, typeErrorf("unsupported expression %T", e)
}

// evalDefined evaluates e and fails if the result is undefined.
func (c *Ctx) evalDefined(e expr) (any, error) {
	v, err := c.eval(e)
	if err != nil {
		return nil, err
	}
	switch u := v.(type) {
	case value.Undefined:
		return nil, undefinedErr(u)
	case jinjaUndefined:
		return nil, &UndefinedError{Msg: u.hint}
	case markup, *groupTuple:
		return plain(v), nil
	}
	return v, nil
}

func (c *Ctx) evalSlice(x *sliceExpr) (any, error) {
	obj, err := c.evalDefined(x.obj)
	if err != nil {
		return nil, err
	}
	var bounds [3]*int
	for i, e := range [3]expr{x.start, x.stop, x.step} {
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

func (c *Ctx) evalCompare(x *compareExpr) (any, error) {
	l, err := c.evalDefined(x.first)
	if err != nil {
		return nil, err
	}
	for i, op := range x.ops {
		r, err := c.evalDefined(x.rest[i])
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
