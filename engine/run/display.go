package run

import (
	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Status of a task result.
type Status int

// Result statuses, as the default callback distinguishes them.
const (
	StatusOK Status = iota
	StatusChanged
	StatusSkipped
	StatusFailed
	// StatusUnreachable is a host the task could not reach (for
	// cfzt-runner: one that asks for a connection other than local).
	StatusUnreachable
)

// Event is one task result for the display.
type Event struct {
	Host    string
	Task    *playbook.Task
	Name    string // rendered task name
	Status  Status
	Result  *value.Dict
	Item    bool // a loop item result
	Ignored bool
	NoLog   bool
	// Loop marks the aggregate result of a loop task; its items were
	// shown as they finished.
	Loop bool
	// Delegate is the rendered delegate_to host, if any.
	Delegate string
	// Diff is set when the task runs with --diff (or `diff: true`).
	Diff bool
}

// Stats are the PLAY RECAP counters of one host.
type Stats struct {
	Host                                                        string
	OK, Changed, Unreachable, Failed, Skipped, Rescued, Ignored int
}

// Display receives the run's events and renders them. The executor never
// writes text itself; every display implements every method, so that a
// display wrapped or replaced shows the same events (one that has nothing
// to show for an event does nothing).
type Display interface {
	PlaybookStart(pb *playbook.Playbook)
	PlayStart(name string)
	// NoHostsMatched is a play whose pattern matched no host.
	NoHostsMatched()
	// NoHostsRemaining is the NO MORE HOSTS LEFT banner, shown when
	// max_fail_percentage ends a play.
	NoHostsRemaining()
	TaskStart(name string, t *playbook.Task, handler bool)
	Result(ev *Event)
	Included(file string, host string, label any, hasItem bool)
	Retry(host, taskName string, result *value.Dict)
	// Async is a status line of a polled async task (ASYNC POLL, ASYNC
	// OK, ASYNC FAILED).
	Async(ev AsyncEvent)
	// Message is a verbose message shown from the given -v level, such as
	// a handler notification.
	Message(level int, msg string)
	// Warn is a warning or a deprecation, with its origin and help.
	Warn(w *diag.Diagnostic)
	// Error is a task's error, which ansible-core's callback prints with
	// the task's result.
	Error(err error)
	// ControllerError is an error ansible-core reports on stderr rather
	// than through the task callback, such as an included file or role
	// that cannot be loaded.
	ControllerError(err error)
	Recap(stats []*Stats)
	// CustomStats is the set_stats data of the run, shown after the recap
	// when SHOW_CUSTOM_STATS is on: perHost by host name, run for the
	// stats set without per_host.
	CustomStats(hosts []string, perHost map[string]*value.Dict, run *value.Dict)
	// Verbosity returns the -v level.
	Verbosity() int
}

// StatsEnder is a display told when a playbook's stats are all shown
// (after Recap and CustomStats): aggregate callbacks add their summaries
// then, and the json callback writes its document.
type StatsEnder interface {
	StatsShown()
}

// Observer is told of every task result beside the display, without
// rendering anything: the operator counts results for its metrics.
type Observer interface {
	Observe(ev *Event)
}

// report gives a task result to the observer and the display.
func (r *Runner) report(ev *Event) {
	if r.Observer != nil {
		r.Observer.Observe(ev)
	}
	r.Display.Result(ev)
}

// warning shows a warning without origin.
func (r *Runner) warning(msg string) { r.warn(diag.Warn(msg, nil)) }
