package run

import (
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

// Messenger is an optional Display method for verbose messages (shown
// from the given -v level), such as handler notifications.
type Messenger interface {
	Message(level int, msg string)
}

// NoHostsDisplay is an optional Display method for a play whose pattern
// matched no host.
type NoHostsDisplay interface {
	NoHostsMatched()
}

// NoHostsRemainingDisplay is an optional Display method for the NO MORE
// HOSTS LEFT banner, shown when max_fail_percentage ends a play.
type NoHostsRemainingDisplay interface {
	NoHostsRemaining()
}

// Stats are the PLAY RECAP counters of one host.
type Stats struct {
	Host                                                        string
	OK, Changed, Unreachable, Failed, Skipped, Rescued, Ignored int
}

// Display receives the run's events. Implementations format them; the
// executor never writes text itself (except through Display).
type Display interface {
	PlaybookStart(pb *playbook.Playbook)
	PlayStart(name string)
	TaskStart(name string, t *playbook.Task, handler bool)
	Result(ev *Event)
	Included(file string, host string, label any, hasItem bool)
	Retry(host, taskName string, result *value.Dict)
	Error(err error)
	Warning(msg string)
	Recap(stats []*Stats)
	// Verbosity returns the -v level.
	Verbosity() int
}

// ControllerErrorDisplay is an optional Display method for errors
// ansible-core reports on stderr rather than through the task callback,
// such as an included file or role that cannot be loaded.
type ControllerErrorDisplay interface {
	ControllerError(err error)
}

// Warning is a [WARNING] or [DEPRECATION WARNING] with its origin.
type Warning struct {
	Msg    string
	Origin *value.Pos
	Help   string
	// Note is shown under an origin with no file (Origin: <unknown>).
	Note string
	// Deprecated is the ansible-core version that removes the feature;
	// it makes the warning a deprecation.
	Deprecated string
	// Plugin names the plugin a deprecated feature belongs to ("lookup
	// plugin 'first_found'"); empty for ansible-core's own features.
	Plugin string
}

// Warner is an optional Display method for warnings that carry an
// origin, help text or a deprecation version.
type Warner interface {
	WarnAt(w Warning)
}

// message shows a verbose message when the display supports it.
func (r *Runner) message(level int, msg string) {
	if m, ok := r.Display.(Messenger); ok {
		m.Message(level, msg)
	}
}
