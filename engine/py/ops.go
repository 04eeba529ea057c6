package py

import (
	"cmp"
	"math"
	"math/big"
	"math/bits"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// BinaryOp implements Python's arithmetic operators and Jinja's ~.
func BinaryOp(op string, l, r any) (any, error) {
	if op == "~" {
		ls, rs := value.Str(l), value.Str(r)
		if len(ls)+len(rs) > MaxStrLen {
			return nil, MemoryError()
		}
		return ls + rs, nil
	}
	if res, ok, err := datetimeBinary(op, l, r); ok {
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
				if len(x)+len(y) > MaxStrLen {
					return nil, MemoryError()
				}
				return x + y, nil
			}
			return nil, Errorf(`can only concatenate str (not "%s") to str`, value.TypeName(r))
		case []any:
			if y, ok := r.([]any); ok {
				if len(x)+len(y) > MaxListLen {
					return nil, MemoryError()
				}
				out := make([]any, 0, len(x)+len(y))
				return append(append(out, x...), y...), nil
			}
			return nil, Errorf(`can only concatenate list (not "%s") to list`, value.TypeName(r))
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
				return nil, Errorf("division by zero")
			}
			return lf / rf, nil
		}
	case "//":
		if lNum && rNum {
			if rf == 0 {
				return nil, Errorf("integer division or modulo by zero")
			}
			if lInt && rInt {
				return FloorDiv(li, ri), nil
			}
			return math.Floor(lf / rf), nil
		}
	case "%":
		if s, ok := l.(string); ok {
			return Percent(s, r)
		}
		if lNum && rNum {
			if rf == 0 {
				return nil, Errorf("integer modulo by zero")
			}
			if lInt && rInt {
				return li - FloorDiv(li, ri)*ri, nil
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
	return nil, Errorf("unsupported operand type(s) for %s: '%s' and '%s'", op, value.TypeName(l), value.TypeName(r))
}

func repeatSeq(seq any, n int, op string, other any) (any, error) {
	if n < 0 {
		n = 0
	}
	switch s := seq.(type) {
	case string:
		if n > 0 && len(s) > MaxStrLen/n {
			return nil, MemoryError()
		}
		return strings.Repeat(s, n), nil
	case []any:
		if n > 0 && len(s) > MaxListLen/n {
			return nil, MemoryError()
		}
		out := make([]any, 0, len(s)*n)
		for i := 0; i < n; i++ {
			out = append(out, s...)
		}
		return out, nil
	}
	return nil, Errorf("unsupported operand type(s) for %s: '%s' and '%s'", op, value.TypeName(seq), value.TypeName(other))
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
			return nil, true, Errorf("exponent too large")
		}
		z.Exp(a, b, nil)
	case "//", "%":
		if b.Sign() == 0 {
			return nil, true, Errorf("integer division or modulo by zero")
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

// Negate is Python's unary -v, or +v with plus.
func Negate(v any, plus bool) (any, error) {
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
	return nil, Errorf("bad operand type for unary %s: '%s'", op, value.TypeName(v))
}

// Compare is Python's comparison l op r for ==, !=, <, <=, >, >=, in and
// not in.
func Compare(op string, l, r any) (bool, error) {
	switch op {
	case "==":
		return value.Equal(l, r), nil
	case "!=":
		return !value.Equal(l, r), nil
	case "in":
		return Contains(r, l)
	case "not in":
		ok, err := Contains(r, l)
		return !ok, err
	}
	n, err := value.Compare(l, r)
	if dl, ok := l.(*Datetime); ok {
		if dr, ok := r.(*Datetime); ok {
			n, err = dl.Time.Compare(dr.Time), nil
		}
	}
	if tl, ok := l.(*Timedelta); ok {
		if tr, ok := r.(*Timedelta); ok {
			n, err = cmp.Compare(tl.Micros, tr.Micros), nil
		}
	}
	if err != nil {
		return false, Errorf("'%s' not supported between instances of '%s' and '%s'", op, value.TypeName(l), value.TypeName(r))
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

// Contains implements Python's `needle in haystack`.
func Contains(haystack, needle any) (bool, error) {
	switch h := haystack.(type) {
	case string:
		s, ok := needle.(string)
		if !ok {
			return false, Errorf("'in <string>' requires string as left operand, not %s", value.TypeName(needle))
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
		return Contains([]any(h), needle)
	case *value.Dict:
		s, ok := needle.(string)
		return ok && h.Has(s), nil
	case *Range:
		items, err := h.Items()
		if err != nil {
			return false, err
		}
		return Contains(items, needle)
	}
	return false, Errorf("argument of type '%s' is not iterable", value.TypeName(haystack))
}

// SliceIndices computes the indices Python's seq[start:stop:step] selects.
func SliceIndices(n, start, stop, step int, hasStart, hasStop bool) []int {
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

// SliceIndex converts a slice bound: None is absent (nil), anything else
// must be an integer.
func SliceIndex(v any) (*int, error) {
	if v == nil {
		return nil, nil
	}
	i, ok := value.AsInt(v)
	if !ok {
		return nil, Errorf("slice indices must be integers or None or have an __index__ method")
	}
	return &i, nil
}

// Slice is obj[start:stop:step] for a list, tuple or str; a nil bound is
// absent.
func Slice(obj any, startAt, stopAt, stepBy *int) (any, error) {
	var start, stop int
	step := 1
	hasStart, hasStop := startAt != nil, stopAt != nil
	if hasStart {
		start = *startAt
	}
	if hasStop {
		stop = *stopAt
	}
	if stepBy != nil {
		step = *stepBy
	}
	if step == 0 {
		return nil, Errorf("slice step cannot be zero")
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
		return nil, Errorf("'%s' object is not subscriptable", value.TypeName(obj))
	}
	n := len(items)
	if runes != nil || obj == "" {
		n = len(runes)
	}
	idx := SliceIndices(n, start, stop, step, hasStart, hasStop)
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
