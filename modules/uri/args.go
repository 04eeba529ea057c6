package uri

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// param describes one module argument the way AnsibleModule's
// argument_spec does: its type, default, choices and aliases.
type param struct {
	name     string
	typ      string // str, bool, int, list, dict, path, raw
	elements string // element type of a list
	def      any
	required bool
	choices  []string
	aliases  []string
}

// spec is a module's argument specification.
type spec struct {
	module string
	params []param
	// extra are accepted names the module ignores (file attributes).
	extra []string
	// exclusive lists groups of mutually exclusive arguments.
	exclusive [][]string
}

// argError is an argument validation failure; its text is the task's msg.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

// validate checks args against s and returns the values by canonical name,
// with defaults filled in, converted as AnsibleModule converts them.
func (s *spec) validate(args *value.Dict) (map[string]any, error) {
	byName := map[string]*param{}
	for i := range s.params {
		p := &s.params[i]
		byName[p.name] = p
		for _, a := range p.aliases {
			byName[a] = p
		}
	}
	for _, e := range s.extra {
		byName[e] = nil
	}
	var unknown []string
	args.Each(func(k string, _ any) bool {
		if _, ok := byName[k]; !ok && !strings.HasPrefix(k, "_ansible") {
			unknown = append(unknown, k)
		}
		return true
	})
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, &argError{fmt.Sprintf("Unsupported parameters for (%s) module: %s. Supported parameters include: %s.",
			s.module, strings.Join(unknown, ", "), s.supported())}
	}
	for _, group := range s.exclusive {
		n := 0
		for _, k := range group {
			if v, ok := args.Get(k); ok && v != nil {
				n++
			}
		}
		if n > 1 {
			return nil, &argError{"parameters are mutually exclusive: " + strings.Join(group, "|")}
		}
	}
	out := map[string]any{}
	var missing []string
	for i := range s.params {
		p := &s.params[i]
		v, ok := args.Get(p.name)
		if !ok {
			for _, a := range p.aliases {
				if v, ok = args.Get(a); ok {
					break
				}
			}
		}
		if !ok || v == nil {
			if p.required {
				missing = append(missing, p.name)
				continue
			}
			out[p.name] = p.def
			continue
		}
		cv, err := convert(p.typ, v)
		if err != nil {
			return nil, &argError{fmt.Sprintf("argument '%s' is of type %s and we were unable to convert to %s: %s", p.name, pyType(v), p.typ, err)}
		}
		if p.typ == "list" && p.elements != "" {
			list := cv.([]any)
			for j, e := range list {
				ce, err := convert(p.elements, e)
				if err != nil {
					return nil, &argError{fmt.Sprintf("Elements value for option '%s' is of type %s and we were unable to convert to %s: %s", p.name, pyType(e), p.elements, err)}
				}
				list[j] = ce
			}
		}
		if len(p.choices) > 0 {
			found := false
			for _, c := range p.choices {
				if value.Str(cv) == c {
					found = true
				}
			}
			if !found {
				return nil, &argError{fmt.Sprintf("value of %s must be one of: %s, got: %s", p.name, strings.Join(p.choices, ", "), value.Str(cv))}
			}
		}
		out[p.name] = cv
	}
	if len(missing) > 0 {
		return nil, &argError{"missing required arguments: " + strings.Join(missing, ", ")}
	}
	return out, nil
}

// supported renders the "Supported parameters include" list.
func (s *spec) supported() string {
	var names, aliases []string
	for _, p := range s.params {
		names = append(names, p.name)
		aliases = append(aliases, p.aliases...)
	}
	for _, e := range s.extra {
		if e == "attr" {
			aliases = append(aliases, e)
		} else {
			names = append(names, e)
		}
	}
	sort.Strings(names)
	sort.Strings(aliases)
	out := strings.Join(names, ", ")
	if len(aliases) > 0 {
		out += " (" + strings.Join(aliases, ", ") + ")"
	}
	return out
}

// pyType names v's Python type for conversion errors.
func pyType(v any) string {
	switch v.(type) {
	case string:
		return "str"
	case bool:
		return "bool"
	case int:
		return "int"
	case float64:
		return "float"
	case []any:
		return "list"
	case *value.Dict:
		return "dict"
	}
	return value.TypeName(v)
}

var boolTrue = map[string]bool{"y": true, "yes": true, "on": true, "1": true, "true": true, "t": true}
var boolFalse = map[string]bool{"n": true, "no": true, "off": true, "0": true, "false": true, "f": true}

// convert applies one AnsibleModule type conversion.
func convert(typ string, v any) (any, error) {
	switch typ {
	case "raw":
		return v, nil
	case "str":
		if s, ok := v.(string); ok {
			return s, nil
		}
		return value.Str(v), nil
	case "path":
		s := value.Str(v)
		return expandPath(s), nil
	case "bool":
		switch x := v.(type) {
		case bool:
			return x, nil
		case int:
			if x == 0 || x == 1 {
				return x == 1, nil
			}
		case float64:
			if x == 0 || x == 1 {
				return x == 1, nil
			}
		case string:
			l := strings.ToLower(x)
			if boolTrue[l] {
				return true, nil
			}
			if boolFalse[l] {
				return false, nil
			}
		}
		return nil, fmt.Errorf("The value %s is not a valid boolean. Valid booleans include: 0, 1, 'off', 'on', 'n', 'no', 'f', 't', 'false', 'y', '1', 'yes', 'true', '0'", value.Repr(v))
	case "int":
		switch x := v.(type) {
		case int:
			return x, nil
		case bool:
			if x {
				return 1, nil
			}
			return 0, nil
		case float64:
			if x == math.Trunc(x) {
				return int(x), nil
			}
		case string:
			if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil {
				return n, nil
			}
		}
		return nil, fmt.Errorf("%q cannot be converted to an int", value.Repr(v))
	case "list":
		switch x := v.(type) {
		case []any:
			return append([]any(nil), x...), nil
		case string:
			var out []any
			for _, p := range strings.Split(x, ",") {
				out = append(out, p)
			}
			return out, nil
		case int, float64, bool:
			return []any{value.Str(x)}, nil
		}
		return []any{v}, nil
	case "dict":
		switch x := v.(type) {
		case *value.Dict:
			return x.Copy(), nil
		case string:
			if d, err := value.DecodeJSON([]byte(x)); err == nil {
				if dd, ok := d.(*value.Dict); ok {
					return dd, nil
				}
			}
			if d, ok := parseKV(x); ok {
				return d, nil
			}
		}
		return nil, fmt.Errorf("dictionary requested, could not parse JSON or key=value")
	}
	return v, nil
}

// parseKV parses "a=1, b=2" or "a=1 b=2" into a dict.
func parseKV(s string) (*value.Dict, bool) {
	d := value.NewDict(2)
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return nil, false
		}
		d.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return d, d.Len() > 0
}

// expandPath applies os.path.expanduser and expandvars.
func expandPath(s string) string {
	if s == "~" || strings.HasPrefix(s, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			s = filepath.Join(home, s[1:])
		}
	}
	return os.Expand(s, func(k string) string {
		if v, ok := os.LookupEnv(k); ok {
			return v
		}
		return "$" + k
	})
}
