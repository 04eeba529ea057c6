package k8s

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// spec describes one module argument as AnsibleModule's argument_spec does.
type spec struct {
	typ      string // str, bool, int, list, dict, raw, path
	def      any
	choices  []string
	aliases  []string
	required bool
	// options validates a dict argument's keys (one level).
	options map[string]spec
}

type argSpec map[string]spec

// params are validated arguments: every spec'd name, nil when unset.
type params map[string]any

func (p params) str(k string) string {
	if v := p[k]; v != nil {
		return value.Str(v)
	}
	return ""
}

func (p params) bool(k string) bool { b, _ := p[k].(bool); return b }

func (p params) int(k string) int { i, _ := p[k].(int); return i }

func (p params) dict(k string) *value.Dict { d, _ := p[k].(*value.Dict); return d }

func (p params) strs(k string) []string {
	l, _ := p[k].([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		out = append(out, value.Str(e))
	}
	return out
}

// authSpecArgs are kubernetes.core's AUTH_ARG_SPEC.
var authSpecArgs = argSpec{
	"kubeconfig":         {typ: "raw"},
	"context":            {typ: "str"},
	"host":               {typ: "str"},
	"api_key":            {typ: "str"},
	"username":           {typ: "str"},
	"password":           {typ: "str"},
	"validate_certs":     {typ: "bool", aliases: []string{"verify_ssl"}},
	"ca_cert":            {typ: "path", aliases: []string{"ssl_ca_cert"}},
	"client_cert":        {typ: "path", aliases: []string{"cert_file"}},
	"client_key":         {typ: "path", aliases: []string{"key_file"}},
	"proxy":              {typ: "str"},
	"no_proxy":           {typ: "str"},
	"proxy_headers":      {typ: "dict"},
	"persist_config":     {typ: "bool"},
	"impersonate_user":   {typ: "str"},
	"impersonate_groups": {typ: "list"},
}

var waitSpecArgs = argSpec{
	"wait":           {typ: "bool", def: false},
	"wait_sleep":     {typ: "int", def: 5},
	"wait_timeout":   {typ: "int", def: 120},
	"wait_condition": {typ: "dict", options: map[string]spec{"type": {typ: "str"}, "status": {typ: "raw", def: true}, "reason": {typ: "str"}}},
}

func merged(sets ...argSpec) argSpec {
	out := argSpec{}
	for _, s := range sets {
		for k, v := range s {
			out[k] = v
		}
	}
	return out
}

// validate checks args against specs as AnsibleModule does and returns the
// first error message in Ansible's words.
func validate(module string, specs argSpec, args *value.Dict, mutex [][]string) (params, string) {
	given := map[string]any{}
	alias := map[string]string{}
	for name, s := range specs {
		for _, a := range s.aliases {
			alias[a] = name
		}
	}
	var unsupported []string
	args.Each(func(k string, v any) bool {
		if strings.HasPrefix(k, "_ansible") {
			return true
		}
		name := k
		if _, ok := specs[k]; !ok {
			if n, ok := alias[k]; ok {
				name = n
			} else {
				unsupported = append(unsupported, k)
				return true
			}
		}
		given[name] = v
		return true
	})
	var errs []string
	for _, group := range mutex {
		n := 0
		for _, k := range group {
			if given[k] != nil {
				n++
			}
		}
		if n > 1 {
			errs = append(errs, "parameters are mutually exclusive: "+strings.Join(group, "|"))
		}
	}
	var missing []string
	for name, s := range specs {
		if s.required && given[name] == nil {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		errs = append(errs, "missing required arguments: "+strings.Join(missing, ", "))
	}
	out := params{}
	names := make([]string, 0, len(specs))
	for name := range specs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s := specs[name]
		v, ok := given[name]
		if !ok || v == nil {
			out[name] = s.def
			continue
		}
		cv, err := convert(s, v)
		if err != "" {
			errs = append(errs, fmt.Sprintf("argument '%s' is of type %s and we were unable to convert to %s: %s", name, pyTypeName(v), typeWanted(s.typ), err))
			continue
		}
		if msg := checkChoices(name, s, cv); msg != "" {
			errs = append(errs, msg)
			continue
		}
		if d, ok := cv.(*value.Dict); ok && s.options != nil {
			sub, msg := validateOptions(name, s.options, d)
			if msg != "" {
				errs = append(errs, msg)
				continue
			}
			cv = sub
		}
		out[name] = cv
	}
	if len(unsupported) > 0 {
		sort.Strings(unsupported)
		var aliases []string
		for a := range alias {
			aliases = append(aliases, a)
		}
		sort.Strings(aliases)
		msg := fmt.Sprintf("Unsupported parameters for (%s) module: %s. Supported parameters include: %s", module, strings.Join(unsupported, ", "), strings.Join(names, ", "))
		if len(aliases) > 0 {
			msg += " (" + strings.Join(aliases, ", ") + ")"
		}
		errs = append(errs, msg+".")
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return out, ""
}

// validateOptions checks a dict argument's sub-options and fills defaults.
func validateOptions(parent string, opts map[string]spec, d *value.Dict) (*value.Dict, string) {
	out := value.NewDict(len(opts))
	var unknown []string
	d.Each(func(k string, _ any) bool {
		if _, ok := opts[k]; !ok {
			unknown = append(unknown, k)
		}
		return true
	})
	if len(unknown) > 0 {
		sort.Strings(unknown)
		var names []string
		for k := range opts {
			names = append(names, k)
		}
		sort.Strings(names)
		return nil, fmt.Sprintf("Unsupported parameters for (%s) module: %s.%s. Supported parameters include: %s.", parent, parent, strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := opts[k]
		v, ok := d.Get(k)
		if !ok || v == nil {
			if s.required {
				return nil, fmt.Sprintf("missing required arguments: %s found in %s", k, parent)
			}
			out.Set(k, s.def)
			continue
		}
		cv, err := convert(s, v)
		if err != "" {
			return nil, fmt.Sprintf("argument '%s' is of type %s found in '%s'. and we were unable to convert to %s: %s", k, pyTypeName(v), parent, typeWanted(s.typ), err)
		}
		out.Set(k, cv)
	}
	return out, ""
}

func checkChoices(name string, s spec, v any) string {
	if len(s.choices) == 0 {
		return ""
	}
	ok := func(x any) bool {
		for _, c := range s.choices {
			if value.Str(x) == c {
				return true
			}
		}
		return false
	}
	if list, isList := v.([]any); isList {
		var bad []string
		for _, e := range list {
			if !ok(e) {
				bad = append(bad, value.Str(e))
			}
		}
		if len(bad) > 0 {
			return fmt.Sprintf("value of %s must be one or more of: %s. Got no match for: %s", name, strings.Join(s.choices, ", "), strings.Join(bad, ", "))
		}
		return ""
	}
	if !ok(v) {
		return fmt.Sprintf("value of %s must be one of: %s, got: %s", name, strings.Join(s.choices, ", "), value.Str(v))
	}
	return ""
}

// convert coerces v to the spec's type as Ansible's type checkers do.
func convert(s spec, v any) (any, string) {
	switch s.typ {
	case "bool":
		b, ok := boolOf(v).(bool)
		if !ok {
			return nil, fmt.Sprintf("The value '%s' is not a valid boolean. Valid booleans include: 'no', 'on', 'y', 'yes', 'off', 'n', 1, 'true', '1', 0, 'false', 'f', 't', '0'", value.Str(v))
		}
		return b, ""
	case "int":
		switch x := v.(type) {
		case int:
			return x, ""
		case float64:
			if x == float64(int(x)) {
				return int(x), ""
			}
		case string:
			if i, err := strconv.Atoi(strings.TrimSpace(x)); err == nil {
				return i, ""
			}
		}
		return nil, fmt.Sprintf("%s cannot be converted to an int", pyTypeName(v))
	case "str", "path":
		switch x := v.(type) {
		case string:
			return x, ""
		case *value.Dict, []any:
			return nil, fmt.Sprintf("%s cannot be converted to a str", pyTypeName(v))
		default:
			return value.Str(x), ""
		}
	case "list":
		switch x := v.(type) {
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = value.Str(e)
			}
			return out, ""
		case string:
			var out []any
			for _, p := range strings.Split(x, ",") {
				out = append(out, p)
			}
			return out, ""
		case int, float64:
			return []any{value.Str(x)}, ""
		}
		return nil, fmt.Sprintf("%s cannot be converted to a list", pyTypeName(v))
	case "dict":
		if d, ok := v.(*value.Dict); ok {
			return d, ""
		}
		return nil, "dictionary requested, could not parse JSON or key=value"
	}
	return v, ""
}

// boolOf converts like Ansible's boolean(); it returns v itself (not a
// bool) when v is not a valid boolean.
func boolOf(v any) any {
	switch x := v.(type) {
	case bool:
		return x
	case int:
		if x == 1 || x == 0 {
			return x == 1
		}
	case float64:
		if x == 1 || x == 0 {
			return x == 1
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "y", "yes", "on", "1", "true", "t":
			return true
		case "n", "no", "off", "0", "false", "f":
			return false
		}
	}
	return v
}

func typeWanted(t string) string {
	if t == "path" {
		return "str"
	}
	return t
}

// pyTypeName names a value's Python type as "<class 'str'>".
func pyTypeName(v any) string {
	return fmt.Sprintf("<class '%s'>", value.TypeName(v))
}
