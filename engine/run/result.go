package run

import (
	"errors"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
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
	if t.Info.Flags&module.ControllerAction != 0 {
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
// by their summary. A subtree that needs no change is shared rather than
// copied (value.MapList): a k8s_info result of a thousand objects is
// registered without a deep copy.
func cleanCopy(v any) any {
	switch x := v.(type) {
	case *value.Dict:
		internal := false
		for _, k := range x.Keys() {
			internal = internal || strings.HasPrefix(k, "_ansible_")
		}
		if !internal {
			r, _ := value.MapDict(x, func(_ string, e any) (any, error) { return cleanCopy(e), nil })
			return r
		}
		out := value.NewDict(x.Len())
		x.Each(func(k string, e any) bool {
			if !strings.HasPrefix(k, "_ansible_") {
				out.Set(k, cleanCopy(e))
			}
			return true
		})
		return out
	case []any:
		r, _ := value.MapList(x, func(_ int, e any) (any, error) { return cleanCopy(e), nil })
		return r
	case *ResultError:
		return tracebackUnavailable
	}
	return v
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
