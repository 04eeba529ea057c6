package run

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules"
)

// taskRun is one task on one host.
type taskRun struct {
	r     *Runner
	ps    *playState
	f     *frame
	t     *playbook.Task
	host  *hostState
	sc    *scope
	opt   template.Options
	name  string
	noLog bool
}

func (r *Runner) fqcn(t *playbook.Task) string {
	if strings.Contains(t.Action, ".") {
		return t.Action
	}
	switch t.Module {
	case "k8s", "k8s_info", "k8s_exec", "k8s_log", "k8s_json_patch":
		return "kubernetes.core." + t.Module
	case "k8s_status":
		return "operator_sdk.util." + t.Module
	}
	return "ansible.builtin." + t.Module
}

// runTask runs t on every active host, in order.
func (r *Runner) runTask(ps *playState, f *frame, t *playbook.Task) {
	if !r.startReached {
		if t.Name != r.Opts.StartAt {
			return
		}
		r.startReached = true
	}
	if !r.tagsMatch(f.tags(t), t) {
		return
	}
	banner := false
	for _, h := range ps.hosts {
		hs := r.host(h)
		if hs.failed || hs.ended {
			continue
		}
		tr := r.newTaskRun(ps, f, t, hs)
		if !banner {
			r.Display.TaskStart(tr.name, t, false)
			banner = true
		}
		tr.run()
		if ps.endPlay {
			return
		}
	}
}

func (r *Runner) newTaskRun(ps *playState, f *frame, t *playbook.Task, hs *hostState) *taskRun {
	tr := &taskRun{r: r, ps: ps, f: f, t: t, host: hs}
	tr.sc = r.taskScope(ps, f, t, hs)
	tr.opt = template.Options{SearchPaths: searchPaths(t)}
	tr.name = tr.renderName()
	nl := f.keyword(t, "no_log", func(k *playbook.Keywords) any { return k.NoLog })
	tr.noLog = tr.boolOf(nl)
	return tr
}

func searchPaths(t *playbook.Task) []string {
	var out []string
	if t.Role != nil {
		out = append(out, t.Role.Role.Path)
	}
	return append(out, t.Dir)
}

// renderName renders the task name for the banner, as Ansible does when
// every variable it needs is available.
func (tr *taskRun) renderName() string {
	name := tr.t.Name
	if name == "" {
		name = tr.t.Action
	}
	if template.HasMarkers(name) {
		if v, err := tr.r.Engine.Render(name, tr.sc, tr.opt); err == nil {
			name = value.Str(v)
		}
	}
	if tr.t.Role != nil {
		name = tr.t.Role.Name() + " : " + name
	}
	return name
}

func (tr *taskRun) boolOf(v any) bool {
	if s, ok := v.(string); ok && template.HasMarkers(s) {
		r, err := tr.r.Engine.Render(s, tr.sc, tr.opt)
		if err != nil {
			return false
		}
		v = r
	}
	if s, ok := v.(string); ok {
		switch strings.ToLower(s) {
		case "yes", "true", "on", "1":
			return true
		}
		return false
	}
	return value.Truthy(v)
}

func (tr *taskRun) run() {
	t := tr.t
	ok, err := tr.evalConds(tr.f.conds(t), tr.sc)
	if err != nil && !t.HasLoop {
		tr.fail(chain("Task failed", t.Pos, err), nil)
		return
	}
	if !t.HasLoop && !ok {
		tr.skip(nil)
		return
	}
	switch t.Module {
	case "meta":
		tr.meta()
		return
	case "include_tasks", "include_role":
		if t.HasLoop {
			tr.runLoop()
			return
		}
		tr.include(nil)
		return
	}
	if t.HasLoop {
		tr.runLoop()
		return
	}
	res, err := tr.execute(tr.sc)
	if err != nil {
		tr.fail(err, nil)
		return
	}
	tr.finish(res)
}

// execute runs the module once with retries, and applies changed_when and
// failed_when. sc is the scope (with the loop item for loops).
func (tr *taskRun) execute(sc *scope) (*value.Dict, error) {
	t := tr.t
	retries, delay := 0, 5*time.Second
	if len(t.Until) > 0 {
		retries = 3
		if t.Retries != nil {
			if n, ok := value.AsInt(tr.renderScalar(t.Retries, sc)); ok {
				retries = n
			}
		}
		if t.Delay != nil {
			if n, ok := value.AsFloat(tr.renderScalar(t.Delay, sc)); ok {
				delay = time.Duration(n * float64(time.Second))
			}
		}
	}
	for attempt := 1; ; attempt++ {
		res, err := tr.once(sc)
		if err != nil {
			return nil, err
		}
		if len(t.Until) == 0 {
			return res, nil
		}
		res.Set("attempts", attempt)
		rsc := sc
		if t.Register != "" {
			rsc = sc.with(value.DictOf(t.Register, stripInternal(res)), false)
		}
		done, err := tr.evalConds(t.Until, rsc)
		if err != nil {
			return nil, chain("Task failed", t.Pos, err)
		}
		if done {
			return res, nil
		}
		if attempt > retries {
			res.Set("failed", true)
			if !res.Has("msg") {
				res.Set("msg", "")
			}
			return res, nil
		}
		show := res.Copy()
		show.Set("retries", retries+1)
		tr.r.Display.Retry(tr.host.name, tr.name, show)
		select {
		case <-time.After(delay):
		case <-tr.r.ctx.Done():
			return res, nil
		}
	}
}

func (tr *taskRun) renderScalar(v any, sc *scope) any {
	if s, ok := v.(string); ok {
		if r, err := tr.r.Engine.Render(s, sc, tr.opt); err == nil {
			v = r
		}
		if s2, ok := v.(string); ok {
			return value.ResolvePlain(s2)
		}
	}
	return v
}

// once renders the arguments and runs the module a single time.
func (tr *taskRun) once(sc *scope) (*value.Dict, error) {
	t := tr.t
	args, err := tr.renderArgs(sc)
	if err != nil {
		return nil, err
	}
	if t.Module == "include_vars" {
		return tr.includeVars(args)
	}
	env, err := tr.environment(sc)
	if err != nil {
		return nil, err
	}
	mod := tr.r.Modules.Get(t.Module)
	req := &modules.Request{Ctx: tr.r.ctx, Args: args, Module: t.Module, Host: tr.host.name,
		Check: tr.checkMode(), Diff: tr.r.Opts.Diff, Verbosity: tr.r.Opts.Verbosity,
		Vars: sc, Engine: tr.r.Engine, Opt: tr.opt, Stdout: tr.r.Stdout, TaskDir: t.Dir, Shared: tr.r.Shared, Env: env}
	res, err := mod.Run(req)
	if err != nil {
		return nil, chain("Task failed", t.Pos, err)
	}
	if res == nil {
		res = modules.Result(false)
	}
	if err := tr.applyChangedFailed(res, sc); err != nil {
		return nil, err
	}
	return res, nil
}

// environment merges the `environment` keyword of the play, blocks, role
// and task (inner levels win, as Ansible's prepend-extend does) and renders it.
func (tr *taskRun) environment(sc *scope) (map[string]string, error) {
	var levels []any
	for _, x := range tr.f.chain() {
		if x.kw != nil && x.kw.Set["environment"] {
			levels = append(levels, x.kw.Environment)
		}
	}
	if tr.t.Set["environment"] {
		levels = append(levels, tr.t.Environment)
	}
	if len(levels) == 0 {
		return nil, nil
	}
	env := map[string]string{}
	for _, lv := range levels {
		rv, err := tr.r.Engine.RenderValue(lv, sc, tr.opt)
		if err != nil {
			return nil, chain("Task failed", tr.t.Pos, chain("Error while resolving value for 'environment'", tr.t.Pos, err))
		}
		list, ok := rv.([]any)
		if !ok {
			list = []any{rv}
		}
		for _, e := range list {
			d, ok := e.(*value.Dict)
			if !ok {
				if e == nil {
					continue
				}
				return nil, chain("Task failed", tr.t.Pos, fmt.Errorf("environment must be a dictionary, received %s (%s)", value.Str(e), value.TypeName(e)))
			}
			d.Each(func(k string, v any) bool {
				env[k] = value.Str(v)
				return true
			})
		}
	}
	return env, nil
}

func (tr *taskRun) checkMode() bool {
	v := tr.f.keyword(tr.t, "check_mode", func(k *playbook.Keywords) any { return k.CheckMode })
	if v == nil {
		return tr.r.Opts.Check
	}
	return tr.boolOf(v)
}

// renderArgs renders module arguments, dropping any that resolve to omit.
func (tr *taskRun) renderArgs(sc *scope) (*value.Dict, error) {
	t := tr.t
	out := value.NewDict(t.Args.Len())
	var ferr error
	t.Args.Each(func(k string, v any) bool {
		rv, err := tr.r.Engine.RenderValue(v, sc, tr.opt)
		if err != nil {
			pos := t.ArgPos[k]
			if pos.IsZero() {
				pos = t.ModulePos
			}
			inner := chain(fmt.Sprintf("Error while resolving value for '%s'", k), pos, err)
			ferr = chain("Task failed", t.Pos, chain(fmt.Sprintf("Finalization of task args for '%s' failed", tr.r.fqcn(t)), t.ModulePos, inner))
			return false
		}
		if _, omit := rv.(value.Omit); omit {
			return true
		}
		out.Set(k, dropOmit(rv))
		return true
	})
	return out, ferr
}

// dropOmit removes omitted entries nested in lists and dicts.
func dropOmit(v any) any {
	switch x := v.(type) {
	case *value.Dict:
		var out *value.Dict
		for i, k := range x.Keys() {
			e, _ := x.Get(k)
			if _, omit := e.(value.Omit); omit && out == nil {
				out = value.NewDict(x.Len())
				for _, pk := range x.Keys()[:i] {
					pv, _ := x.Get(pk)
					out.Set(pk, pv)
				}
				continue
			}
			if out != nil {
				if _, omit := e.(value.Omit); !omit {
					out.Set(k, e)
				}
			}
		}
		if out != nil {
			return out
		}
	}
	return v
}

// applyChangedFailed applies changed_when and failed_when to a result.
func (tr *taskRun) applyChangedFailed(res *value.Dict, sc *scope) error {
	t := tr.t
	rsc := sc
	if t.Register != "" && (len(t.ChangedWhen) > 0 || len(t.FailedWhen) > 0) {
		rsc = sc.with(value.DictOf(t.Register, stripInternal(res)), false)
	}
	if len(t.ChangedWhen) > 0 {
		ok, err := tr.evalConds(t.ChangedWhen, rsc)
		if err != nil {
			return chain("Task failed", t.Pos, err)
		}
		res.Set("changed", ok)
	}
	if len(t.FailedWhen) > 0 {
		ok, err := tr.evalConds(t.FailedWhen, rsc)
		if err != nil {
			return chain("Task failed", t.Pos, err)
		}
		res.Set("failed_when_result", ok)
		res.Set("failed", ok)
	}
	return nil
}

// evalConds evaluates conditions (ANDed) with 2.19's strict typing.
func (tr *taskRun) evalConds(conds []playbook.Cond, sc *scope) (bool, error) {
	for _, c := range conds {
		ok, err := tr.evalCond(c, sc)
		if err != nil {
			return false, err
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

func (tr *taskRun) evalCond(c playbook.Cond, sc *scope) (bool, error) {
	var v any
	var err error
	switch x := c.Expr.(type) {
	case bool:
		return x, nil
	case nil:
		return true, nil
	case string:
		expr := strings.TrimSpace(x)
		if template.HasMarkers(expr) {
			v, err = tr.r.Engine.Render(expr, sc, tr.opt)
			if err == nil {
				if s, ok := v.(string); ok {
					v, err = tr.r.Engine.Eval(s, sc, tr.opt)
				}
			}
		} else {
			v, err = tr.r.Engine.Eval(expr, sc, tr.opt)
		}
	default:
		v = x
	}
	if err != nil {
		return false, at(c.Pos, err)
	}
	if b, ok := v.(bool); ok {
		return b, nil
	}
	origin := c.Pos
	msg := fmt.Sprintf("Conditional result (%s) was derived from value of type '%s' at '%s'. Conditionals must have a boolean result.",
		value.Repr(value.Truthy(v)), value.TypeName(v), origin)
	p := c.Pos
	return false, &ChainError{Msg: msg, Origin: &p, Help: "Broken conditionals can be temporarily allowed with the `ALLOW_BROKEN_CONDITIONALS` configuration option."}
}

// finish records a non-loop result.
func (tr *taskRun) finish(res *value.Dict) {
	if value.Truthy(res.Default("skipped", false)) {
		tr.skip(res)
		return
	}
	if value.Truthy(res.Default("failed", false)) {
		tr.fail(nil, res)
		return
	}
	tr.ok(res)
}

func (tr *taskRun) register(res *value.Dict) {
	if tr.t.Register != "" {
		reg := stripInternal(res)
		if !reg.Has("failed") {
			reg.Set("failed", false)
		}
		if !reg.Has("changed") {
			reg.Set("changed", false)
		}
		tr.host.facts.Set(tr.t.Register, reg)
	}
}

func (tr *taskRun) ok(res *value.Dict) {
	if facts, ok := res.Get("ansible_facts"); ok {
		if d, ok := facts.(*value.Dict); ok {
			tr.host.facts.Update(d)
		}
	}
	tr.register(res)
	changed := value.Truthy(res.Default("changed", false))
	st := tr.r.stat(tr.host.name)
	st.OK++
	status := StatusOK
	if changed {
		st.Changed++
		status = StatusChanged
		tr.notify()
	}
	tr.r.Display.Result(&Event{Host: tr.host.name, Task: tr.t, Name: tr.name, Status: status, Result: res, NoLog: tr.noLog})
}

func (tr *taskRun) notify() {
	for _, n := range tr.t.Notify {
		tr.ps.notified[n] = true
	}
}

func (tr *taskRun) skip(res *value.Dict) {
	if res == nil {
		res = value.DictOf("changed", false, "skip_reason", "Conditional result was False", "skipped", true)
		if conds := tr.f.conds(tr.t); len(conds) > 0 {
			res.Set("false_condition", tr.falseCondition(conds))
		}
	}
	tr.register(res)
	tr.r.stat(tr.host.name).Skipped++
	tr.r.Display.Result(&Event{Host: tr.host.name, Task: tr.t, Name: tr.name, Status: StatusSkipped, Result: res, NoLog: tr.noLog})
}

// falseCondition names the first condition that evaluated false.
func (tr *taskRun) falseCondition(conds []playbook.Cond) any {
	for _, c := range conds {
		if ok, err := tr.evalCond(c, tr.sc); err == nil && !ok {
			return c.Expr
		}
	}
	return conds[len(conds)-1].Expr
}

// fail records a failure from an error or a failed result.
func (tr *taskRun) fail(err error, res *value.Dict) {
	if res == nil {
		res = value.DictOf("msg", err.Error())
		res.Set("failed", true)
	}
	if err == nil {
		msg := res.Default("msg", "")
		err = &ChainError{Msg: "Task failed", Origin: &tr.t.Pos, Cause: errors.New("Action failed: " + value.Str(msg))}
	}
	tr.register(res)
	ignored := tr.boolOf(tr.f.keyword(tr.t, "ignore_errors", ignoreErrorsOf))
	st := tr.r.stat(tr.host.name)
	tr.r.Display.Error(err)
	tr.r.Display.Result(&Event{Host: tr.host.name, Task: tr.t, Name: tr.name, Status: StatusFailed, Result: res, Ignored: ignored, NoLog: tr.noLog})
	if ignored {
		st.OK++
		st.Ignored++
		return
	}
	st.Failed++
	tr.host.failed = true
	tr.r.lastFailure = failureVars(tr.t, tr.name, stripInternal(res))
}

// stripInternal copies a result without _ansible_* keys.
func stripInternal(res *value.Dict) *value.Dict {
	out := value.NewDict(res.Len())
	res.Each(func(k string, v any) bool {
		if !strings.HasPrefix(k, "_ansible") {
			out.Set(k, v)
		}
		return true
	})
	return out
}
