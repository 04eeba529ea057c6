package value

import (
	"fmt"
	"math"
	"math/big"
	"strings"
)

// Truthy reports Python truthiness.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case int:
		return x != 0
	case int64:
		return x != 0
	case float64:
		return x != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case Tuple:
		return len(x) > 0
	case *Dict:
		return x.Len() > 0
	case *big.Int:
		return x.Sign() != 0
	case Undefined:
		return false
	}
	return true
}

// TypeName returns the Python type name of v, as used in Ansible messages.
func TypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int, int64, *big.Int:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case []any:
		return "list"
	case Tuple:
		return "tuple"
	case *Dict:
		if x.pyType != "" {
			return x.pyType
		}
		return "dict"
	case Undefined:
		return "AnsibleUndefined"
	case Omit:
		return "_OmitType"
	case PyTyper:
		return x.PyType()
	}
	return fmt.Sprintf("%T", v)
}

// PyTyper is implemented by values of other packages that stand for a
// Python type, to give TypeName its name.
type PyTyper interface{ PyType() string }

// AsFloat converts a number (bool, int or float) to float64.
func AsFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case *big.Int:
		return bigFloat(x), true
	}
	return 0, false
}

// AsInt converts an integral value (bool or int) to int.
func AsInt(v any) (int, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case int:
		return x, true
	case int64:
		return int(x), true
	}
	return 0, false
}

// IsNumber reports whether v is a bool, int or float (Python numbers).
func IsNumber(v any) bool {
	_, ok := AsFloat(v)
	return ok
}

// Equal implements Python ==, where 1 == 1.0 == True.
func Equal(a, b any) bool {
	if c, ok := compareInts(a, b); ok {
		return c == 0
	}
	if af, ok := AsFloat(a); ok {
		if bf, ok := AsFloat(b); ok {
			return af == bf
		}
		return false
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		return ok && listEqual(x, y)
	case Tuple:
		y, ok := b.(Tuple)
		return ok && listEqual(x, y)
	case *Dict:
		y, ok := b.(*Dict)
		if !ok || x.Len() != y.Len() {
			return false
		}
		eq := true
		x.Each(func(k string, v any) bool {
			w, ok := y.Get(k)
			eq = ok && Equal(v, w)
			return eq
		})
		return eq
	case Omit:
		_, ok := b.(Omit)
		return ok
	}
	return false
}

func listEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// Compare orders a and b as Python's < does, or fails with Python's
// TypeError wording when the types cannot be ordered.
func Compare(a, b any) (int, error) {
	if c, ok := compareInts(a, b); ok {
		return c, nil
	}
	if af, ok := AsFloat(a); ok {
		if bf, ok := AsFloat(b); ok {
			switch {
			case af < bf:
				return -1, nil
			case af > bf:
				return 1, nil
			}
			return 0, nil
		}
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), nil
		}
	case []any:
		if y, ok := b.([]any); ok {
			return compareLists(x, y)
		}
	case Tuple:
		if y, ok := b.(Tuple); ok {
			return compareLists(x, y)
		}
	}
	return 0, fmt.Errorf("'<' not supported between instances of '%s' and '%s'", TypeName(a), TypeName(b))
}

func compareLists(a, b []any) (int, error) {
	for i := 0; i < len(a) && i < len(b); i++ {
		if Equal(a[i], b[i]) {
			continue
		}
		return Compare(a[i], b[i])
	}
	switch {
	case len(a) < len(b):
		return -1, nil
	case len(a) > len(b):
		return 1, nil
	}
	return 0, nil
}

// IsIntegral reports whether f has no fractional part and fits an int.
func IsIntegral(f float64) bool {
	return f == math.Trunc(f) && math.Abs(f) < 1<<62
}
