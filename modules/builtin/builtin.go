// Package builtin holds the in-process ansible.builtin action plugins
// (debug, set_fact, fail, assert, pause, set_stats) and registers the
// actions the executor performs itself (meta, the includes and imports,
// include_vars).
package builtin

import (
	"strings"

	"errors"
	"fmt"
	"math"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// executorAction marks actions the executor performs itself; their Run is
// never called.
var executorAction = module.Func(func(*module.Request) (*value.Dict, error) {
	return nil, errors.New("executor action called as a module")
})

// Entries registers the builtin actions.
func Entries() []module.Entry {
	b := func(name string, kind module.Kind, flags module.Flags, m module.Module) module.Entry {
		return module.Entry{FQCN: "ansible.builtin." + name, Kind: kind, Flags: flags, Module: m}
	}
	ctl := module.ControllerAction
	// local are the action plugins that run on the controller alone:
	// no connection, no async.
	local := ctl | module.Connectionless | module.NoAsync
	return []module.Entry{
		b("debug", module.KindModule, module.IgnoresFacts|module.ExpressionVar|local, module.Func(debugModule)),
		b("set_fact", module.KindModule, module.SetsFacts|local, module.Func(setFactModule)),
		b("fail", module.KindModule, local, module.Func(failModule)),
		b("assert", module.KindModule, module.ConditionsArg|local, module.Func(assertModule)),
		b("pause", module.KindModule, local, module.Func(pauseModule)),
		b("set_stats", module.KindModule, local, module.Func(setStatsModule)),
		b("validate_argument_spec", module.KindModule, local, module.Func(validateArgumentSpecModule)),
		b("async_status", module.KindModule, module.NoAsync, module.Func(asyncStatusModule)),
		b("meta", module.KindMeta, module.FreeForm|ctl, executorAction),
		b("include_tasks", module.KindIncludeTasks, module.FreeForm|ctl, executorAction),
		b("import_tasks", module.KindImportTasks, module.FreeForm|ctl, executorAction),
		b("include_role", module.KindIncludeRole, ctl, executorAction),
		b("import_role", module.KindImportRole, ctl, executorAction),
		b("include_vars", module.KindIncludeVars, module.FreeForm|ctl|module.NoAsync, executorAction),
	}
}

// actionLoadName is how ansible-core names an action plugin in
// "Unsupported parameters for (...) module" messages: the plugin loader's
// name for it, which is its Python module path when the task wrote
// ansible.builtin.<name>, and the short name otherwise (also for
// ansible.legacy.<name>).
func actionLoadName(req *module.Request) string {
	if strings.HasPrefix(req.Action, "ansible.builtin.") {
		return "ansible_collections.ansible.builtin.plugins.action." + req.Name
	}
	return req.Name
}

var debugSpec = &argspec.Spec{
	Options: []argspec.Option{
		{Name: "msg", Type: argspec.Raw, Default: "Hello world!"},
		{Name: "var", Type: argspec.StrNoConversion},
		{Name: "verbosity", Type: argspec.Int, Default: 0},
	},
	Rules: argspec.Rules{MutuallyExclusive: [][]string{{"msg", "var"}}},
}

func debugModule(req *module.Request) (*value.Dict, error) {
	v := debugSpec.Validate(req.Args)
	if err := v.ActionError(actionLoadName(req)); err != nil {
		return nil, err
	}
	args := v.P()
	if args.Int("verbosity") > req.Verbosity {
		return value.DictOf("skipped_reason", "Verbosity threshold not met.", "skipped", true, "changed", false), nil
	}
	res := value.NewDict(3)
	if expr := args.Str("var"); expr != "" {
		// Undefined values show as "<< error N - ... >>" placeholders
		// with a warning at the argument, as ansible-core's debug does.
		val, warning, err := req.Host.EvalLenient(expr)
		if err != nil {
			return nil, module.ArgError("Error while resolving `var` expression.", req.Host.ArgPos("var"), "", err)
		}
		if warning != "" {
			req.Host.Warn(warning, req.Host.ArgPos("var"))
		}
		res.Set(expr, val)
	} else {
		res.Set("msg", args.Default("msg", nil))
	}
	res.Set("_ansible_verbose_always", true)
	res.Set("changed", false)
	return res, nil
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
func setFactModule(req *module.Request) (*value.Dict, error) {
	facts := value.NewDict(req.Args.Len())
	cacheable := false
	var ferr error
	req.Args.Each(func(k string, v any) bool {
		if k == "cacheable" {
			b, err := argspec.Boolean(v)
			if err != nil {
				ferr = err
				return false
			}
			cacheable = b
			return true
		}
		name, err := varName(req, req.Args.Key(k), k)
		if err != nil {
			ferr = err
			return false
		}
		facts.Set(name, v)
		return true
	})
	if ferr != nil {
		return nil, ferr
	}
	if facts.Len() == 0 {
		return nil, module.ActionFail("No key/value pairs provided, at least one is required for this action to succeed", nil)
	}
	return value.DictOf("ansible_facts", facts, "_ansible_facts_cacheable", cacheable, "changed", false), nil
}

// varName renders a variable name that may be a template (key is the
// name as written, k the argument it was written as) and checks it as
// validate_variable_name does.
func varName(req *module.Request, key any, k string) (string, error) {
	if s, ok := key.(string); ok {
		r, err := req.Host.Render(s)
		if err != nil {
			return "", err
		}
		key = r
	}
	name, isStr := key.(string)
	if !isStr || !validVarName(name) {
		return "", invalidName(req, k, key)
	}
	return name, nil
}

// invalidName is validate_variable_name's error for the key written as k.
func invalidName(req *module.Request, k string, key any) error {
	desc := "name"
	switch key.(type) {
	case string, int, int64, float64, bool, nil:
		desc += " " + value.Repr(value.Str(key))
	}
	if _, isStr := key.(string); !isStr {
		desc += fmt.Sprintf(" of type '%s'", value.TypeName(key))
	}
	pos := req.Host.KeyPos(k)
	if pos.IsZero() {
		pos = req.Host.ArgPos(k)
	}
	return module.ArgError("Invalid variable "+desc+".", pos, varNameHelp, nil)
}

func failModule(req *module.Request) (*value.Dict, error) {
	msg, ok := req.Args.Get("msg")
	if !ok {
		msg = "Failed as requested from task"
	}
	return module.Failed(msg), nil
}

// strOrListOfStr is assert's str_or_list_of_str type.
func strOrListOfStr(v any) (any, error) {
	if _, ok := v.(string); ok {
		return v, nil
	}
	if l, ok := v.([]any); ok {
		for _, e := range l {
			if _, ok := e.(string); !ok {
				return nil, errors.New("a string or list of strings is required")
			}
		}
		return v, nil
	}
	return nil, errors.New("a string or list of strings is required")
}

var assertSpec = &argspec.Spec{Options: []argspec.Option{
	{Name: "fail_msg", Type: "str_or_list_of_str", Check: strOrListOfStr, Default: "Assertion failed", Aliases: []string{"msg"}},
	{Name: "success_msg", Type: "str_or_list_of_str", Check: strOrListOfStr, Default: "All assertions passed"},
	{Name: "quiet", Type: argspec.Bool, Default: false},
	{Name: "that", Type: argspec.ListStrict, Required: true},
}}

// assertModule evaluates each `that` condition with 2.19's conditional
// rules. Unless quiet, its result (failed or not) is always shown in full.
func assertModule(req *module.Request) (*value.Dict, error) {
	v := assertSpec.Validate(req.Args)
	if err := v.ActionError(actionLoadName(req)); err != nil {
		return nil, err
	}
	args := v.P()
	res := value.NewDict(6)
	if !args.Bool("quiet") {
		res.Set("_ansible_verbose_always", true)
	}
	that := args.List("that")
	if that == nil {
		that = []any{nil}
	}
	for i, c := range that {
		ok, err := req.Host.Cond(c, req.Host.ArgItemPos("that", i))
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

var pauseSpec = &argspec.Spec{
	Options: []argspec.Option{
		{Name: "echo", Type: argspec.Bool, Default: true},
		{Name: "minutes", Type: argspec.PyInt},
		{Name: "seconds", Type: argspec.PyInt},
		{Name: "prompt", Type: argspec.Str},
	},
	Rules: argspec.Rules{MutuallyExclusive: [][]string{{"minutes", "seconds"}}},
}

// pauseModule waits for `seconds` or `minutes` (at least one second). As
// no prompt can be answered, a pause without a duration warns and returns.
func pauseModule(req *module.Request) (*value.Dict, error) {
	v := pauseSpec.Validate(req.Args)
	if err := v.ActionError(actionLoadName(req)); err != nil {
		return nil, err
	}
	args := v.P()
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
		out := req.Host.Stdout()
		fmt.Fprintf(out, "Pausing for %d seconds%s\n", seconds, hidden)
		if args.Str("prompt") != "" {
			fmt.Fprint(out, "(ctrl+C then 'C' = continue early, ctrl+C then 'A' = abort)\r\n")
		}
		select {
		case <-time.After(time.Duration(seconds) * time.Second):
		case <-req.Ctx.Done():
			// An interrupted pause is not a pause that ended.
			return nil, req.Ctx.Err()
		}
	} else {
		req.Host.Warn("Not waiting for response to prompt as stdin is not interactive", value.Pos{})
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
