package run

import (
	"errors"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ResultError is the error behind a failed result. Like ansible-core's
// ErrorSummary it travels in the result under the "exception" key; the
// display prints it as the [ERROR] block, and a registered copy shows
// "(traceback unavailable)" in its place.
type ResultError struct{ Err error }

// Error implements error.
func (e *ResultError) Error() string { return e.Err.Error() }

// tracebackUnavailable is what a registered result holds under "exception".
const tracebackUnavailable = "(traceback unavailable)"

// ExceptionOf returns the error a result carries under "exception".
func ExceptionOf(res *value.Dict) error {
	if res == nil {
		return nil
	}
	if e, ok := res.Default("exception", nil).(*ResultError); ok {
		return e.Err
	}
	return nil
}

// errorResult is the failed result of a task that raised err, shaped as
// ansible-core's result_dict_from_exception.
func errorResult(err error) *value.Dict {
	return value.DictOf("failed", true, "exception", &ResultError{err}, "msg", err.Error(), "changed", false)
}

// actionPlugins are modules that ansible-core implements as controller-side
// action plugins; their failures read "Action failed", others "Module failed".
var actionPlugins = map[string]bool{
	"debug": true, "fail": true, "assert": true, "set_fact": true, "include_vars": true, "pause": true,
	"meta": true, "include_tasks": true, "include_role": true, "set_stats": true, "add_host": true,
	"group_by": true, "wait_for_connection": true,
}

// normalizeFailure gives a failed module result its exception, as
// ansible-core does for results that say failed without raising.
func normalizeFailure(t *playbook.Task, res *value.Dict) {
	if !value.Truthy(res.Default("failed", false)) {
		return
	}
	if _, ok := res.Default("exception", nil).(*ResultError); ok {
		return
	}
	prefix := "Module failed: "
	if actionPlugins[t.Module] {
		prefix = "Action failed: "
	}
	msg := "Unknown error."
	if m, ok := res.Get("msg"); ok {
		msg = value.Str(m)
	}
	err := chain("Task failed.", t.Pos, errors.New(prefix+msg))
	res.Set("exception", &ResultError{err})
	if !res.Has("msg") {
		res.Set("msg", err.Error())
	}
}

// registered is the value a result is registered as: internal keys
// stripped at every level, exceptions summarised, invocation dropped.
func registered(res *value.Dict) *value.Dict {
	out := value.NewDict(res.Len())
	res.Each(func(k string, e any) bool {
		if k != "invocation" && !strings.HasPrefix(k, "_ansible_") {
			out.Set(k, cleanCopy(e))
		}
		return true
	})
	return out
}

// cleanCopy returns v without _ansible_* keys and with exceptions replaced
// by their summary. Values are never changed in place once made, so a
// subtree that needs no change is shared rather than copied: a k8s_info
// result of a thousand objects is registered without a deep copy.
func cleanCopy(v any) any {
	c, _ := cleaned(v)
	return c
}

// cleaned is cleanCopy that also reports whether anything was changed.
func cleaned(v any) (any, bool) {
	switch x := v.(type) {
	case *value.Dict:
		var out *value.Dict
		i := 0
		x.Each(func(k string, e any) bool {
			c, changed := cleaned(e)
			strip := strings.HasPrefix(k, "_ansible_")
			if out == nil && (changed || strip) {
				// First difference: copy the entries before it.
				out = value.NewDict(x.Len())
				j := 0
				x.Each(func(k2 string, e2 any) bool {
					if j == i {
						return false
					}
					j++
					if !strings.HasPrefix(k2, "_ansible_") {
						out.Set(k2, e2)
					}
					return true
				})
			}
			i++
			if out != nil && !strip {
				out.Set(k, c)
			}
			return true
		})
		if out == nil {
			return x, false
		}
		return out, true
	case []any:
		var out []any
		for i, e := range x {
			c, changed := cleaned(e)
			if changed && out == nil {
				out = make([]any, len(x))
				copy(out, x[:i])
			}
			if out != nil {
				out[i] = c
			}
		}
		if out == nil {
			return x, false
		}
		return out, true
	case *ResultError:
		return tracebackUnavailable, true
	}
	return v, false
}

// summarized copies a loop item result for the aggregate "results" list:
// internal keys stay (the display needs _ansible_no_log), exceptions are
// summarised.
func summarized(res *value.Dict) *value.Dict {
	out := value.NewDict(res.Len())
	res.Each(func(k string, e any) bool {
		if _, ok := e.(*ResultError); ok {
			e = tracebackUnavailable
		}
		out.Set(k, e)
		return true
	})
	return out
}
