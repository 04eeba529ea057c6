package module

import (
	"strings"

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
// AnsibleActionFail): the task fails with Msg as the result's message and
// the error is shown below "Task failed.". Err, when set, is the error it
// was raised from, shown in a "caused by" section; Pos, when set, is the
// value the failure is about (AnsibleActionFail's obj).
type ActionFail struct {
	Msg string
	Err error
	Pos value.Pos
}

func (e *ActionFail) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *ActionFail) Unwrap() error { return e.Err }

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

// CapturedErrors is the exception of a failed result in which an action
// reports the failures of the modules it ran (gather_facts' failed
// modules): the display shows each as a sub-event, as ansible-core's
// result_dict_from_captured_errors does.
type CapturedErrors struct {
	Msg    string
	Events []string
}

func (e *CapturedErrors) Error() string { return e.Msg }
