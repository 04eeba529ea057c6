package run

import (
	"fmt"
	"os"
	"time"

	"github.com/cfzt/cfzt-runner/engine/asyncjob"
	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// defaultPoll is the seconds between status checks of an async task that
// sets no `poll` (ansible-core's DEFAULT_POLL_INTERVAL).
const defaultPoll = 15

// AsyncKind is what an AsyncEvent reports.
type AsyncKind int

// The async events of the default callback.
const (
	// AsyncPoll is a status check that found the job still running.
	AsyncPoll AsyncKind = iota
	// AsyncOK is a polled job that finished and did not fail.
	AsyncOK
	// AsyncFailed is a polled job that failed or did not finish in time.
	AsyncFailed
)

// AsyncEvent is a status line of a polled async task.
type AsyncEvent struct {
	Kind AsyncKind
	Host string
	JID  string
	// Started and Finished are the job's state (AsyncPoll).
	Started, Finished bool
	// NoLog hides the job id, as the censored result the callback reads.
	NoLog bool
}

// asyncParams returns the task's `async` and `poll` seconds; async is 0
// for a task that runs in the foreground. A value that is not an integer
// is the task's error, as ansible-core's int field attributes report it.
func (tr *taskRun) asyncParams(sc *scope) (seconds, poll int, err error) {
	if tr.t.Async == nil || (tr.t.Info.Kind != module.KindModule && tr.t.Info.Kind != module.KindIncludeVars) {
		return 0, 0, nil
	}
	if seconds, err = tr.intKeyword("async_val", tr.t.Async, tr.t.AsyncPos, sc); err != nil {
		return 0, 0, err
	}
	poll = defaultPoll
	if tr.t.Poll != nil {
		if poll, err = tr.intKeyword("poll", tr.t.Poll, tr.t.PollPos, sc); err != nil {
			return 0, 0, err
		}
	}
	return seconds, poll, nil
}

// intKeyword renders an integer keyword written at pos and converts it
// with Python's int(), as ansible-core's int field attributes do.
func (tr *taskRun) intKeyword(name string, v any, pos value.Pos, sc *scope) (int, error) {
	v = tr.renderScalar(v, sc)
	if n, err := py.Int(v); err == nil {
		if i, ok := n.(int); ok {
			return i, nil
		}
	}
	cause := diag.Chain(fmt.Sprintf("The value %s could not be converted to 'int'.", value.Repr(v)), pos, nil)
	cause.Detached = true
	return 0, diag.Chain("Task failed.", tr.t.Pos, diag.Chain(fmt.Sprintf("Error processing keyword '%s'.", name), pos, cause))
}

// runAsync runs req as a background job, as ansible-core's action layer
// wraps a module in async_wrapper: with poll 0 the result is the job's
// id and file at once; otherwise the job is polled every poll seconds
// until it finishes or its seconds are spent.
func (tr *taskRun) runAsync(req *module.Request, seconds, poll int, sc *scope) (*value.Dict, error) {
	exe := tr.r.AsyncExecutable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	fromVar, _ := req.Host.Var(asyncjob.DirVar)
	dir := asyncjob.ResolveDir(value.Str(nonNil(fromVar)), req.Getenv)
	jid := asyncjob.NewJID()
	spec, err := asyncjob.SpecOf(req, req.BaseDir())
	if err != nil {
		return nil, err
	}
	if err := asyncjob.Launch(exe, dir, jid, seconds, spec); err != nil {
		return nil, err
	}
	if poll <= 0 {
		return value.DictOf("ansible_job_id", jid, "changed", true, "finished", false,
			"results_file", asyncjob.Path(dir, jid), "started", true), nil
	}
	return tr.pollJob(dir, jid, seconds, poll, tr.noLogIn(sc))
}

// asyncRefused is the error of an action that does not support async
// when the task sets it, nil otherwise.
func (tr *taskRun) asyncRefused(seconds int) error {
	if seconds > 0 && tr.t.Info.Flags&module.NoAsync != 0 {
		return module.ActionFail(fmt.Sprintf("This action (%s) does not support async.", tr.t.Action), nil)
	}
	return nil
}

// nonNil turns a missing variable into the empty string.
func nonNil(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// pollJob checks the job every poll seconds while seconds remain, as
// TaskExecutor._poll_async_result: each check that finds it running is
// shown; a finished job's file is removed and its result returned; a job
// still running when the time is spent fails the task.
func (tr *taskRun) pollJob(dir, jid string, seconds, poll int, noLog bool) (*value.Dict, error) {
	var status *value.Dict
	for left := seconds; left > 0; {
		select {
		case <-time.After(time.Duration(poll) * time.Second):
		case <-tr.r.ctx.Done():
			return nil, tr.r.ctx.Err()
		}
		status = asyncjob.Status(dir, jid)
		if value.Truthy(status.Default("finished", false)) || value.Truthy(status.Default("failed", false)) {
			break
		}
		left -= poll
		tr.r.Display.Async(AsyncEvent{Kind: AsyncPoll, Host: tr.host.name, JID: jid, NoLog: noLog,
			Started: value.Truthy(status.Default("started", false)), Finished: false})
	}
	if !value.Truthy(status.Default("finished", false)) {
		res := module.ActionFailed(fmt.Sprintf("async task did not complete within the requested time - %ds", seconds))
		res.Set("async_result", status)
		tr.r.Display.Async(AsyncEvent{Kind: AsyncFailed, Host: tr.host.name, JID: jid, NoLog: noLog})
		return res, nil
	}
	asyncjob.Cleanup(dir, jid)
	tr.showJobWarnings(status)
	kind := AsyncOK
	if value.Truthy(status.Default("failed", false)) {
		kind = AsyncFailed
	}
	tr.r.Display.Async(AsyncEvent{Kind: kind, Host: tr.host.name, JID: jid, NoLog: noLog})
	return status, nil
}

// showJobWarnings shows the warnings of a polled job's result when the
// job ends, before its ASYNC line, and keeps the display from showing
// them again with the task's result.
func (tr *taskRun) showJobWarnings(status *value.Dict) {
	list, _ := status.Default("warnings", nil).([]any)
	for _, w := range list {
		tr.r.warning(value.Str(w))
	}
	if len(list) > 0 {
		module.MarkWarningsShown(status)
	}
}
