package template

import (
	"unicode/utf8"

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

// getAttr implements Jinja2's obj.attr: a Python attribute (a method) wins
// over a dict key, then the key, else an Undefined.
func getAttr(obj any, attr string) any {
	switch o := obj.(type) {
	case value.Undefined:
		return o
	case *value.Dict:
		if py.HasMethod(obj, attr) {
			return &boundMethod{recv: obj, name: attr}
		}
		if v, ok := o.Get(attr); ok {
			return v
		}
	case *namespace:
		if v, ok := o.get(attr); ok {
			return v
		}
	case *loopInfo:
		if v, ok := o.attr(attr); ok {
			return v
		}
		if attr == "cycle" {
			return &boundMethod{recv: obj, name: attr}
		}
	case *groupTuple:
		switch attr {
		case "grouper":
			return o.t[0]
		case "list":
			return o.t[1]
		}
	case *py.Datetime, *py.Timedelta:
		if v, ok := py.Attr(obj, attr); ok {
			return v
		}
		if py.HasMethod(obj, attr) {
			return &boundMethod{recv: obj, name: attr}
		}
	case markup:
		return getAttr(string(o), attr)
	default:
		if py.HasMethod(obj, attr) {
			return &boundMethod{recv: obj, name: attr}
		}
		if attr == "real" && value.IsNumber(obj) {
			return obj
		}
	}
	return noAttr(obj, attr)
}

// getItem implements Jinja2's obj[key]: the item first, then an attribute.
func getItem(obj, key any) (any, error) {
	obj = plain(obj)
	switch o := obj.(type) {
	case value.Undefined:
		return o, nil
	case *value.Dict:
		if k, ok := key.(string); ok {
			if v, ok := o.Get(k); ok {
				return v, nil
			}
			return noAttr(obj, k), nil
		}
		if v, ok := o.Get(value.Str(key)); ok && value.IsNumber(key) {
			return v, nil
		}
		return value.Undefined{Msg: "object of type 'dict' has no attribute " + value.Repr(key)}, nil
	case []any, value.Tuple, string:
		i, ok := value.AsInt(key)
		if !ok {
			if s, isStr := key.(string); isStr {
				return getAttr(obj, s), nil
			}
			return nil, typeErrorf("list indices must be integers or slices, not %s", value.TypeName(key))
		}
		n := seqLen(obj)
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return value.Undefined{Msg: "object of type '" + value.TypeName(obj) + "' has no attribute " + value.Repr(key)}, nil
		}
		return seqIndex(obj, i), nil
	case *loopInfo, *namespace:
		if s, ok := key.(string); ok {
			return getAttr(obj, s), nil
		}
	}
	if s, ok := key.(string); ok {
		return getAttr(obj, s), nil
	}
	return value.Undefined{Msg: "object of type '" + value.TypeName(obj) + "' has no attribute " + value.Repr(key)}, nil
}

func seqLen(v any) int {
	switch x := v.(type) {
	case []any:
		return len(x)
	case value.Tuple:
		return len(x)
	case string:
		return utf8.RuneCountInString(x)
	}
	return 0
}

func seqIndex(v any, i int) any {
	switch x := v.(type) {
	case []any:
		return x[i]
	case value.Tuple:
		return x[i]
	case string:
		return string([]rune(x)[i])
	}
	return nil
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
