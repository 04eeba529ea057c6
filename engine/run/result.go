package run

import (
	"errors"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
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

// normalizeModuleFailure gives a module's failed result its exception as
// the module returns, before changed_when and failed_when, as ansible-core's
// action layer does (AnsibleModuleCapturedError): the error reads "Module
// failed: " and the exception the module gave, else its msg.
func normalizeModuleFailure(t *playbook.Task, res *value.Dict) {
	if t.Info.Flags&module.ControllerAction == 0 && !module.IsActionFailure(res) {
		captureFailure(t, res, "Module failed")
	}
}

// normalizeFailure gives a result that is still failed without an
// exception (a controller action's own failure, or one failed_when made)
// its exception, "Action failed: ..." (AnsibleActionCapturedError); a
// failed result with no msg takes the error's text as its msg.
func normalizeFailure(t *playbook.Task, res *value.Dict) {
	if !value.Truthy(res.Default("failed", false)) {
		return
	}
	captureFailure(t, res, "Action failed")
	if !res.Has("msg") {
		if err := ExceptionOf(res); err != nil {
			res.Set("msg", err.Error())
		}
	}
}

// captureFailure turns a failed result's exception into the task error
// "Task failed: <prefix>: <text>", unless it has one already.
func captureFailure(t *playbook.Task, res *value.Dict, prefix string) {
	if !value.Truthy(res.Default("failed", false)) {
		return
	}
	exc := res.Default("exception", nil)
	if _, ok := exc.(*ResultError); ok {
		return
	}
	text := "Unknown error."
	if m, ok := res.Get("msg"); ok {
		text = value.Str(m)
	}
	if e, ok := exc.(error); ok {
		text = e.Error()
	}
	msg := prefix + "."
	if text != "" {
		msg = prefix + ": " + text
	}
	err := diag.Chain("Task failed.", t.Pos, errors.New(msg))
	if captured, ok := exc.(*diag.Diagnostic); ok && captured.Events != nil {
		// The captured failures get a section of their own.
		err.Cause = &diag.Diagnostic{Summary: prefix + ".", Cause: captured}
	}
	switch {
	case t.Implicit:
		err.Origin = nil
	case t.UnknownOrigin != "":
		err.Origin, err.Note = &value.Pos{}, t.UnknownOrigin
	}
	res.Set("exception", &ResultError{err})
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
