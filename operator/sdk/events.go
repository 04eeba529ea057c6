package sdk

import (
	"fmt"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// LogLevel is --ansible-log-events: which task events are logged.
type LogLevel int

// The levels of --ansible-log-events.
const (
	// LogTasks logs one line per task (debug results with their message,
	// failures as errors); set_fact tasks are not logged.
	LogTasks LogLevel = iota
	// LogEverything logs every result, loop items and set_fact included,
	// with the result.
	LogEverything
	// LogNothing logs no task.
	LogNothing
)

// ParseLogLevel reads Nothing, Tasks or Everything (any case). Like
// ansible-operator, anything else is Tasks, with an error to report.
func ParseLogLevel(s string) (LogLevel, error) {
	switch strings.ToLower(s) {
	case "everything":
		return LogEverything, nil
	case "nothing":
		return LogNothing, nil
	case "tasks", "":
		return LogTasks, nil
	}
	return LogTasks, fmt.Errorf("--ansible-log-events flag value '%s' not recognized. Must be one of: Tasks, Everything, Nothing", s)
}

// Outcome is what one run of a role or playbook reports.
type Outcome struct {
	// Stats are localhost's recap counters; nil when the run ended before
	// its recap (the playbook did not load).
	Stats *run.Stats
	// Failures are the messages of failed tasks that were neither ignored
	// nor rescued, in order.
	Failures []string
	// RequeueAfter was set by operator_sdk.util.requeue_after.
	RequeueAfter time.Duration
	Requeue      bool
	// Completed is when the recap came.
	Completed time.Time
	// Err is a failure to load or start the run.
	Err error
}

var _ run.Display = (*jobDisplay)(nil)

// jobDisplay is the run.Display of one reconcile: it collects the Outcome
// and logs the run's tasks at the chosen level.
type jobDisplay struct {
	log       *Logger
	level     LogLevel
	verbosity int
	kv        []any // name, namespace, gvk, job
	now       func() time.Time
	out       Outcome
}

func (d *jobDisplay) PlaybookStart(*playbook.Playbook)   {}
func (d *jobDisplay) PlayStart(string)                   {}
func (d *jobDisplay) Included(string, string, any, bool) {}
func (d *jobDisplay) Retry(string, string, *value.Dict)  {}
func (d *jobDisplay) Async(run.AsyncEvent)               {}
func (d *jobDisplay) Verbosity() int                     { return d.verbosity }
func (d *jobDisplay) TaskStart(name string, t *playbook.Task, _ bool) {
	if d.level == LogEverything {
		d.log.Info("logging_event_handler", "", append(d.fields("playbook_on_task_start"), "task", name, "EventData.Name", name)...)
	}
}

func (d *jobDisplay) fields(event string) []any {
	return append(append([]any{}, d.kv...), "event_type", event)
}

// Error implements run.Display: a task's error comes with its result,
// which Result counts (or not, when ignored) and logs, as
// ansible-operator only reads runner_on_failed events; a loop's items'
// errors are not the task's failure either.
func (d *jobDisplay) Error(error) {}

// ControllerError records a failure the executor reports outside a task
// result (a file or role that does not load).
func (d *jobDisplay) ControllerError(err error) {
	d.out.Failures = append(d.out.Failures, err.Error())
	d.log.Error("logging_event_handler", "[playbook error]", err, d.fields("error")...)
}

// Warn implements run.Display: the message is logged, without origin.
func (d *jobDisplay) Warn(w *diag.Diagnostic) { d.warning(w.Summary) }

// NoHostsMatched implements run.Display, as a warning.
func (d *jobDisplay) NoHostsMatched() { d.warning("skipping: no hosts matched") }

// NoHostsRemaining implements run.Display: the play's end shows in its
// results.
func (d *jobDisplay) NoHostsRemaining() {}

// CustomStats implements run.Display: set_stats data is not logged.
func (d *jobDisplay) CustomStats([]string, map[string]*value.Dict, *value.Dict) {}

// Message implements run.Display: verbose messages are not logged.
func (d *jobDisplay) Message(int, string) {}

func (d *jobDisplay) warning(msg string) {
	if d.level != LogNothing {
		d.log.Info("logging_event_handler", "[WARNING]: "+msg, d.fields("warning")...)
	}
}

// Recap keeps localhost's counters (the only host an operator's runs
// have); failures that were all rescued are not failures.
func (d *jobDisplay) Recap(stats []*run.Stats) {
	d.out.Completed = d.now()
	for _, s := range stats {
		if s.Host == "localhost" || d.out.Stats == nil {
			c := *s
			d.out.Stats = &c
		}
	}
	if d.out.Stats != nil && d.out.Stats.Failed == 0 && d.out.Stats.Unreachable == 0 {
		d.out.Failures = nil
	}
}

// failedMessage is ansible-operator's message for a failed task: the
// result's msg, else "unknown playbook failure".
func failedMessage(res *value.Dict) string {
	if res != nil {
		if m, ok := res.Get("msg"); ok {
			if s, ok := m.(string); ok {
				return s
			}
		}
	}
	return "unknown playbook failure"
}

var statusNames = map[run.Status]string{run.StatusOK: "ok", run.StatusChanged: "changed", run.StatusSkipped: "skipped", run.StatusFailed: "failed"}

func (d *jobDisplay) Result(ev *run.Event) {
	failed := ev.Status == run.StatusFailed && !ev.Ignored
	if failed && !ev.Item {
		d.out.Failures = append(d.out.Failures, failedMessage(ev.Result))
	}
	if ev.Status != run.StatusFailed && !ev.Item && ev.Task != nil && ev.Task.Info.Flags&module.Requeues != 0 {
		if p, err := time.ParseDuration(value.Str(ev.Result.Default("period", ""))); err == nil {
			d.out.RequeueAfter, d.out.Requeue = p, true
		}
	}
	d.logResult(ev, failed)
}

// logResult writes the log line of a result, as the level asks.
func (d *jobDisplay) logResult(ev *run.Event, failed bool) {
	if d.level == LogNothing {
		return
	}
	module := ""
	if ev.Task != nil {
		module = ev.Task.Info.Name
	}
	event := "runner_on_" + statusNames[ev.Status]
	if ev.Item {
		event = "runner_item_on_" + statusNames[ev.Status]
	}
	kv := append(d.fields(event), "task", ev.Name, "EventData.Task", ev.Name, "EventData.TaskAction", module)
	if d.level == LogEverything {
		res := any("the output has been hidden due to the fact that 'no_log: true' was specified for this result")
		if !ev.NoLog {
			res = value.ToGo(ev.Result)
		}
		d.log.Info("logging_event_handler", "", append(kv, "EventData.Result", res)...)
		return
	}
	switch {
	case ev.Item || module == "set_fact":
	case failed:
		msg := failedMessage(ev.Result)
		if ev.NoLog {
			msg = "the output has been hidden due to the fact that 'no_log: true' was specified for this result"
		}
		d.log.Error("logging_event_handler", "[playbook task failed]", nil, append(kv, "EventData.Message", msg)...)
	case module == "debug" && !ev.NoLog:
		d.log.Info("logging_event_handler", "[playbook debug]", append(kv, "EventData.Message", debugMessage(ev.Result))...)
	default:
		d.log.Info("logging_event_handler", "[playbook task "+statusNames[ev.Status]+"]", kv...)
	}
}

// debugMessage is a debug result's msg, or its var's value.
func debugMessage(res *value.Dict) any {
	if res == nil {
		return nil
	}
	if m, ok := res.Get("msg"); ok {
		return value.ToGo(m)
	}
	var out any
	res.Each(func(k string, v any) bool {
		if !strings.HasPrefix(k, "_ansible") && k != "changed" {
			out = value.ToGo(v)
			return false
		}
		return true
	})
	return out
}
