package argspec

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Type names a type checker of ansible-core's DEFAULT_TYPE_VALIDATORS, or
// one of the private checkers action plugins use.
type Type string

// The types an argument spec may name.
const (
	Str   Type = "str"
	Bool  Type = "bool"
	Int   Type = "int"
	Float Type = "float"
	List  Type = "list"
	Dict  Type = "dict"
	Path  Type = "path"
	Raw   Type = "raw"
	// JSONArg serialises lists and dicts to JSON and strips strings.
	JSONArg Type = "jsonarg"
	Bytes   Type = "bytes"
	Bits    Type = "bits"
	// StrNoConversion accepts only strings (_check_type_str_no_conversion).
	StrNoConversion Type = "_check_type_str_no_conversion"
	// ListStrict wraps a non-list in a list (_check_type_list_strict).
	ListStrict Type = "_check_type_list_strict"
	// PyInt is Python's int() used as a type (the pause action).
	PyInt Type = "int()"
)

// displayName is the type's name in "unable to convert to X" messages.
func (t Type) displayName() string {
	switch t {
	case "":
		return "str"
	case PyInt:
		return "int"
	case "json":
		return "jsonarg"
	}
	return string(t)
}

// Convert checks or converts a value as the type's checker does; the
// error is the checker's own message.
func Convert(t Type, v any) (any, error) {
	switch t {
	case "", Str:
		return checkStr(v, true)
	case StrNoConversion:
		return checkStr(v, false)
	case Bool:
		return checkBool(v)
	case Int:
		return checkInt(v)
	case PyInt:
		return py.Int(v)
	case Float:
		return checkFloat(v)
	case List:
		return checkList(v)
	case ListStrict:
		if l, ok := v.([]any); ok {
			return l, nil
		}
		return []any{v}, nil
	case Dict:
		return checkDict(v)
	case Path:
		s, err := checkStr(v, true)
		if err != nil {
			return nil, err
		}
		return ExpandPath(s.(string)), nil
	case Raw:
		return v, nil
	case JSONArg, "json":
		return checkJSONArg(v)
	case Bytes:
		return checkHuman(v, false)
	case Bits:
		return checkHuman(v, true)
	}
	return nil, fmt.Errorf("internal error: unknown argument type %q", string(t))
}

// classRepr is Python's repr of type(v), as "<class 'str'>".
func classRepr(v any) string { return py.ClassRepr(value.TypeName(v)) }

func checkStr(v any, convert bool) (any, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case nil:
		return "", nil
	}
	if convert {
		return value.Str(v), nil
	}
	return nil, fmt.Errorf("'%s' is not a string and conversion is not allowed", value.Repr(v))
}

// Boolean is ansible-core's strict boolean() (engine/py's).
func Boolean(v any) (bool, error) { return py.Boolean(v) }

// LenientBoolean is boolean(v, strict=False) with a flag saying whether v
// was one of the recognised values.
func LenientBoolean(v any) (bool, bool) { return py.LenientBoolean(v) }

func checkBool(v any) (any, error) {
	switch v.(type) {
	case bool:
		return v, nil
	case string, int, float64, *big.Int:
		return Boolean(v)
	}
	return nil, fmt.Errorf("%s cannot be converted to a bool", classRepr(v))
}

// decimalRe is the grammar Python's Decimal() and float() accept for
// finite numbers.
var decimalRe = regexp.MustCompile(`^[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$`)

// checkInt is check_type_int: ints (and bools) pass, strings and floats
// convert through Decimal when they have no fractional part.
func checkInt(v any) (any, error) {
	switch x := v.(type) {
	case int, bool, *big.Int:
		return v, nil
	case float64:
		if !math.IsInf(x, 0) && !math.IsNaN(x) && x == math.Trunc(x) {
			r, _ := new(big.Rat).SetString(strconv.FormatFloat(x, 'f', -1, 64))
			return value.NormInt(r.Num()), nil
		}
	case string:
		s := strings.TrimSpace(x)
		if decimalRe.MatchString(s) {
			if r, ok := new(big.Rat).SetString(strings.ReplaceAll(s, "_", "")); ok && r.IsInt() {
				return value.NormInt(new(big.Int).Set(r.Num())), nil
			}
		}
	}
	return nil, fmt.Errorf("\"%s\" cannot be converted to an int", value.Repr(v))
}

func checkFloat(v any) (any, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	case bool:
		if x {
			return 1.0, nil
		}
		return 0.0, nil
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f, nil
	case string:
		s := strings.TrimSpace(x)
		switch strings.ToLower(strings.TrimLeft(s, "+-")) {
		case "inf", "infinity":
			if strings.HasPrefix(s, "-") {
				return math.Inf(-1), nil
			}
			return math.Inf(1), nil
		case "nan":
			return math.NaN(), nil
		}
		if decimalRe.MatchString(s) {
			if f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64); err == nil {
				return f, nil
			}
		}
	}
	return nil, fmt.Errorf("%s cannot be converted to a float", classRepr(v))
}

func checkList(v any) (any, error) {
	switch x := v.(type) {
	case []any:
		return x, nil
	case string:
		parts := strings.Split(x, ",")
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out, nil
	case int, float64, bool, *big.Int:
		return []any{value.Str(x)}, nil
	}
	return nil, fmt.Errorf("%s cannot be converted to a list", classRepr(v))
}

// checkDict is check_type_dict: dicts pass; a string is read as JSON when
// it starts with "{", else as k=v pairs separated by commas or spaces.
func checkDict(v any) (any, error) {
	switch x := v.(type) {
	case *value.Dict:
		return x, nil
	case string:
		if strings.HasPrefix(x, "{") {
			if d, err := value.DecodeJSON([]byte(x)); err == nil {
				if dd, ok := d.(*value.Dict); ok {
					return dd, nil
				}
				return d, nil
			}
			return nil, errors.New("unable to evaluate string as dictionary")
		}
		if strings.Contains(x, "=") {
			return parseKeyValues(x)
		}
		return nil, errors.New("dictionary requested, could not parse JSON or key=value")
	}
	return nil, fmt.Errorf("%s cannot be converted to a dict", classRepr(v))
}

// parseKeyValues splits "k1=v1, k2='v 2'" into a dict: fields end at a
// comma or space outside quotes, and a backslash escapes one character.
func parseKeyValues(s string) (any, error) {
	var fields []string
	var buf strings.Builder
	var quote rune
	escaped := false
	flush := func() {
		if buf.Len() > 0 {
			fields = append(fields, buf.String())
			buf.Reset()
		}
	}
	for _, c := range strings.TrimSpace(s) {
		switch {
		case escaped:
			buf.WriteRune(c)
			escaped = false
		case c == '\\':
			escaped = true
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == ',' || c == ' '):
			flush()
		default:
			buf.WriteRune(c)
		}
	}
	flush()
	d := value.NewDict(len(fields))
	for _, f := range fields {
		k, val, ok := strings.Cut(f, "=")
		if !ok {
			return nil, errors.New(`unable to evaluate string in the "key=value" format as dictionary`)
		}
		d.Set(k, val)
	}
	return d, nil
}

func checkJSONArg(v any) (any, error) {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x), nil
	case []any, *value.Dict:
		return value.JSON(x, value.JSONOptions{EnsureASCII: true}), nil
	}
	return nil, fmt.Errorf("%s cannot be converted to a json string", classRepr(v))
}

func checkHuman(v any, bits bool) (any, error) {
	n, err := py.HumanToBytes(value.Str(v), "", bits)
	if err != nil {
		kind := "Byte"
		if bits {
			kind = "Bit"
		}
		return nil, fmt.Errorf("%s cannot be converted to a %s value", classRepr(v), kind)
	}
	return n, nil
}

// ExpandPath applies os.path.expanduser and os.path.expandvars, as the
// path type does.
func ExpandPath(s string) string {
	return py.ExpandUser(py.ExpandVars(s, os.LookupEnv), os.LookupEnv)
}

// lookupEnv is os.LookupEnv, a variable so tests can replace it.
var lookupEnv = os.LookupEnv
