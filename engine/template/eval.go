package template

import (
	"math"
	"math/big"
	"math/bits"
	"strings"
	"unicode/utf8"

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
		return binaryOp(x.op, l, r)
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
		return negate(v, x.plus)
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
		if isMethod(obj, attr) {
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
	case *pyDatetime, *pyTimedelta:
		if v, ok := pyObjAttr(obj, attr); ok {
			return v
		}
		if isMethod(obj, attr) {
			return &boundMethod{recv: obj, name: attr}
		}
	case markup:
		return getAttr(string(o), attr)
	default:
		if isMethod(obj, attr) {
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
	bound := func(e expr) (int, bool, error) {
		if e == nil {
			return 0, false, nil
		}
		v, err := c.evalDefined(e)
		if err != nil {
			return 0, false, err
		}
		if v == nil {
			return 0, false, nil
		}
		i, ok := value.AsInt(v)
		if !ok {
			return 0, false, typeErrorf("slice indices must be integers or None or have an __index__ method")
		}
		return i, true, nil
	}
	start, hasStart, err := bound(x.start)
	if err != nil {
		return nil, err
	}
	stop, hasStop, err := bound(x.stop)
	if err != nil {
		return nil, err
	}
	step, hasStep, err := bound(x.step)
	if err != nil {
		return nil, err
	}
	if !hasStep {
		step = 1
	}
	if step == 0 {
		return nil, typeErrorf("slice step cannot be zero")
	}
	var items []any
	var runes []rune
	switch o := obj.(type) {
	case []any:
		items = o
	case value.Tuple:
		items = o
	case string:
		runes = []rune(o)
	default:
		return nil, typeErrorf("'%s' object is not subscriptable", value.TypeName(obj))
	}
	n := len(items)
	if runes != nil || obj == "" {
		n = len(runes)
	}
	idx := sliceIndices(n, start, stop, step, hasStart, hasStop)
	if _, isStr := obj.(string); isStr {
		var b strings.Builder
		for _, i := range idx {
			b.WriteRune(runes[i])
		}
		return b.String(), nil
	}
	out := make([]any, 0, len(idx))
	for _, i := range idx {
		out = append(out, items[i])
	}
	if _, isTuple := obj.(value.Tuple); isTuple {
		return value.Tuple(out), nil
	}
	return out, nil
}

// sliceIndices computes the indices Python's seq[start:stop:step] selects.
func sliceIndices(n, start, stop, step int, hasStart, hasStop bool) []int {
	norm := func(i, def int, has bool, lo, hi int) int {
		if !has {
			return def
		}
		if i < 0 {
			i += n
			if i < lo {
				i = lo
			}
		} else if i > hi {
			i = hi
		}
		return i
	}
	var out []int
	if step > 0 {
		s := norm(start, 0, hasStart, 0, n)
		e := norm(stop, n, hasStop, 0, n)
		for i := s; i < e; i += step {
			out = append(out, i)
		}
	} else {
		s := norm(start, n-1, hasStart, -1, n-1)
		e := norm(stop, -1, hasStop, -1, n-1)
		for i := s; i > e; i += step {
			out = append(out, i)
		}
	}
	return out
}

func negate(v any, plus bool) (any, error) {
	switch x := v.(type) {
	case bool:
		i := 0
		if x {
			i = 1
		}
		if plus {
			return i, nil
		}
		return -i, nil
	case int:
		if plus {
			return x, nil
		}
		return -x, nil
	case float64:
		if plus {
			return x, nil
		}
		return -x, nil
	}
	op := "-"
	if plus {
		op = "+"
	}
	return nil, typeErrorf("bad operand type for unary %s: '%s'", op, value.TypeName(v))
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
		ok, err := compare(op, l, r)
		if err != nil {
			return nil, err
		}
		if !ok {
			return false, nil
		}
		l = r
	}
	return true, nil
}

func compare(op string, l, r any) (bool, error) {
	switch op {
	case "==":
		return value.Equal(l, r), nil
	case "!=":
		return !value.Equal(l, r), nil
	case "in":
		return contains(r, l)
	case "not in":
		ok, err := contains(r, l)
		return !ok, err
	}
	n, err := value.Compare(l, r)
	if dl, ok := l.(*pyDatetime); ok {
		if dr, ok := r.(*pyDatetime); ok {
			n, err = dl.t.Compare(dr.t), nil
		}
	}
	if tl, ok := l.(*pyTimedelta); ok {
		if tr, ok := r.(*pyTimedelta); ok {
			n, err = cmpInt64(tl.us, tr.us), nil
		}
	}
	if err != nil {
		return false, typeErrorf("'%s' not supported between instances of '%s' and '%s'", op, value.TypeName(l), value.TypeName(r))
	}
	switch op {
	case "<":
		return n < 0, nil
	case "<=":
		return n <= 0, nil
	case ">":
		return n > 0, nil
	case ">=":
		return n >= 0, nil
	}
	return false, nil
}

// contains implements Python's `needle in haystack`.
func contains(haystack, needle any) (bool, error) {
	switch h := haystack.(type) {
	case string:
		s, ok := needle.(string)
		if !ok {
			return false, typeErrorf("'in <string>' requires string as left operand, not %s", value.TypeName(needle))
		}
		return strings.Contains(h, s), nil
	case []any:
		for _, e := range h {
			if value.Equal(e, needle) {
				return true, nil
			}
		}
		return false, nil
	case value.Tuple:
		return contains([]any(h), needle)
	case *value.Dict:
		s, ok := needle.(string)
		return ok && h.Has(s), nil
	case *rangeVal:
		return contains(h.list(), needle)
	}
	return false, typeErrorf("argument of type '%s' is not iterable", value.TypeName(haystack))
}

// binaryOp implements Python's arithmetic operators and Jinja's ~.
func binaryOp(op string, l, r any) (any, error) {
	if op == "~" {
		return value.Str(l) + value.Str(r), nil
	}
	if res, ok, err := pyObjBinary(op, l, r); ok {
		return res, err
	}
	if res, ok, err := intArith(op, l, r); ok {
		return res, err
	}
	li, lInt := intOnly(l)
	ri, rInt := intOnly(r)
	lf, lNum := value.AsFloat(l)
	rf, rNum := value.AsFloat(r)
	switch op {
	case "+":
		switch {
		case lInt && rInt:
			return li + ri, nil
		case lNum && rNum:
			return lf + rf, nil
		}
		switch x := l.(type) {
		case string:
			if y, ok := r.(string); ok {
				return x + y, nil
			}
			return nil, typeErrorf(`can only concatenate str (not "%s") to str`, value.TypeName(r))
		case []any:
			if y, ok := r.([]any); ok {
				out := make([]any, 0, len(x)+len(y))
				return append(append(out, x...), y...), nil
			}
			return nil, typeErrorf(`can only concatenate list (not "%s") to list`, value.TypeName(r))
		case value.Tuple:
			if y, ok := r.(value.Tuple); ok {
				out := make(value.Tuple, 0, len(x)+len(y))
				return append(append(out, x...), y...), nil
			}
		}
	case "-":
		switch {
		case lInt && rInt:
			return li - ri, nil
		case lNum && rNum:
			return lf - rf, nil
		}
	case "*":
		switch {
		case lInt && rInt:
			return li * ri, nil
		case lNum && rNum:
			return lf * rf, nil
		case rInt:
			return repeatSeq(l, ri, op, r)
		case lInt:
			return repeatSeq(r, li, op, l)
		}
	case "/":
		if lNum && rNum {
			if rf == 0 {
				return nil, typeErrorf("division by zero")
			}
			return lf / rf, nil
		}
	case "//":
		if lNum && rNum {
			if rf == 0 {
				return nil, typeErrorf("integer division or modulo by zero")
			}
			if lInt && rInt {
				return floorDiv(li, ri), nil
			}
			return math.Floor(lf / rf), nil
		}
	case "%":
		if s, ok := l.(string); ok {
			return percentFormat(s, r)
		}
		if lNum && rNum {
			if rf == 0 {
				return nil, typeErrorf("integer modulo by zero")
			}
			if lInt && rInt {
				return li - floorDiv(li, ri)*ri, nil
			}
			m := math.Mod(lf, rf)
			if m != 0 && (m < 0) != (rf < 0) {
				m += rf
			}
			return m, nil
		}
	case "**":
		if lInt && rInt && ri >= 0 {
			res := 1
			for i := 0; i < ri; i++ {
				res *= li
			}
			return res, nil
		}
		if lNum && rNum {
			return math.Pow(lf, rf), nil
		}
	}
	return nil, typeErrorf("unsupported operand type(s) for %s: '%s' and '%s'", op, value.TypeName(l), value.TypeName(r))
}

func intOnly(v any) (int, bool) {
	if _, isFloat := v.(float64); isFloat {
		return 0, false
	}
	return value.AsInt(v)
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func repeatSeq(seq any, n int, op string, other any) (any, error) {
	if n < 0 {
		n = 0
	}
	switch s := seq.(type) {
	case string:
		return strings.Repeat(s, n), nil
	case []any:
		out := make([]any, 0, len(s)*n)
		for i := 0; i < n; i++ {
			out = append(out, s...)
		}
		return out, nil
	}
	return nil, typeErrorf("unsupported operand type(s) for %s: '%s' and '%s'", op, value.TypeName(seq), value.TypeName(other))
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// intArith implements Python's unbounded integer arithmetic for + - * // %
// and **: results that do not fit 64 bits become *big.Int. ok is false
// unless both operands are integral (bool, int, *big.Int).
func intArith(op string, l, r any) (any, bool, error) {
	switch op {
	case "+", "-", "*", "//", "%", "**":
	default:
		return nil, false, nil
	}
	_, lf := l.(float64)
	_, rf := r.(float64)
	if lf || rf {
		return nil, false, nil
	}
	x, xok := value.AsInt(l)
	y, yok := value.AsInt(r)
	if xok && yok {
		switch op {
		case "+":
			if s := x + y; (s > x) == (y > 0) {
				return s, true, nil
			}
		case "-":
			if d := x - y; (d < x) == (y > 0) {
				return d, true, nil
			}
		case "*":
			if hi, lo := bits.Mul64(uint64(absInt(x)), uint64(absInt(y))); hi == 0 && lo < 1<<63 {
				return x * y, true, nil
			}
		case "//", "%":
			return nil, false, nil // no overflow but the minimum int // -1
		case "**":
			if y < 0 {
				return nil, false, nil // a float result
			}
		}
	}
	a, aok := value.AsBig(l)
	b, bok := value.AsBig(r)
	if !aok || !bok {
		return nil, false, nil
	}
	z := new(big.Int)
	switch op {
	case "+":
		z.Add(a, b)
	case "-":
		z.Sub(a, b)
	case "*":
		z.Mul(a, b)
	case "**":
		if b.Sign() < 0 {
			return nil, false, nil
		}
		if b.BitLen() > 20 || a.BitLen()*int(b.Int64()) > 1<<20 {
			return nil, true, typeErrorf("exponent too large")
		}
		z.Exp(a, b, nil)
	case "//", "%":
		if b.Sign() == 0 {
			return nil, true, typeErrorf("integer division or modulo by zero")
		}
		q, m := new(big.Int).QuoRem(a, b, new(big.Int))
		if m.Sign() != 0 && (m.Sign() < 0) != (b.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
			m.Add(m, b)
		}
		if op == "//" {
			z = q
		} else {
			z = m
		}
	}
	return value.NormInt(z), true, nil
}
