package display

import (
	"fmt"
	"io"
	"time"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// PosixJSON is ansible.posix's json stdout callback: nothing is shown
// while the playbook runs; at its end one JSON document has every play
// with its tasks and each host's result, the stats and the custom stats.
// Warnings and errors outside results are shown by the Default display
// it wraps (Messages), as ansible-core's display shows them.
type PosixJSON struct {
	// Messages shows warnings, controller errors and verbose messages.
	Messages *Default
	Out      io.Writer
	// Indent is json_indent (<= 0: one line).
	Indent int
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	book          *playbook.Playbook
	playIndex, id int
	plays         []*value.Dict
	stats         []*run.Stats
	custom        *value.Dict
	global        *value.Dict
}

var (
	_ run.Display    = (*PosixJSON)(nil)
	_ run.StatsEnder = (*PosixJSON)(nil)
)

func (j *PosixJSON) now() string {
	now := time.Now
	if j.Now != nil {
		now = j.Now
	}
	// datetime.utcnow().isoformat() + "Z"
	return now().UTC().Format("2006-01-02T15:04:05.000000") + "Z"
}

// uuid is a per-run identifier shaped like ansible-core's task uuids.
func (j *PosixJSON) uuid() string {
	j.id++
	return fmt.Sprintf("%08x-0000-0000-0000-%012x", 0xcf2700, j.id)
}

func posPath(p value.Pos) string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// PlaybookStart implements run.Display.
func (j *PosixJSON) PlaybookStart(pb *playbook.Playbook) {
	j.Messages.Preamble()
	j.book, j.playIndex = pb, 0
}

// PlayStart implements run.Display.
func (j *PosixJSON) PlayStart(name string) {
	path := ""
	if j.book != nil && j.playIndex < len(j.book.Plays) {
		path = posPath(j.book.Plays[j.playIndex].Pos)
	}
	j.playIndex++
	play := value.DictOf("name", name, "id", j.uuid(), "path", path, "duration", value.DictOf("start", j.now()))
	j.plays = append(j.plays, value.DictOf("play", play, "tasks", []any{}))
}

// TaskStart implements run.Display: the linear strategy's tasks are
// recorded as they start (lockstep).
func (j *PosixJSON) TaskStart(name string, t *playbook.Task, handler bool) {
	if len(j.plays) == 0 {
		return
	}
	p := j.plays[len(j.plays)-1]
	task := value.DictOf("name", name, "id", j.uuid(), "path", posPath(t.Pos), "duration", value.DictOf("start", j.now()))
	tasks, _ := p.Default("tasks", []any{}).([]any)
	p.Set("tasks", append(tasks, value.DictOf("task", task, "hosts", value.NewDict(1))))
}

// Result implements run.Display: each host's result, with the task's
// action and failed or skipped marked.
func (j *PosixJSON) Result(ev *run.Event) {
	if ev.Item || len(j.plays) == 0 {
		return
	}
	p := j.plays[len(j.plays)-1]
	tasks, _ := p.Default("tasks", []any{}).([]any)
	if len(tasks) == 0 {
		return
	}
	entry := tasks[len(tasks)-1].(*value.Dict)
	var res *value.Dict
	if censored(ev) {
		res = value.NewDict(4)
		for _, k := range preserved {
			if v, ok := ev.Result.Get(k); ok {
				res.Set(k, v)
			}
		}
		res.Set("censored", "the output has been hidden due to the fact that 'no_log: true' was specified for this result")
	} else {
		res = value.NewDict(ev.Result.Len() + 2)
		ev.Result.Each(func(k string, v any) bool {
			// ansible-core's result processing has taken these out by the
			// time callbacks see the result.
			if k == "_ansible_facts_cacheable" || k == "_ansible_notify" || (k == "failed" || k == "skipped") && v == false {
				return true
			}
			if l, ok := v.([]any); ok && k == "results" && ev.Loop {
				v = loopItemsJSON(l)
			}
			res.Set(k, resultJSON(v))
			return true
		})
	}
	if !res.Has("_ansible_no_log") && !ev.Loop {
		res.Set("_ansible_no_log", ev.NoLog)
	}
	switch {
	case ev.Status == run.StatusFailed && !value.Truthy(ev.Result.Default("unreachable", false)):
		res.Set("failed", true)
	case ev.Status == run.StatusSkipped:
		res.Set("skipped", true)
	}
	res.Set("action", ev.Task.Action)
	hosts := entry.Default("hosts", value.NewDict(1)).(*value.Dict)
	hosts.Set(ev.Host, Mask(res))
	end := j.now()
	entry.Default("task", value.NewDict(0)).(*value.Dict).Default("duration", value.NewDict(0)).(*value.Dict).Set("end", end)
	p.Default("play", value.NewDict(0)).(*value.Dict).Default("duration", value.NewDict(0)).(*value.Dict).Set("end", end)
}

// resultJSON is a result value as the JSON encoder sees it: an error
// the executor attached is the traceback ansible-core cannot give.
func resultJSON(v any) any {
	switch x := v.(type) {
	case *run.ResultError:
		return "(traceback unavailable)"
	case *value.Dict:
		out := value.NewDict(x.Len())
		x.Each(func(k string, e any) bool { out.Set(k, resultJSON(e)); return true })
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = resultJSON(e)
		}
		return out
	}
	return v
}

// Recap implements run.Display: the stats are written with the
// document (StatsShown).
func (j *PosixJSON) Recap(stats []*run.Stats) { j.stats = stats }

// CustomStats implements run.Display.
func (j *PosixJSON) CustomStats(hosts []string, perHost map[string]*value.Dict, runStats *value.Dict) {
	j.custom = value.NewDict(len(hosts))
	for _, h := range hosts {
		j.custom.Set(h, perHost[h])
	}
	j.global = runStats
}

// StatsShown implements run.StatsEnder: the document.
func (j *PosixJSON) StatsShown() {
	summary := value.NewDict(len(j.stats))
	for _, s := range j.stats {
		summary.Set(s.Host, value.DictOf("changed", s.Changed, "failures", s.Failed, "ignored", s.Ignored, "ok", s.OK,
			"rescued", s.Rescued, "skipped", s.Skipped, "unreachable", s.Unreachable))
	}
	plays := make([]any, len(j.plays))
	for i, p := range j.plays {
		plays[i] = p
	}
	custom, global := j.custom, j.global
	if custom == nil {
		custom = value.NewDict(0)
	}
	if global == nil {
		global = value.NewDict(0)
	}
	doc := value.DictOf("plays", plays, "stats", summary, "custom_stats", custom, "global_custom_stats", global)
	opts := value.JSONOptions{SortKeys: true}
	if j.Indent > 0 {
		opts.Indent = j.Indent
	}
	fmt.Fprintln(j.Out, value.JSON(doc, opts))
	j.plays, j.stats, j.custom, j.global = nil, nil, nil, nil
}

// NoHostsMatched implements run.Display.
func (j *PosixJSON) NoHostsMatched() {}

// NoHostsRemaining implements run.Display.
func (j *PosixJSON) NoHostsRemaining() {}

// Included implements run.Display.
func (j *PosixJSON) Included(string, string, any, bool) {}

// Retry implements run.Display.
func (j *PosixJSON) Retry(string, string, *value.Dict) {}

// Async implements run.Display.
func (j *PosixJSON) Async(run.AsyncEvent) {}

// Message implements run.Display.
func (j *PosixJSON) Message(level int, msg string) { j.Messages.Message(level, msg) }

// Warn implements run.Display.
func (j *PosixJSON) Warn(w *diag.Diagnostic) { j.Messages.Warn(w) }

// Error implements run.Display: a task's error is in its result.
func (j *PosixJSON) Error(error) {}

// ControllerError implements run.Display.
func (j *PosixJSON) ControllerError(err error) { j.Messages.ControllerError(err) }

// Verbosity implements run.Display.
func (j *PosixJSON) Verbosity() int { return j.Messages.Verbosity() }

// loopItemsJSON is a loop's item results as callbacks see them: without
// the executor's bookkeeping keys, each with its _ansible_no_log.
func loopItemsJSON(items []any) []any {
	out := make([]any, len(items))
	for i, it := range items {
		d, ok := it.(*value.Dict)
		if !ok {
			out[i] = it
			continue
		}
		c := value.NewDict(d.Len() + 1)
		d.Each(func(k string, v any) bool {
			if k != "_ansible_ignore_errors" && k != "_ansible_item_result" {
				c.Set(k, v)
			}
			return true
		})
		if !c.Has("_ansible_no_log") {
			c.Set("_ansible_no_log", false)
		}
		out[i] = c
	}
	return out
}
