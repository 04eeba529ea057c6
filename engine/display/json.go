package display

import (
	"io"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// JSON is the `--log-format json` display: one JSON object per line for
// log pipelines. Every object starts with the operator log fields both
// operator modes share (docs/install.md, "Logs"): "level" (info, warn or
// error), "ts" (Unix seconds, as ansible-operator's zap logs write it) and
// "msg", then "time" (RFC 3339, UTC) and "event"; a task result is event
// "result", with its "task" and, when its loop item is a Kubernetes
// object, the object's "key" (namespace/name). Results go through the same no_log
// censoring and secret masking as the default display. JSON is safe for
// concurrent use, so a runtime may write its own events (Event) beside
// the executor's.
type JSON struct {
	Out     io.Writer
	Verbose int
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu       sync.Mutex
	playbook string
	play     string
}

var _ run.Display = (*JSON)(nil)

// Verbosity implements run.Display.
func (j *JSON) Verbosity() int { return j.Verbose }

// Event writes one event with extra fields, in order; fields may be nil.
func (j *JSON) Event(name string, fields *value.Dict) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.emit(name, fields)
}

// emit writes one line; the caller holds mu.
func (j *JSON) emit(name string, fields *value.Dict) {
	now := time.Now
	if j.Now != nil {
		now = j.Now
	}
	t := now()
	ev := value.NewDict(8)
	ev.Set("level", eventLevel(name, fields))
	ev.Set("ts", LogTS(t))
	ev.Set("msg", eventMsg(name, fields))
	ev.Set("time", t.UTC().Format(time.RFC3339Nano))
	ev.Set("event", name)
	if fields != nil {
		fields.Each(func(k string, v any) bool {
			if k == "msg" { // already written, as text
				return true
			}
			ev.Set(k, jsonSafe(v))
			return true
		})
	}
	io.WriteString(j.Out, value.JSON(ev, value.JSONOptions{})+"\n")
}

// PlaybookStart implements run.Display.
func (j *JSON) PlaybookStart(pb *playbook.Playbook) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.playbook = filepath.Base(pb.Path)
	j.emit("playbook_start", value.DictOf("playbook", pb.Path))
}

// PlayStart implements run.Display.
func (j *JSON) PlayStart(name string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.play = name
	j.emit("play_start", value.DictOf("playbook", j.playbook, "play", name))
}

// TaskStart implements run.Display. Task starts are not events: each
// result names its task.
func (j *JSON) TaskStart(string, *playbook.Task, bool) {}

var statusWords = map[run.Status]string{run.StatusOK: "ok", run.StatusChanged: "changed", run.StatusSkipped: "skipped", run.StatusFailed: "failed", run.StatusUnreachable: "unreachable"}

// Result implements run.Display. Like the default display it leaves out
// the successful results of include_tasks/include_role (their "included"
// events stand for them) and the successful aggregate result of a loop
// task, whose items already had their own events. A failed or skipped
// aggregate is emitted, marked "loop": true.
func (j *JSON) Result(ev *run.Event) {
	include := ev.Task.Info.Kind == module.KindIncludeTasks || ev.Task.Info.Kind == module.KindIncludeRole
	if (include || ev.Loop) && (ev.Status == run.StatusOK || ev.Status == run.StatusChanged) {
		return
	}
	f := value.NewDict(12)
	f.Set("playbook", j.playbook)
	f.Set("play", j.play)
	f.Set("host", ev.Host)
	f.Set("task", strings.TrimSpace(ev.Name))
	f.Set("action", ev.Task.Action)
	f.Set("module", ev.Task.Module)
	if ev.Task.Role != nil {
		f.Set("role", ev.Task.Role.Name())
	}
	if !ev.Task.Pos.IsZero() {
		f.Set("path", ev.Task.Pos.String())
	}
	if ev.Delegate != "" && ev.Delegate != ev.Host {
		f.Set("delegate_to", ev.Delegate)
	}
	f.Set("status", statusWords[ev.Status])
	if ev.Loop {
		f.Set("loop", true)
	}
	if ev.Ignored {
		f.Set("ignored", true)
	}
	if ev.Item {
		f.Set("item", itemLabel(ev))
		if k := objectKey(ev); k != "" {
			f.Set("key", k)
		}
	}
	res := (&Default{}).cleanResult(ev)
	if m, ok := res.Get("msg"); ok {
		f.Set("msg", Mask(m))
	}
	if ev.Status == run.StatusFailed || verbose(ev, j.Verbose) {
		f.Set("result", j.filter(res, ev.Diff))
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.emit("result", f)
}

// filter drops what the default display's dump drops and masks secrets.
func (j *JSON) filter(res *value.Dict, diff bool) any {
	out := value.NewDict(res.Len())
	res.Each(func(k string, v any) bool {
		switch {
		case strings.HasPrefix(k, "_ansible"):
		case k == "invocation" && j.Verbose < 3:
		case k == "diff" && !diff && j.Verbose < 3:
		case k == "exception" && j.Verbose < 3:
		default:
			out.Set(k, v)
		}
		return true
	})
	return Mask(out)
}

// Included implements run.Display.
func (j *JSON) Included(file, host string, label any, hasItem bool) {
	f := value.DictOf("file", file, "host", host)
	if hasItem {
		f.Set("item", value.Str(label))
	}
	j.Event("included", f)
}

// Async implements run.Display: one "async_poll", "async_ok" or
// "async_failed" event per status line of a polled async task.
func (j *JSON) Async(ev run.AsyncEvent) {
	f := value.DictOf("host", ev.Host)
	if !ev.NoLog {
		f.Set("jid", ev.JID)
	}
	switch ev.Kind {
	case run.AsyncPoll:
		f.Set("started", ev.Started)
		f.Set("finished", ev.Finished)
		j.Event("async_poll", f)
	case run.AsyncOK:
		j.Event("async_ok", f)
	default:
		j.Event("async_failed", f)
	}
}

// Retry implements run.Display.
func (j *JSON) Retry(host, taskName string, res *value.Dict) {
	attempts, _ := value.AsInt(res.Default("attempts", 0))
	retries, _ := value.AsInt(res.Default("retries", 0))
	f := value.DictOf("host", host, "task", taskName, "retries_left", retries-attempts)
	if value.Truthy(res.Default("_ansible_no_log", false)) {
		f.Set("result", "(censored due to no_log)")
	} else if j.Verbose >= 2 {
		f.Set("result", Mask(stripForRetry(res)))
	}
	j.Event("retry", f)
}

// Error implements run.Display; the text is the default display's, without
// colour.
func (j *JSON) Error(err error) {
	j.Event("error", value.DictOf("msg", strings.TrimRight((&Default{}).FormatError(err), "\n")))
}

// Message implements run.Display: verbose messages (such as handler
// notifications) shown from their -v level.
func (j *JSON) Message(level int, msg string) {
	if j.Verbose >= level {
		j.Event("message", value.DictOf("msg", msg))
	}
}

// Warn implements run.Display: the message only (a deprecation's without
// its version).
func (j *JSON) Warn(w *diag.Diagnostic) {
	j.Event("warning", value.DictOf("msg", w.Summary))
}

// NoHostsMatched implements run.Display, as a warning.
func (j *JSON) NoHostsMatched() {
	j.Event("warning", value.DictOf("msg", "skipping: no hosts matched"))
}

// NoHostsRemaining implements run.Display: the end of the play shows in
// its results.
func (j *JSON) NoHostsRemaining() {}

// CustomStats implements run.Display: set_stats data is not logged.
func (j *JSON) CustomStats([]string, map[string]*value.Dict, *value.Dict) {}

// ControllerError implements run.Display: an error event, as Error.
func (j *JSON) ControllerError(err error) { j.Error(err) }

// Recap implements run.Display: one event with every host's counters.
func (j *JSON) Recap(stats []*run.Stats) {
	hosts := value.NewDict(len(stats))
	for _, s := range stats {
		hosts.Set(s.Host, value.DictOf("ok", s.OK, "changed", s.Changed, "unreachable", s.Unreachable,
			"failed", s.Failed, "skipped", s.Skipped, "rescued", s.Rescued, "ignored", s.Ignored))
	}
	j.Event("recap", value.DictOf("playbook", j.playbook, "hosts", hosts))
}

// jsonSafe replaces the float values strict JSON parsers reject (NaN and
// the infinities, which Python's json.dumps writes bare) with strings.
func jsonSafe(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return value.FormatFloat(x)
		}
	case *value.Dict:
		out := value.NewDict(x.Len())
		x.Each(func(k string, e any) bool {
			out.Set(k, jsonSafe(e))
			return true
		})
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonSafe(e)
		}
		return out
	}
	return v
}

// LogTS is a log line's "ts": Unix seconds with microseconds, as zap's
// epoch time encoder (ansible-operator's default) writes it.
func LogTS(t time.Time) float64 {
	return math.Round(float64(t.UnixNano())/1e3) / 1e6
}

// eventLevel is an event's log level: error for an error event, a failed
// (not ignored) or unreachable result and a runtime event that carries an
// error; warn for a warning; info otherwise.
func eventLevel(name string, f *value.Dict) string {
	switch name {
	case "error":
		return "error"
	case "warning":
		return "warn"
	case "result":
		st := f.Default("status", "")
		if st == "unreachable" || (st == "failed" && !value.Truthy(f.Default("ignored", false))) {
			return "error"
		}
		return "info"
	}
	if f != nil && f.Has("error") {
		return "error"
	}
	return "info"
}

// eventMsg is an event's "msg": its own msg field (as text), else for a
// result its status and task, else the event's name.
func eventMsg(name string, f *value.Dict) string {
	if f != nil {
		if m, ok := f.Get("msg"); ok {
			if s, ok := m.(string); ok {
				return s
			}
			return value.Str(m)
		}
	}
	if name == "result" {
		return value.Str(f.Default("status", "")) + ": " + value.Str(f.Default("task", ""))
	}
	return name
}

// objectKey is "namespace/name" (or "name") of a loop item that is a
// Kubernetes object (it has apiVersion, kind and metadata.name): the
// object a result is about. A no_log result names nothing.
func objectKey(ev *run.Event) string {
	if ev.NoLog || ev.Result == nil {
		return ""
	}
	item, _ := ev.Result.Default("item", nil).(*value.Dict)
	if item == nil || !item.Has("kind") || !item.Has("apiVersion") {
		return ""
	}
	md, _ := item.Default("metadata", nil).(*value.Dict)
	if md == nil {
		return ""
	}
	name, _ := md.Default("name", "").(string)
	if name == "" {
		return ""
	}
	if ns, _ := md.Default("namespace", "").(string); ns != "" {
		return ns + "/" + name
	}
	return name
}
