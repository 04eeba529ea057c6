package asyncjob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// RunChild is the job process (ChildCommand): it reads the request file
// named in args, runs the module from reg, and writes its result to the
// job file. When the module outlives the timeout its context is cancelled
// (which kills the commands it started) and the job file reads
// "Timeout exceeded", as async_wrapper's does. The exit status is 0 unless
// the arguments are unusable.
func RunChild(ctx context.Context, reg *module.Registry, args []string) int {
	if len(args) != 3 {
		fmt.Fprintf(os.Stderr, "usage: cfzt-runner %s <jid> <timeout> <request file>\n", ChildCommand)
		return 2
	}
	jid, reqFile := args[0], args[2]
	timeout, err := strconv.Atoi(args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "bad timeout %q\n", args[1])
		return 2
	}
	path := Path(filepath.Dir(reqFile), jid)
	data, err := os.ReadFile(reqFile)
	_ = os.Remove(reqFile)
	if err != nil {
		_ = write(path, failure(err.Error()))
		return 0
	}
	var spec Spec
	if err := json.Unmarshal(data, &spec); err != nil {
		_ = write(path, failure(err.Error()))
		return 0
	}
	jobCtx, cancel := context.WithTimeout(ctx, killAfter(timeout))
	defer cancel()
	done := make(chan *value.Dict, 1)
	go func() { done <- runModule(jobCtx, reg, &spec) }()
	select {
	case res := <-done:
		_ = write(path, res)
	case <-jobCtx.Done():
		_ = write(path, value.DictOf("msg", "Timeout exceeded", "failed", true, "child_pid", os.Getpid()))
		// The cancelled module kills what it started before it returns;
		// the job waits for that rather than leave its commands behind.
		select {
		case <-done:
		case <-time.After(killGrace):
		}
	}
	return 0
}

// wrapperStep is how often async_wrapper checks its job: it kills a job
// at the first check after the time limit, so never before 5 seconds.
const wrapperStep = 5

// killAfter is when a job with a limit of timeout seconds is killed, on
// async_wrapper's 5-second steps. The executor's own polling gives up at
// the limit itself, so a polled task fails with "did not complete within
// the requested time" before the job file reads "Timeout exceeded".
func killAfter(timeout int) time.Duration {
	steps := (timeout + wrapperStep - 1) / wrapperStep
	if steps < 1 {
		steps = 1
	}
	return time.Duration(steps*wrapperStep) * time.Second
}

// killGrace bounds the wait for a cancelled module to return.
const killGrace = 5 * time.Second

// failure is the job result of a job that could not run its module.
func failure(msg string) *value.Dict {
	return value.DictOf("failed", true, "msg", msg)
}

// runModule performs spec's module and returns its result as the job
// file stores it: plain JSON data, an error as the failed result's msg.
func runModule(ctx context.Context, reg *module.Registry, spec *Spec) *value.Dict {
	m := reg.Module(spec.FQCN)
	if spec.ModuleFile != "" {
		m = reg.External()
	}
	if m == nil {
		return failure(fmt.Sprintf("The module %s was not found", spec.Action))
	}
	parsed, err := value.DecodeJSON(spec.Args)
	args, isDict := parsed.(*value.Dict)
	if err != nil || !isDict {
		return failure("the job's arguments do not decode")
	}
	host := &jobHost{spec: spec, shared: module.NewShared()}
	req := &module.Request{Ctx: ctx, Name: spec.Name, FQCN: spec.FQCN, Action: spec.Action, Args: args,
		Check: spec.Check, Diff: spec.Diff, Verbosity: spec.Verbosity, Env: spec.Env, BaseEnv: spec.BaseEnv,
		ModuleFile: spec.ModuleFile, NoLog: spec.NoLog, ModuleUtils: spec.ModuleUtils,
		Host: host}
	res, err := m.Run(req)
	if err != nil {
		res = failure(err.Error())
	} else if res == nil {
		res = module.Result(false)
	}
	res = plainResult(res)
	if len(host.warnings) > 0 && !res.Has("warnings") {
		res.Set("warnings", host.warnings)
	}
	return res
}

// plainResult makes a result storable as JSON: an exception value (an
// error) becomes the msg a failed result shows, as the module's JSON
// output would carry it.
func plainResult(res *value.Dict) *value.Dict {
	out := value.NewDict(res.Len())
	res.Each(func(k string, v any) bool {
		if err, isErr := v.(error); isErr {
			if !res.Has("msg") {
				out.Set("msg", err.Error())
			}
			return true
		}
		out.Set(k, v)
		return true
	})
	if !out.Has("failed") {
		rc, hasRC := out.Get("rc")
		out.Set("failed", hasRC && value.Str(rc) != "0")
	}
	return out
}

// errNoTemplating is what a module in a job gets when it asks to render:
// the task's variables stay with the run that started the job.
var errNoTemplating = errors.New("templating is not available to a module running as an async job")

// jobHost is the module.Host of a background job: the host's name and the
// directories of the task, without the run's variables. The warnings a
// module gives go to the job's result, as a module's JSON output carries
// them.
type jobHost struct {
	spec     *Spec
	shared   *module.Shared
	warnings []any
}

func (h *jobHost) Name() string                            { return h.spec.HostName }
func (h *jobHost) Render(string) (any, error)              { return nil, errNoTemplating }
func (h *jobHost) Eval(string) (any, error)                { return nil, errNoTemplating }
func (h *jobHost) EvalLenient(string) (any, string, error) { return nil, "", errNoTemplating }
func (h *jobHost) Cond(any, value.Pos) (bool, error)       { return false, errNoTemplating }
func (h *jobHost) Deprecate(string, string, value.Pos)     {}
func (h *jobHost) ArgPos(string) value.Pos                 { return value.Pos{} }
func (h *jobHost) KeyPos(string) value.Pos                 { return value.Pos{} }
func (h *jobHost) ArgItemPos(string, int) value.Pos        { return value.Pos{} }
func (h *jobHost) TaskDir() string                         { return h.spec.TaskDir }
func (h *jobHost) Stdout() io.Writer                       { return io.Discard }
func (h *jobHost) Shared() *module.Shared                  { return h.shared }
func (h *jobHost) RenderFile(string, module.FileTemplate) (string, error) {
	return "", errNoTemplating
}

// Warn keeps msg for the job's result.
func (h *jobHost) Warn(msg string, _ value.Pos) { h.warnings = append(h.warnings, msg) }

// Var answers playbook_dir, the one variable modules read to resolve
// relative paths (Request.BaseDir).
func (h *jobHost) Var(name string) (any, bool) {
	if name == "playbook_dir" && h.spec.PlaybookDir != "" {
		return h.spec.PlaybookDir, true
	}
	return nil, false
}

// FindFile finds an absolute name, or one relative to the task's
// directory or the playbook's.
func (h *jobHost) FindFile(_, name string) (string, []string, bool) {
	if filepath.IsAbs(name) {
		_, err := os.Stat(name)
		return name, nil, err == nil
	}
	var tried []string
	for _, dir := range []string{h.spec.TaskDir, h.spec.PlaybookDir} {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		tried = append(tried, p)
		if _, err := os.Stat(p); err == nil {
			return p, tried, true
		}
	}
	return "", tried, false
}
