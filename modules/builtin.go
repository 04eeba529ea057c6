package modules

import (
	"fmt"
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

func debugModule(req *Request) (*value.Dict, error) {
	res := value.DictOf("_ansible_verbose_always", true)
	if v, ok := req.Args.Get("verbosity"); ok {
		n, _ := value.AsInt(v)
		if req.Verbosity < n {
			return value.DictOf("skipped_reason", "Verbosity threshold not met.", "skipped", true, "changed", false), nil
		}
	}
	if name, ok := req.Args.Get("var"); ok {
		key := value.Str(name)
		v, err := req.Engine.Eval(key, req.Vars, req.Opt)
		if err != nil {
			if template.IsUndefined(err) {
				v = "VARIABLE IS NOT DEFINED!"
			} else {
				return nil, err
			}
		}
		res.Set(key, v)
		res.Set("changed", false)
		return res, nil
	}
	msg, ok := req.Args.Get("msg")
	if !ok {
		msg = "Hello world!"
	}
	res.Set("msg", msg)
	res.Set("changed", false)
	return res, nil
}

func setFactModule(req *Request) (*value.Dict, error) {
	facts := value.NewDict(req.Args.Len())
	req.Args.Each(func(k string, v any) bool {
		if k == "cacheable" {
			return true
		}
		if s, ok := v.(string); ok {
			// set_fact converts k=v strings that look like booleans.
			switch strings.ToLower(s) {
			case "yes", "true":
				v = true
			case "no", "false":
				v = false
			}
		}
		facts.Set(k, v)
		return true
	})
	if facts.Len() == 0 {
		return Failed("No key/value pairs provided, at least one is required for this action to succeed"), nil
	}
	return value.DictOf("ansible_facts", facts, "changed", false), nil
}

func failModule(req *Request) (*value.Dict, error) {
	msg, ok := req.Args.Get("msg")
	if !ok {
		msg = "Failed as requested from task"
	}
	return Failed(msg), nil
}

func assertModule(req *Request) (*value.Dict, error) {
	that, _ := req.Args.Get("that")
	conds, ok := that.([]any)
	if !ok {
		conds = []any{that}
	}
	quiet := value.Truthy(req.Args.Default("quiet", false))
	for _, c := range conds {
		ok, err := evalCondition(req, c)
		if err != nil {
			return nil, err
		}
		if !ok {
			res := value.DictOf("assertion", c, "evaluated_to", false, "changed", false, "failed", true)
			msg, has := req.Args.Get("fail_msg")
			if !has {
				msg, has = req.Args.Get("msg")
			}
			if !has {
				msg = "Assertion failed"
			}
			res.Set("msg", msg)
			return res, nil
		}
	}
	res := value.DictOf("changed", false)
	if !quiet {
		res.Set("_ansible_verbose_always", true)
	}
	msg, has := req.Args.Get("success_msg")
	if !has {
		msg = "All assertions passed"
	}
	res.Set("msg", msg)
	return res, nil
}

// evalCondition evaluates one assert condition as a bare expression.
func evalCondition(req *Request, c any) (bool, error) {
	if b, ok := c.(bool); ok {
		return b, nil
	}
	v, err := req.Engine.Eval(value.Str(c), req.Vars, req.Opt)
	if err != nil {
		return false, err
	}
	return value.Truthy(v), nil
}

func pauseModule(req *Request) (*value.Dict, error) {
	var d time.Duration
	unit := "seconds"
	if v, ok := req.Args.Get("minutes"); ok {
		f, _ := value.AsFloat(toNumber(v))
		d = time.Duration(f * float64(time.Minute))
		unit = "minutes"
	} else if v, ok := req.Args.Get("seconds"); ok {
		f, _ := value.AsFloat(toNumber(v))
		d = time.Duration(f * float64(time.Second))
	}
	if d < time.Second {
		// ansible-core waits at least one second.
		d = time.Second
	}
	n := int(d / time.Second)
	if unit == "minutes" {
		n = int(d / time.Minute)
	}
	fmt.Fprintf(req.Stdout, "Pausing for %d %s\n", n, unit)
	start := time.Now()
	select {
	case <-time.After(d):
	case <-req.Ctx.Done():
	}
	stop := time.Now()
	return value.DictOf("changed", false, "delta", int(stop.Sub(start).Seconds()), "echo", true, "rc", 0,
		"start", start.Format("2006-01-02 15:04:05.000000"), "stderr", "",
		"stdout", fmt.Sprintf("Paused for %s %s", value.FormatFloat(stop.Sub(start).Round(100*time.Millisecond).Seconds()), unit),
		"stop", stop.Format("2006-01-02 15:04:05.000000"), "user_input", ""), nil
}

func toNumber(v any) any {
	if s, ok := v.(string); ok {
		return value.ResolvePlain(s)
	}
	return v
}
