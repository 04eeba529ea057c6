package template

import (
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// jinjaTests returns Jinja2's built-in tests.
func jinjaTests() Library {
	return Library{Collection: "ansible.builtin", Tests: map[string]TestFunc{
		"defined":     testDefined,
		"undefined":   testUndefined,
		"none":        simpleTest("test_none", func(v any) bool { return v == nil }),
		"boolean":     simpleTest("test_boolean", func(v any) bool { _, ok := v.(bool); return ok }),
		"true":        simpleTest("test_true", func(v any) bool { b, ok := v.(bool); return ok && b }),
		"false":       simpleTest("test_false", func(v any) bool { b, ok := v.(bool); return ok && !b }),
		"integer":     simpleTest("test_integer", func(v any) bool { _, ok := v.(int); return ok }),
		"float":       simpleTest("test_float", func(v any) bool { _, ok := v.(float64); return ok }),
		"number":      simpleTest("test_number", value.IsNumber),
		"string":      simpleTest("test_string", func(v any) bool { _, ok := v.(string); return ok }),
		"mapping":     simpleTest("test_mapping", func(v any) bool { _, ok := v.(*value.Dict); return ok }),
		"sequence":    simpleTest("test_sequence", isSequenceLike),
		"iterable":    simpleTest("test_iterable", isIterable),
		"callable":    testCallable,
		"escaped":     simpleTest("test_escaped", func(v any) bool { _, ok := v.(markup); return ok }),
		"lower":       simpleTest("test_lower", func(v any) bool { return py.StrPredicate(value.Str(v), "islower") }),
		"upper":       simpleTest("test_upper", func(v any) bool { return py.StrPredicate(value.Str(v), "isupper") }),
		"odd":         testOdd,
		"even":        testEven,
		"divisibleby": testDivisibleby,
		"sameas":      testSameas,
		"in":          testIn,
		"filter":      testIsFilter,
		"test":        testIsTest,
		"==":          compareTest("eq", "=="),
		"eq":          compareTest("eq", "=="),
		"equalto":     compareTest("eq", "=="),
		"!=":          compareTest("ne", "!="),
		"ne":          compareTest("ne", "!="),
		">":           compareTest("gt", ">"),
		"gt":          compareTest("gt", ">"),
		"greaterthan": compareTest("gt", ">"),
		">=":          compareTest("ge", ">="),
		"ge":          compareTest("ge", ">="),
		"<":           compareTest("lt", "<"),
		"lt":          compareTest("lt", "<"),
		"lessthan":    compareTest("lt", "<"),
		"<=":          compareTest("le", "<="),
		"le":          compareTest("le", "<="),
	}}
}

func simpleTest(fn string, f func(any) bool) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		if _, err := py.Sig(fn).Bind(a); err != nil {
			return false, err
		}
		return f(in), nil
	}
}

func testDefined(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("test_defined").Bind(a); err != nil {
		return false, err
	}
	return !isAnyUndefined(in), nil
}

func testUndefined(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("test_undefined").Bind(a); err != nil {
		return false, err
	}
	return isAnyUndefined(in), nil
}

// isAnyUndefined is true of Ansible's undefined values and of Jinja2's own
// Undefined (an inline if without an else), which Jinja2's defined and
// undefined tests both see as undefined.
func isAnyUndefined(in any) bool {
	switch in.(type) {
	case value.Undefined, jinjaUndefined:
		return true
	}
	return false
}

func isSequenceLike(v any) bool {
	switch v.(type) {
	case string, []any, value.Tuple, *value.Dict, *py.Range:
		return true
	}
	return false
}

func isIterable(v any) bool {
	switch v.(type) {
	case string, []any, value.Tuple, *value.Dict, *py.Range:
		return true
	}
	return false
}

func testCallable(_ *Ctx, in any, a *Args) (bool, error) {
	if err := py.OneArg("callable", a); err != nil {
		return false, err
	}
	switch in.(type) {
	case *boundMethod, globalFunc, *macro:
		return true, nil
	}
	return false, nil
}

func testOdd(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("test_odd").Bind(a); err != nil {
		return false, err
	}
	r, err := py.BinaryOp("%", in, 2)
	if err != nil {
		return false, err
	}
	return value.Equal(r, 1), nil
}

func testEven(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("test_even").Bind(a); err != nil {
		return false, err
	}
	r, err := py.BinaryOp("%", in, 2)
	if err != nil {
		return false, err
	}
	return value.Equal(r, 0), nil
}

func testDivisibleby(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := py.Sig("test_divisibleby", py.Req("num")).Bind(a)
	if err != nil {
		return false, err
	}
	r, err := py.BinaryOp("%", in, v[0])
	if err != nil {
		return false, err
	}
	return value.Equal(r, 0), nil
}

// testSameas approximates Python's `is`: identical containers, or
// singletons and interned scalars of the same type and value.
func testSameas(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := py.Sig("test_sameas", py.Req("other")).Bind(a)
	if err != nil {
		return false, err
	}
	o := v[0]
	switch x := in.(type) {
	case nil:
		return o == nil, nil
	case bool:
		y, ok := o.(bool)
		return ok && x == y, nil
	case int:
		y, ok := o.(int)
		return ok && x == y && x >= -5 && x <= 256, nil
	case string:
		y, ok := o.(string)
		return ok && x == y, nil
	case *value.Dict:
		y, ok := o.(*value.Dict)
		return ok && x == y, nil
	case []any:
		y, ok := o.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0]), nil
	}
	return false, nil
}

func testIn(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := py.Sig("test_in", py.Req("seq")).Bind(a)
	if err != nil {
		return false, err
	}
	return py.Contains(v[0], in)
}

func testIsFilter(c *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("test_filter").Implicit().Bind(a); err != nil {
		return false, err
	}
	s, ok := in.(string)
	if !ok {
		return false, nil
	}
	_, found := c.eng.lookupFilter(s)
	return found, nil
}

func testIsTest(c *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("test_test").Implicit().Bind(a); err != nil {
		return false, err
	}
	s, ok := in.(string)
	if !ok {
		return false, nil
	}
	_, found := c.eng.lookupTest(s)
	return found, nil
}

func compareTest(fn, op string) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		if a.Kw != nil && a.Kw.Len() > 0 {
			return false, TypeErrorf("%s() takes no keyword arguments", fn)
		}
		if len(a.Pos) != 1 {
			return false, TypeErrorf("%s expected 2 arguments, got %d", fn, len(a.Pos)+1)
		}
		return py.Compare(op, in, a.Pos[0])
	}
}
