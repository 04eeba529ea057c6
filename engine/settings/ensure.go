// Package settings holds ansible-core's configuration as cfzt-runner reads
// it: the ansible.cfg INI file, the definitions of the core settings the
// config lookup can show, and the type conversion every setting and
// plugin option goes through (ensure_type).
package settings

import (
	"fmt"
	"os"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// TypeError is the ValueError of ensure_type: a value the setting's type
// does not accept.
type TypeError struct {
	Type  string
	Value any
}

func (e *TypeError) Error() string {
	return fmt.Sprintf("Invalid value provided for %s: %s", value.Repr(e.Type), value.Repr(e.Value))
}

// EnsureType converts v to a setting's or option's declared type as
// ansible-core's ensure_type does: lenient booleans, integers from numbers
// or numeric strings without a fraction, comma-separated lists, resolved
// paths (relative ones against base, when it is set), and strings from
// scalars. Unknown types (raw, none given) pass the value through.
func EnsureType(v any, typ, base string) (any, error) {
	switch strings.ToLower(typ) {
	case "boolean", "bool":
		b, _ := py.LenientBoolean(v)
		return b, nil
	case "integer", "int":
		if n, ok := toInt(v); ok {
			return n, nil
		}
	case "float":
		switch x := v.(type) {
		case float64:
			return x, nil
		case int, bool, string:
			if f, err := py.Float(x); err == nil {
				return f, nil
			}
		}
	case "list":
		switch x := v.(type) {
		case []any:
			return x, nil
		case value.Tuple:
			return []any(x), nil
		case string:
			var out []any
			for _, s := range strings.Split(x, ",") {
				out = append(out, Unquote(strings.TrimSpace(s)))
			}
			return out, nil
		}
	case "none":
		if v == "None" {
			return nil, nil
		}
	case "path", "tmppath", "temppath", "tmp":
		if s, ok := v.(string); ok {
			return ResolvePath(s, base), nil
		}
	case "pathspec", "pathlist":
		if l, ok := pathList(v, typ); ok {
			out := make([]any, len(l))
			for i, s := range l {
				out[i] = ResolvePath(s, base)
			}
			return out, nil
		}
	case "dictionary", "dict":
		if d, ok := v.(*value.Dict); ok {
			return d, nil
		}
	case "string", "str":
		switch v.(type) {
		case string:
			return v, nil
		case bool, int, float64:
			return value.Str(v), nil
		}
	default:
		return v, nil
	}
	return nil, &TypeError{Type: typ, Value: v}
}

// toInt accepts an int (or bool), or a float or numeric string whose
// fractional part is zero.
func toInt(v any) (int, bool) {
	if n, ok := value.AsInt(v); ok {
		return n, true
	}
	switch x := v.(type) {
	case float64:
		if x == float64(int(x)) {
			return int(x), true
		}
	case string:
		s := strings.TrimSpace(x)
		if n, ok := py.ParseInt(s, 10); ok {
			return n, true
		}
		if f, ok := py.ParseFloat(s); ok && f == float64(int(f)) && !strings.ContainsAny(strings.ToLower(s), "ni") {
			return int(f), true
		}
	}
	return 0, false
}

// pathList splits a pathspec (on ':') or a pathlist (on ',', stripped);
// a list must hold only strings.
func pathList(v any, typ string) ([]string, bool) {
	switch x := v.(type) {
	case string:
		if strings.ToLower(typ) == "pathspec" {
			return strings.Split(x, string(os.PathListSeparator)), true
		}
		parts := strings.Split(x, ",")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		return parts, true
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

// Unquote strips one pair of matching quotes, as ansible-core's unquote.
func Unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// ResolvePath is ansible-core's resolve_path: {{CWD}} becomes the working
// directory, environment variables and ~ are expanded, and a relative path
// is taken from base (the working directory when base is empty).
func ResolvePath(p, base string) string {
	wd, _ := os.Getwd()
	p = strings.ReplaceAll(p, "{{CWD}}", wd)
	p = py.ExpandUser(py.ExpandVars(p, os.LookupEnv), os.LookupEnv)
	if !strings.HasPrefix(p, "/") {
		if base == "" {
			base = wd
		}
		p = base + "/" + p
	}
	return py.Normpath(p)
}
