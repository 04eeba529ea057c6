package modules

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Executor marks actions the executor performs itself (includes, meta,
// set_fact's scoping); their Run is never called.
var Executor = Func(func(*Request) (*value.Dict, error) {
	return nil, fmt.Errorf("executor action called as a module")
})

// Builtin returns the in-process ansible.builtin modules.
func Builtin() map[string]Module {
	return map[string]Module{
		"debug":         Func(debugModule),
		"set_fact":      Func(setFactModule),
		"fail":          Func(failModule),
		"assert":        Func(assertModule),
		"pause":         Func(pauseModule),
		"meta":          Executor,
		"include_tasks": Executor,
		"import_tasks":  Executor,
		"include_role":  Executor,
		"import_role":   Executor,
		"include_vars":  Executor,
		"set_stats":     Func(func(*Request) (*value.Dict, error) { return Result(false), nil }),
		"noop":          Func(func(*Request) (*value.Dict, error) { return Result(false), nil }),
	}
}

// ActionFail is an action plugin's own failure (ansible-core's
// AnsibleActionFail): the task fails with Msg as the result's message.
type ActionFail struct{ Msg string }

func (e *ActionFail) Error() string { return e.Msg }

// PosError is an error about a value written at Pos (zero when unknown),
// with optional help text and cause; the executor reports it below "Task
// failed.".
type PosError struct {
	Msg  string
	Pos  value.Pos
	Help string
	Err  error
}

func (e *PosError) Error() string {
	if e.Err != nil {
		return strings.TrimSuffix(e.Msg, ".") + ": " + e.Err.Error()
	}
	return e.Msg
}

// Unwrap returns the cause.
func (e *PosError) Unwrap() error { return e.Err }

// argType is one of the argument types action plugins validate with.
type argType int

const (
	typeRaw        argType = iota
	typeStrNoConv          // _check_type_str_no_conversion
	typeInt                // 'int' (check_type_int)
	typeIntCall            // the int callable (pause)
	typeBool               // 'bool'
	typeStr                // 'str'
	typeListStrict         // _check_type_list_strict
	typeStrOrList          // a string or list of strings
)

// argSpec is one parameter of an action plugin's argument spec.
type argSpec struct {
	name     string
	typ      argType
	def      any
	required bool
	aliases  []string
}

// validateArgs applies ansible-core's ArgumentSpecValidator as action
// plugins use it: aliases, mutually exclusive groups, required arguments,
// types and defaults, then unsupported parameters. The first error fails
// the action with its message. The result holds every spec'd parameter
// (nil when unset without a default).
func validateArgs(action string, args *value.Dict, spec []argSpec, exclusive ...[]string) (*value.Dict, error) {
	params := args.Copy()
	known := map[string]bool{}
	var names, aliases []string
	for _, p := range spec {
		known[p.name] = true
		names = append(names, p.name)
		for _, a := range p.aliases {
			known[a] = true
			aliases = append(aliases, a)
			if v, ok := params.Get(a); ok {
				params.Set(p.name, v)
			}
		}
	}
	var errs []string
	for _, group := range exclusive {
		n := 0
		for _, k := range group {
			if params.Has(k) {
				n++
			}
		}
		if n > 1 {
			errs = append(errs, "parameters are mutually exclusive: "+strings.Join(group, "|"))
		}
	}
	var missing []string
	for _, p := range spec {
		if p.required && !params.Has(p.name) {
			missing = append(missing, p.name)
		}
	}
	if len(missing) > 0 {
		errs = append(errs, "missing required arguments: "+strings.Join(missing, ", "))
	}
	out := value.NewDict(len(spec))
	for _, p := range spec {
		v, ok := params.Get(p.name)
		if !ok {
			out.Set(p.name, p.def)
			continue
		}
		if v == nil {
			// A given None keeps its value and skips the type check.
			out.Set(p.name, nil)
			continue
		}
		cv, err := convertArg(p.typ, v)
		if err != nil {
			errs = append(errs, fmt.Sprintf("argument '%s' is of type %s and we were unable to convert to %s: %s",
				p.name, value.TypeName(v), typeNames[p.typ], err))
			continue
		}
		out.Set(p.name, cv)
	}
	var unsupported []string
	args.Each(func(k string, _ any) bool {
		if !known[k] {
			unsupported = append(unsupported, k)
		}
		return true
	})
	if len(unsupported) > 0 {
		sort.Strings(unsupported)
		sort.Strings(names)
		sort.Strings(aliases)
		supported := strings.Join(names, ", ")
		if len(aliases) > 0 {
			supported += " (" + strings.Join(aliases, ", ") + ")"
		}
		errs = append(errs, fmt.Sprintf("Unsupported parameters for (ansible_collections.ansible.builtin.plugins.action.%s) module: %s. Supported parameters include: %s.",
			action, strings.Join(unsupported, ", "), supported))
	}
	if len(errs) > 0 {
		return nil, &ActionFail{Msg: errs[0]}
	}
	return out, nil
}

var typeNames = map[argType]string{typeRaw: "raw", typeStrNoConv: "_check_type_str_no_conversion", typeInt: "int",
	typeIntCall: "int", typeBool: "bool", typeStr: "str", typeListStrict: "_check_type_list_strict", typeStrOrList: "str_or_list_of_str"}

// convertArg checks or converts one argument value as ansible-core's type
// checkers do.
func convertArg(t argType, v any) (any, error) {
	switch t {
	case typeStrNoConv:
		if _, ok := v.(string); !ok {
			return nil, fmt.Errorf("'%s' is not a string and conversion is not allowed", value.Str(v))
		}
	case typeStr:
		switch v.(type) {
		case string:
		case *value.Dict, []any:
			return nil, fmt.Errorf("'%s' is not a string and conversion is not allowed", value.Str(v))
		default:
			return value.Str(v), nil
		}
	case typeInt:
		return checkInt(v)
	case typeIntCall:
		return pyInt(v)
	case typeBool:
		return pyBoolean(v)
	case typeListStrict:
		if _, ok := v.([]any); !ok {
			return []any{v}, nil
		}
	case typeStrOrList:
		switch x := v.(type) {
		case string:
		case []any:
			for _, e := range x {
				if _, ok := e.(string); !ok {
					return nil, errors.New("a string or list of strings is required")
				}
			}
		default:
			return nil, errors.New("a string or list of strings is required")
		}
	}
	return v, nil
}

// checkInt is ansible-core's check_type_int: integers (booleans included)
// pass, other values convert when they have no decimal part.
func checkInt(v any) (any, error) {
	switch x := v.(type) {
	case int, int64, bool:
		return v, nil
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return int(x), nil
		}
	case string:
		s := strings.TrimSpace(x)
		if n, err := strconv.Atoi(s); err == nil {
			return n, nil
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
			return int(f), nil
		}
	}
	return nil, fmt.Errorf("\"%s\" cannot be converted to an int", value.Repr(v))
}

// pyInt is Python's int() applied to a value.
func pyInt(v any) (any, error) {
	switch x := v.(type) {
	case int, int64:
		return v, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("cannot convert float %s to integer", value.Str(v))
		}
		return int(math.Trunc(x)), nil
	case string:
		if n, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(x), "_", "")); err == nil {
			return n, nil
		}
		return nil, fmt.Errorf("invalid literal for int() with base 10: %s", value.Repr(x))
	}
	return nil, fmt.Errorf("int() argument must be a string, a bytes-like object or a real number, not '%s'", value.TypeName(v))
}

// pyBoolean is ansible-core's strict boolean().
func pyBoolean(v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "y", "yes", "on", "1", "true", "t":
			return true, nil
		case "n", "no", "off", "0", "false", "f":
			return false, nil
		}
	case int:
		if x == 0 || x == 1 {
			return x == 1, nil
		}
	case float64:
		if x == 0 || x == 1 {
			return x == 1, nil
		}
	}
	return false, fmt.Errorf("The value '%s' is not a valid boolean. Valid booleans include: %s", value.Str(v),
		"'y', 'yes', 'on', '1', 'true', 't', 1, 1.0, True, 'n', 'no', 'off', '0', 'false', 'f', 0, 0.0, False")
}

func debugModule(req *Request) (*value.Dict, error) {
	args, err := validateArgs("debug", req.Args, []argSpec{
		{name: "msg", def: "Hello world!"},
		{name: "var", typ: typeStrNoConv},
		{name: "verbosity", typ: typeInt, def: 0},
	}, []string{"msg", "var"})
	if err != nil {
		return nil, err
	}
	if n, _ := value.AsInt(args.Default("verbosity", 0)); n > req.Verbosity {
		return value.DictOf("skipped_reason", "Verbosity threshold not met.", "skipped", true, "changed", false), nil
	}
	res := value.NewDict(3)
	if expr, _ := args.Default("var", nil).(string); expr != "" {
		// Undefined values show as "<< error N - ... >>" placeholders
		// with a warning at the argument, as ansible-core's debug does.
		m := &template.Markers{}
		opt := req.Opt
		opt.Markers = m
		v, err := req.Engine.Eval(expr, req.Vars, opt)
		if err != nil {
			return nil, &PosError{Msg: "Error while resolving `var` expression.", Pos: req.argPos("var"), Err: err}
		}
		if w := m.Warning(); w != "" {
			req.warnAt(w, req.argPos("var"))
		}
		res.Set(expr, v)
	} else {
		res.Set("msg", args.Default("msg", nil))
	}
	res.Set("_ansible_verbose_always", true)
	res.Set("changed", false)
	return res, nil
}

// argPos is where an argument was written, when known.
func (r *Request) argPos(key string) value.Pos {
	if r.ArgPos == nil {
		return value.Pos{}
	}
	return r.ArgPos(key)
}

// warnAt shows a warning at pos, or through the template options.
func (r *Request) warnAt(msg string, pos value.Pos) {
	if r.WarnAt != nil {
		r.WarnAt(msg, pos)
	} else if r.Opt.Warn != nil {
		r.Opt.Warn(template.Warning{Msg: msg})
	}
}

// varNameHelp is ansible-core's help text for an invalid variable name.
const varNameHelp = "Variable names must be strings starting with a letter or underscore character, and contain only letters, numbers and underscores."

// validVarName applies ansible-core's validate_variable_name to a string.
func validVarName(s string) bool {
	if s == "" || s == "not" || s == "none" || s == "None" || s == "true" || s == "True" || s == "false" || s == "False" {
		return false
	}
	for i, c := range s {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// setFactModule returns its arguments as facts. As in ansible-core 2.19
// values keep their types (strings such as "yes" stay strings) and keys
// may be templates.
func setFactModule(req *Request) (*value.Dict, error) {
	facts := value.NewDict(req.Args.Len())
	cacheable := false
	var ferr error
	req.Args.Each(func(k string, v any) bool {
		if k == "cacheable" {
			b, err := pyBoolean(v)
			if err != nil {
				ferr = err
				return false
			}
			cacheable = b
			return true
		}
		var key any = req.Args.Key(k)
		if s, ok := key.(string); ok && template.HasMarkers(s) && req.Engine != nil {
			r, err := req.Engine.Render(s, req.Vars, req.Opt)
			if err != nil {
				ferr = err
				return false
			}
			key = r
		}
		name, isStr := key.(string)
		if !isStr || !validVarName(name) {
			desc := "name"
			switch key.(type) {
			case string, int, int64, float64, bool, nil:
				desc += " " + value.Repr(value.Str(key))
			}
			if !isStr {
				desc += fmt.Sprintf(" of type '%s'", value.TypeName(key))
			}
			pos := value.Pos{}
			if req.KeyPos != nil {
				pos = req.KeyPos(k)
			}
			if pos.IsZero() {
				pos = req.argPos(k)
			}
			ferr = &PosError{Msg: "Invalid variable " + desc + ".", Pos: pos, Help: varNameHelp}
			return false
		}
		facts.Set(name, v)
		return true
	})
	if ferr != nil {
		return nil, ferr
	}
	if facts.Len() == 0 {
		return nil, &ActionFail{Msg: "No key/value pairs provided, at least one is required for this action to succeed"}
	}
	return value.DictOf("ansible_facts", facts, "_ansible_facts_cacheable", cacheable, "changed", false), nil
}

func failModule(req *Request) (*value.Dict, error) {
	msg, ok := req.Args.Get("msg")
	if !ok {
		msg = "Failed as requested from task"
	}
	return Failed(msg), nil
}

// assertModule evaluates each `that` condition with 2.19's conditional
// rules. Unless quiet, its result (failed or not) is always shown in full.
func assertModule(req *Request) (*value.Dict, error) {
	args, err := validateArgs("assert", req.Args, []argSpec{
		{name: "fail_msg", typ: typeStrOrList, def: "Assertion failed", aliases: []string{"msg"}},
		{name: "success_msg", typ: typeStrOrList, def: "All assertions passed"},
		{name: "quiet", typ: typeBool, def: false},
		{name: "that", typ: typeListStrict, required: true},
	})
	if err != nil {
		return nil, err
	}
	res := value.NewDict(6)
	if quiet, _ := args.Default("quiet", false).(bool); !quiet {
		res.Set("_ansible_verbose_always", true)
	}
	pos := req.argPos("that")
	that, _ := args.Default("that", nil).([]any)
	if that == nil {
		that = []any{nil}
	}
	for _, c := range that {
		ok, err := evalCondition(req, c, pos)
		if err != nil {
			return nil, err
		}
		if !ok {
			res.Set("failed", true)
			res.Set("evaluated_to", false)
			res.Set("assertion", c)
			res.Set("msg", args.Default("fail_msg", nil))
			return res, nil
		}
	}
	res.Set("changed", false)
	res.Set("msg", args.Default("success_msg", nil))
	return res, nil
}

// evalCondition evaluates one assert condition as `when:` does; without
// the executor's hook it applies the same strict boolean rule.
func evalCondition(req *Request, c any, pos value.Pos) (bool, error) {
	if req.Cond != nil {
		return req.Cond(c, pos)
	}
	if b, ok := c.(bool); ok {
		return b, nil
	}
	s, ok := c.(string)
	if !ok {
		return false, errors.New("Conditional expressions must be strings.")
	}
	v, err := req.Engine.Eval(s, req.Vars, req.Opt)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("Conditional result (%s) was derived from value of type '%s'. Conditionals must have a boolean result.",
			value.Repr(value.Truthy(v)), value.TypeName(v))
	}
	return b, nil
}

// pauseModule waits for `seconds` or `minutes` (at least one second). As
// no prompt can be answered, a pause without a duration warns and returns.
func pauseModule(req *Request) (*value.Dict, error) {
	args, err := validateArgs("pause", req.Args, []argSpec{
		{name: "echo", typ: typeBool, def: true},
		{name: "minutes", typ: typeIntCall},
		{name: "seconds", typ: typeIntCall},
		{name: "prompt", typ: typeStr},
	}, []string{"minutes", "seconds"})
	if err != nil {
		return nil, err
	}
	echo, isBool := args.Default("echo", true).(bool)
	if !isBool {
		echo = true
	}
	hidden := ""
	if !echo {
		hidden = " (output is hidden)"
	}
	unit := "minutes"
	seconds := -1
	if m, ok := args.Default("minutes", nil).(int); ok {
		seconds = m * 60
	} else if s, ok := args.Default("seconds", nil).(int); ok {
		seconds, unit = s, "seconds"
	}
	start := time.Now()
	if seconds >= 0 {
		seconds = max(seconds, 1)
		fmt.Fprintf(req.Stdout, "Pausing for %d seconds%s\n", seconds, hidden)
		if p, _ := args.Default("prompt", nil).(string); p != "" {
			fmt.Fprint(req.Stdout, "(ctrl+C then 'C' = continue early, ctrl+C then 'A' = abort)\r\n")
		}
		select {
		case <-time.After(time.Duration(seconds) * time.Second):
		case <-req.Ctx.Done():
		}
	} else {
		req.warnAt("Not waiting for response to prompt as stdin is not interactive", value.Pos{})
	}
	stop := time.Now()
	d := stop.Sub(start).Seconds()
	if unit == "minutes" {
		d /= 60
	}
	d = math.Round(d*100) / 100
	return value.DictOf("changed", false, "rc", 0, "stderr", "", "stdout", fmt.Sprintf("Paused for %s %s", value.FormatFloat(d), unit),
		"start", start.Format("2006-01-02 15:04:05.000000"), "stop", stop.Format("2006-01-02 15:04:05.000000"),
		"delta", int(stop.Sub(start).Seconds()), "echo", echo, "user_input", ""), nil
}
