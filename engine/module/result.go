package module

import (
	"errors"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Result starts a result dict with changed set.
func Result(changed bool) *value.Dict {
	return value.DictOf("changed", changed)
}

// Failed returns a failed result with msg, as a module's fail_json does.
func Failed(msg any) *value.Dict {
	return value.DictOf("changed", false, "msg", msg, "failed", true)
}

// actionFailureKey marks a failed result an action plugin reports itself
// rather than one of the modules it ran (see ActionFailed). Keys starting
// with _ansible_ never reach registered results or the display.
const actionFailureKey = "_ansible_action_failure"

// ActionFailed is a failure an action plugin that runs modules (copy,
// fetch, template) reports itself: ansible-core words it "Action failed"
// where a failure of the module it ran reads "Module failed".
func ActionFailed(msg any) *value.Dict {
	res := Failed(msg)
	res.Set(actionFailureKey, true)
	return res
}

// IsActionFailure reports a result made by ActionFailed.
func IsActionFailure(res *value.Dict) bool {
	b, _ := res.Default(actionFailureKey, false).(bool)
	return b
}

// FailedWith is fail_json(msg, exception=cause): the task's error reads
// cause's text (which usually starts with msg) after "Module failed: ",
// while the result's msg stays msg.
func FailedWith(msg string, cause error) *value.Dict {
	return value.DictOf("changed", false, "msg", msg, "failed", true, "exception", cause)
}

// Crashed is the result of a module that raised an unexpected exception:
// failed, with no msg, so the task reads "Module failed: <err>" and
// failed_when can still overrule it.
func Crashed(err error) *value.Dict {
	return value.DictOf("changed", false, "failed", true, "exception", err)
}

// ActionFail is an action plugin's own failure (ansible-core's
// AnsibleActionFail): the task fails with msg as the result's message and
// the error is shown below "Task failed.". cause, when not nil, is the
// error it was raised from, shown in a "caused by" section; an Origin set
// on the result is the value the failure is about (AnsibleActionFail's
// obj), also shown in a section of its own.
func ActionFail(msg string, cause error) *diag.Diagnostic {
	return &diag.Diagnostic{Summary: msg, Cause: cause, AsResult: true}
}

// ArgError is an error about an argument written at pos (zero when
// unknown), with optional help text and cause; the executor reports it
// below "Task failed.".
func ArgError(msg string, pos value.Pos, help string, cause error) *diag.Diagnostic {
	return &diag.Diagnostic{Summary: msg, Origin: diag.At(pos), Help: help, Cause: cause}
}

// CapturedErrors is the exception of a failed result in which an action
// reports the failures of the modules it ran (gather_facts' failed
// modules): msg in a section of its own, with each failure as a
// sub-event, as ansible-core's result_dict_from_captured_errors does.
func CapturedErrors(msg string, events []string) *diag.Diagnostic {
	return &diag.Diagnostic{Summary: msg, Detached: true, Events: events}
}

// warningsShownKey marks a result whose `warnings` were already shown (or,
// as ansible-core does for a job's result read by async_status, are kept
// in the result without being shown): the display does not show them.
const warningsShownKey = "_ansible_warnings_shown"

// MarkWarningsShown keeps res's warnings from being shown with it.
func MarkWarningsShown(res *value.Dict) { res.Set(warningsShownKey, true) }

// WarningsShown reports a result marked by MarkWarningsShown.
func WarningsShown(res *value.Dict) bool {
	b, _ := res.Default(warningsShownKey, false).(bool)
	return b
}

// Failure is a module's fail_json raised from deep inside its body, as
// AnsibleModule.fail_json ends a Python module: helpers return it as an
// error, so that the body reads like the Python it mirrors, and the
// module's entry point turns it into its result with FailedResult. It is
// the one failure type of the module packages.
type Failure struct {
	// Result is the failed result: the module's keys, then failed and msg.
	Result *value.Dict
}

func (f *Failure) Error() string { return value.Str(f.Result.Default("msg", "")) }

// Fail is fail_json(msg=msg, **kv): the key, value pairs of kv, then
// failed and msg.
func Fail(msg string, kv ...any) *Failure {
	res := value.DictOf(kv...)
	res.Set("failed", true)
	res.Set("msg", msg)
	return &Failure{Result: res}
}

// FailDict is Fail with the keys of extra (which is not changed) in
// place of pairs.
func FailDict(extra *value.Dict, msg string) *Failure {
	f := Fail(msg)
	if extra != nil {
		res := extra.Copy()
		res.Update(f.Result)
		f.Result = res
	}
	return f
}

// FailedResult is the result of a module that ended with err: a
// Failure's result, or a result with err's text as msg for any other
// error. changed is false unless the module set it, and comes last, as
// ansible-core's modules report it.
func FailedResult(err error) *value.Dict {
	var f *Failure
	if !errors.As(err, &f) {
		f = Fail(err.Error())
	}
	if !f.Result.Has("changed") {
		f.Result.Set("changed", false)
	}
	return f.Result
}
