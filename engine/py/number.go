package py

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Index converts an argument that Python would use as an index, as
// operator.index does.
func Index(v any) (int, error) {
	if i, ok := value.AsInt(v); ok {
		return i, nil
	}
	return 0, Errorf("'%s' object cannot be interpreted as an integer", value.TypeName(v))
}

// ParseFloat implements float(str).
func ParseFloat(s string) (float64, bool) {
	t := strings.TrimFunc(s, IsSpace)
	if t == "" {
		return 0, false
	}
	low := strings.ToLower(strings.TrimLeft(t, "+-"))
	switch low {
	case "inf", "infinity", "nan":
		f, _ := strconv.ParseFloat(strings.Replace(t, "infinity", "inf", 1), 64)
		if low == "nan" {
			return math.NaN(), true
		}
		if strings.HasPrefix(t, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), f == f
	}
	if strings.Contains(t, "_") {
		if !validUnderscores(t) {
			return 0, false
		}
		t = strings.ReplaceAll(t, "_", "")
	}
	for _, r := range t {
		if !strings.ContainsRune("0123456789+-.eE", r) {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// validUnderscores checks that underscores only separate digits.
func validUnderscores(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '_' {
			if i == 0 || i == len(s)-1 || !isHexDigit(s[i-1]) || !isHexDigit(s[i+1]) {
				return false
			}
		}
	}
	return true
}

func isHexDigit(b byte) bool {
	return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F')
}

// ParseInt implements int(str, base).
func ParseInt(s string, base int) (int, bool) {
	t := strings.TrimFunc(s, IsSpace)
	neg := false
	if strings.HasPrefix(t, "+") || strings.HasPrefix(t, "-") {
		neg = t[0] == '-'
		t = t[1:]
	}
	lt := strings.ToLower(t)
	prefixed := false
	switch {
	case (base == 16 || base == 0) && strings.HasPrefix(lt, "0x"):
		base, t, prefixed = 16, t[2:], true
	case (base == 8 || base == 0) && strings.HasPrefix(lt, "0o"):
		base, t, prefixed = 8, t[2:], true
	case (base == 2 || base == 0) && strings.HasPrefix(lt, "0b"):
		base, t, prefixed = 2, t[2:], true
	case base == 0:
		base = 10
		if len(t) > 1 && strings.Trim(t, "0_") != "" && t[0] == '0' {
			return 0, false
		}
	}
	if prefixed && strings.HasPrefix(t, "_") {
		t = t[1:]
	}
	if t == "" || t[0] == '+' || t[0] == '-' || !validUnderscores(t) {
		return 0, false // strconv would take a second sign
	}
	t = strings.ReplaceAll(t, "_", "")
	n, err := strconv.ParseInt(t, base, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return int(n), true
}

// Float is Python's float(v), failing as it does.
func Float(v any) (float64, error) {
	switch x := v.(type) {
	case string:
		f, ok := ParseFloat(x)
		if !ok {
			return 0, Errorf("could not convert string to float: %s", value.Repr(x))
		}
		return f, nil
	default:
		if f, ok := value.AsFloat(v); ok {
			return f, nil
		}
	}
	return 0, Errorf("float() argument must be a string or a real number, not '%s'", value.TypeName(v))
}

// FloatToInt is Python's int(float): truncation, unbounded.
func FloatToInt(f float64) any {
	if math.Abs(f) < 1<<62 {
		return int(f)
	}
	b, _ := big.NewFloat(math.Trunc(f)).Int(nil)
	return value.NormInt(b)
}

// RoundFloat is Python's round(x, ndigits) for floats: the exact binary
// value rounded half-even at the decimal position.
func RoundFloat(x float64, nd int) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) || x == 0 {
		return x
	}
	if nd > 320 {
		return x
	}
	r := new(big.Rat).SetFloat64(x)
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(absInt(nd))), nil))
	if nd >= 0 {
		r.Mul(r, scale)
	} else {
		r.Quo(r, scale)
	}
	n := roundHalfEven(r)
	res := new(big.Rat).SetInt(n)
	if nd >= 0 {
		res.Quo(res, scale)
	} else {
		res.Mul(res, scale)
	}
	f, _ := res.Float64()
	if f == 0 && math.Signbit(x) {
		return math.Copysign(0, -1)
	}
	return f
}

func absInt(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

func roundHalfEven(r *big.Rat) *big.Int {
	num, den := r.Num(), r.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	// q truncates toward zero; m has num's sign.
	twice := new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2))
	switch twice.Cmp(den) {
	case 1:
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	case 0:
		if q.Bit(0) == 1 {
			if num.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	return q
}

// RoundInt is Python's round(x, ndigits) for an int: exact, half to even.
func RoundInt(x, nd int) int {
	if nd >= 0 {
		return x
	}
	r := new(big.Rat).SetFrac(big.NewInt(int64(x)), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-nd)), nil))
	n := roundHalfEven(r)
	n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-nd)), nil))
	return int(n.Int64())
}

// IsDigits reports whether s is non-empty and all ASCII digits.
func IsDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func intOnly(v any) (int, bool) {
	if _, isFloat := v.(float64); isFloat {
		return 0, false
	}
	return value.AsInt(v)
}

// FloorDiv is Python's a // b for ints: the quotient rounded down.
func FloorDiv(a, b int) int { return floorDiv(a, b) }

func floorDiv[T int | int64](a, b T) T {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// Int is Python's int(v) for one argument: a bool is 0 or 1, a float is
// truncated, a string is parsed in base 10.
func Int(v any) (any, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case int, int64, *big.Int:
		return v, nil
	case float64:
		switch {
		case math.IsInf(x, 0):
			return nil, Errorf("cannot convert float infinity to integer")
		case math.IsNaN(x):
			return nil, Errorf("cannot convert float NaN to integer")
		}
		return FloatToInt(x), nil
	case string:
		if n, ok := ParseInt(x, 10); ok {
			return n, nil
		}
		if n, ok := parseBigInt(x); ok {
			return n, nil
		}
		return nil, Errorf("invalid literal for int() with base 10: %s", value.Repr(x))
	}
	return nil, Errorf("int() argument must be a string, a bytes-like object or a real number, not '%s'", value.TypeName(v))
}

// parseBigInt is int(s) for a base-10 literal too large for an int.
func parseBigInt(s string) (any, bool) {
	t := strings.TrimFunc(s, IsSpace)
	digits := strings.TrimLeft(t, "+-")
	if len(t)-len(digits) > 1 || digits == "" || !validUnderscores(digits) || !IsDigits(strings.ReplaceAll(digits, "_", "")) {
		return nil, false
	}
	n, ok := new(big.Int).SetString(strings.ReplaceAll(t, "_", ""), 10)
	if !ok {
		return nil, false
	}
	return value.NormInt(n), true
}
