package module

import (
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
