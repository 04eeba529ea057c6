package run

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
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
	// delegate is the rendered delegate_to host ("" when not delegated);
	// delegateExpr the keyword as written, rendered again for each loop
	// item, whose hosts itemDelegates lists in order.
	delegate      string
	delegateExpr  any
	itemDelegates []string
	// at is the position of the value being templated (for warnings).
	at value.Pos
	// untrustedVar is debug's `var` as rendered by renderArgs when its
	// template gave an untrusted expression, which must not be evaluated.
	untrustedVar    *string
	untrustedVarPos value.Pos
}

// fqcn is the action's name as ansible-core resolved it: the name as
// written when it is qualified, else the module's FQCN.
func (r *Runner) fqcn(t *playbook.Task) string {
	if strings.Contains(t.Action, ".") {
		return t.Action
	}
	return t.Info.FQCN
}

// isInclude reports a dynamic include (include_tasks, include_role).
func isInclude(t *playbook.Task) bool {
	return t.Info.Kind == module.KindIncludeTasks || t.Info.Kind == module.KindIncludeRole
}

// activeHosts lists the play's hosts that may still run tasks.
func (r *Runner) activeHosts(ps *playState) []string {
	var out []string
	for _, h := range ps.hosts {
		hs := r.host(h)
		if !hs.halted && !hs.ended {
			out = append(out, h)
		}
	}
	return out
}

// runTask runs t on every active host, in order.
func (r *Runner) runTask(ps *playState, f *frame, t *playbook.Task) {
	if !r.startReached {
		if !r.startMatches(t) {
			return
		}
		r.startReached = true
	}
	if !f.handler && !r.tagsMatch(f.tags(t), t) {
		return
	}
	var hosts []string
	for _, h := range r.activeHosts(ps) {
		if er := r.host(h).endRole; er == nil || (er != f.role && er != t.Role) {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return
	}
	if t.Info.Kind == module.KindMeta {
		r.runMeta(ps, f, t, hosts)
		return
	}
	first := r.newTaskRun(ps, f, t, r.host(hosts[0]))
	if r.Opts.Step != nil {
		// --step: the task runs on every host, or on none.
		kind := "TASK: "
		if f.handler {
			kind = "HANDLER: "
		}
		run, err := r.Opts.Step(kind + strings.TrimSpace(first.name))
		if err != nil {
			r.fatal(err)
			return
		}
		if !run {
			return
		}
	}
	r.Display.TaskStart(first.name, t, f.handler)
	if f.handler {
		ps.handlers.ran(t, hosts, first.runOnce())
	}
	st := &step{}
	defer r.endStep(ps, st)
	if isInclude(t) {
		r.runInclude(ps, f, t, hosts, st)
		return
	}
	if t.Info.Flags&module.BypassHostLoop != 0 {
		// add_host runs once, for the first host only.
		st.add(first.host.name, first.process(first.result(), nil))
		return
	}
	for i, h := range hosts {
		tr := first
		if i > 0 {
			tr = r.newTaskRun(ps, f, t, r.host(h))
		}
		if err := tr.throttle(); err != nil {
			r.fatal(err)
			return
		}
		st.fatal = st.fatal || tr.stepFatal()
		if tr.runOnce() {
			r.runOnceTask(ps, tr, hosts, st)
			return
		}
		st.add(h, tr.process(tr.result(), nil))
		if ps.endPlay || r.abort != 0 {
			return
		}
	}
}

// runOnceTask runs a run_once task on one host and gives its result
// (registered value, facts, failure) to every other host of the task.
func (r *Runner) runOnceTask(ps *playState, tr *taskRun, hosts []string, st *step) {
	res := tr.result()
	var others []*hostState
	for _, h := range hosts {
		if h != tr.host.name {
			others = append(others, r.host(h))
		}
	}
	// Inside a file only some hosts included, the result still reaches
	// every running host of the batch (ansible-core's hosts cache).
	for _, h := range ps.batch {
		if hs := r.host(h); !slices.Contains(hosts, h) && !hs.halted && !hs.ended {
			others = append(others, hs)
		}
	}
	st.add(tr.host.name, tr.process(res, others))
}

// fatal shows an error ansible-core does not catch while it runs a play
// and ends the run at once, without a recap, with the error's exit code.
func (r *Runner) fatal(err error) {
	r.controllerError(err)
	r.abort = diag.ExitCode(err)
}

func (r *Runner) newTaskRun(ps *playState, f *frame, t *playbook.Task, hs *hostState) *taskRun {
	tr := &taskRun{r: r, ps: ps, f: f, t: t, host: hs, at: t.Pos}
	tr.sc = r.taskScope(ps, f, t, hs)
	tr.addConnectionUser()
	tr.sc.deprecated = func(name string) {
		p := tr.at
		r.warn(&diag.Diagnostic{Severity: diag.Deprecation, Summary: fmt.Sprintf("The `%s` magic variable is deprecated.", name), Origin: &p, Help: deprecatedVars[name], Version: "2.23"})
	}
	tr.opt = tr.optAt(t.Pos)
	tr.name = tr.renderName()
	tr.t = tr.resolveTemplatedAction(t)
	tr.noLog = tr.boolOf(f.keyword(t, "no_log", func(k *playbook.Keywords) any { return k.NoLog }))
	if dt := f.keyword(t, "delegate_to", func(k *playbook.Keywords) any { return k.DelegateTo }); dt != nil {
		tr.delegateExpr = dt
		if v := tr.renderScalar(dt, tr.sc); v != nil {
			tr.delegate = value.Str(v)
		}
	}
	return tr
}

// optAt returns the task's template options with warnings placed at pos
// (the value being templated).
func (tr *taskRun) optAt(pos value.Pos) template.Options {
	tr.at = pos
	sp := tr.searchPath()
	sp.InRole = tr.t.Role != nil
	return template.Options{Search: sp, Hosts: tr.r.hostsByPattern, Warn: func(w *diag.Diagnostic, atValue bool) {
		if atValue {
			// A copy, so that pos itself does not escape: each render
			// makes these options.
			c, p := *w, pos
			c.Origin = &p
			w = &c
		}
		tr.r.warn(w)
	}}
}

// warn shows a warning.
func (r *Runner) warn(w *diag.Diagnostic) {
	if w.Severity == diag.Deprecation && r.Opts.NoDeprecationWarnings {
		return
	}
	r.Display.Warn(w)
}

// renderName renders the task name for the banner, as Ansible does when
// every variable it needs is available.
func (tr *taskRun) renderName() string {
	name := tr.t.Name
	if name == "" && tr.t.TemplatedAction {
		// A templated action names the task as written.
		return tr.rolePrefixed(tr.t.Action)
	}
	if name == "" {
		name = tr.t.Action
		if tr.t.Info.Kind == module.KindIncludeRole {
			// IncludeRole.get_name: "<action> : <role name>", with the
			// role name as written: a name that is a template shows
			// unrendered.
			return name + " : " + includeRoleRawName(tr.t.Args)
		}
	}
	if template.HasMarkers(name) {
		// Undefined values in a name show as "<< error N - ... >>" with a
		// warning, as ansible-core's ReplacingMarkerBehavior does.
		m := &template.Markers{}
		opt := tr.opt
		opt.Markers = m
		if v, err := tr.r.Engine.Render(name, tr.sc, opt); err == nil {
			name = value.Str(v)
		}
		if w := m.Warning(); w != "" {
			p := tr.t.NamePos
			tr.r.warn(&diag.Diagnostic{Severity: diag.Warning, Summary: w, Origin: &p})
		}
	}
	// An include_role task names itself (IncludeRole.get_name) without
	// the prefix of the role it is written in.
	if tr.t.Info.Kind != module.KindIncludeRole {
		return tr.rolePrefixed(name)
	}
	return name
}

// rolePrefixed is a task name as the banner shows it: "<role> : <name>"
// for a task of a role.
func (tr *taskRun) rolePrefixed(name string) string {
	if tr.t.Role != nil {
		return tr.t.Role.Name() + " : " + name
	}
	return name
}

// includeRoleRawName is the role an include_role task names, before
// templating: its `name` argument, or `role` when there is no `name`
// (ansible-core's IncludeRole keeps this for its banner).
func includeRoleRawName(args *value.Dict) string {
	rn, ok := args.Get("name")
	if !ok {
		rn, ok = args.Get("role")
	}
	if !ok {
		return "None"
	}
	return value.Str(rn)
}

// boolOf renders a keyword value (ignore_errors, no_log, ...) to a bool.
func (tr *taskRun) boolOf(v any) bool {
	return tr.boolIn(v, tr.sc)
}

func (tr *taskRun) boolIn(v any, sc *scope) bool {
	return tr.boolInOr(v, sc, false)
}

// keywordBool reads a keyword's rendered value as a boolean: Ansible's
// boolean strings and 0/1, an unrecognised string is false, any other
// value its truth.
func keywordBool(v any) bool {
	if _, omit := v.(value.Omit); omit {
		return false
	}
	if b, known := py.LenientBoolean(v); known {
		return b
	}
	if _, isStr := v.(string); isStr {
		return false
	}
	return value.Truthy(v)
}

func (tr *taskRun) runOnce() bool {
	return tr.boolOf(tr.f.keyword(tr.t, "run_once", func(k *playbook.Keywords) any { return k.RunOnce }))
}

func (tr *taskRun) ignoreErrors() bool {
	return tr.boolOf(tr.f.keyword(tr.t, "ignore_errors", ignoreErrorsOf))
}

// result computes the task's result on this host, as ansible-core's
// TaskExecutor.run does; loop items are displayed as they finish.
func (tr *taskRun) result() *value.Dict {
	t := tr.t
	if t.HasLoop {
		items, err := tr.loopItems()
		if err != nil {
			var undef bool
			if items, undef = nil, template.IsUndefined(err); !undef {
				return errorResult(err)
			}
			// An undefined loop only fails when the task is not skipped.
			res := tr.checkConds(tr.sc)
			if res != nil && !value.Truthy(res.Default("failed", false)) {
				return res
			}
			return errorResult(err)
		}
		return tr.runLoop(items)
	}
	if res := tr.checkConds(tr.sc); res != nil {
		return res
	}
	return tr.execute(tr.sc)
}

// checkConds evaluates the task's `when` chain. It returns nil when the
// task should run, a skipped result when a condition is false, or a failed
// result when a condition cannot be evaluated.
func (tr *taskRun) checkConds(sc *scope) *value.Dict {
	conds := tr.f.conds(tr.t)
	for _, c := range conds {
		ok, err := tr.evalCond(c, sc)
		if err != nil {
			return errorResult(diag.Chain("Task failed.", tr.t.Pos, err))
		}
		if !ok {
			return value.DictOf("changed", false, "skipped", true, "skip_reason", "Conditional result was False", "false_condition", c.Expr)
		}
	}
	return nil
}

// retryPolicy returns how many times to run the task and the delay.
func (tr *taskRun) retryPolicy(sc *scope) (int, time.Duration) {
	t := tr.t
	retries := 1
	if t.Retries != nil {
		if n, ok := value.AsInt(tr.renderScalar(t.Retries, sc)); ok && n > 0 {
			retries += n
		}
	} else if len(t.Until) > 0 {
		retries += 3
	}
	delay := 5 * time.Second
	if t.Delay != nil {
		if n, ok := value.AsFloat(tr.renderScalar(t.Delay, sc)); ok {
			if n < 0 {
				n = 1
			}
			delay = time.Duration(n * float64(time.Second))
		}
	}
	return retries, delay
}

// execute runs the module with retries and applies changed_when and
// failed_when. sc is the scope (with the loop item for loops). Errors
// become failed results.
func (tr *taskRun) execute(sc *scope) *value.Dict {
	res, err := tr.executeErr(sc)
	if err != nil {
		res = errorResult(err)
	} else {
		normalizeFailure(tr.t, res)
	}
	if !res.Has("changed") {
		res.Set("changed", false)
	}
	if tr.noLogIn(sc) {
		res.Set("_ansible_no_log", true)
	}
	if n := tr.renderNotify(sc); n != nil {
		res.Set("_ansible_notify", n)
	}
	return res
}

func (tr *taskRun) noLogIn(sc *scope) bool {
	return tr.boolIn(tr.f.keyword(tr.t, "no_log", func(k *playbook.Keywords) any { return k.NoLog }), sc)
}

func (tr *taskRun) executeErr(sc *scope) (*value.Dict, error) {
	t := tr.t
	// Arguments and environment are templated once, before any retry.
	args, err := tr.renderArgs(sc)
	if err != nil {
		return nil, err
	}
	if isInclude(t) {
		return tr.includeResult(args), nil
	}
	if msg := tr.connectionProblem(sc); msg != "" {
		return tr.unreachableResult(msg), nil
	}
	if err := tr.becomeProblem(sc); err != nil {
		return nil, diag.Chain("Task failed.", t.Pos, err)
	}
	env, err := tr.environment(sc)
	if err != nil {
		return nil, err
	}
	retries, delay := tr.retryPolicy(sc)
	var res *value.Dict
	done := false
	// seen is what the conditions see: the registered result and any
	// facts the module set, as ansible-core's vars_copy.
	seen := value.NewDict(2)
	csc := sc.with(seen, false)
	for attempt := 1; attempt <= retries; attempt++ {
		res, err = tr.once(args, env, csc)
		if err != nil {
			return nil, err
		}
		if facts, ok := res.Get("ansible_facts"); ok && t.Info.Flags&module.IgnoresFacts == 0 {
			if d, ok := facts.(*value.Dict); ok {
				tr.resultFacts(seen, d)
			}
		}
		if !res.Has("failed") {
			rc, hasRC := res.Get("rc")
			res.Set("failed", hasRC && value.Str(rc) != "0")
		}
		if retries > 1 {
			res.Set("attempts", attempt)
		}
		if !res.Has("changed") {
			res.Set("changed", false)
		}
		if t.Register != "" {
			seen.Set(t.Register, registered(res))
		}
		if !res.Has("skipped") {
			tr.applyChangedFailed(res, csc)
		}
		if retries <= 1 {
			break
		}
		if t.Register != "" {
			seen.Set(t.Register, registered(res))
		}
		until := t.Until
		if len(until) == 0 {
			until = []playbook.Cond{{Expr: !value.Truthy(res.Default("failed", false)), Pos: t.Pos}}
		}
		ok, err := tr.evalConds(until, csc)
		if err != nil {
			return nil, diag.Chain("Task failed.", t.Pos, err)
		}
		if ok {
			done = true
			break
		}
		if attempt < retries {
			show := res.Copy()
			show.Set("_ansible_retry", true)
			show.Set("retries", retries)
			if tr.noLogIn(sc) {
				show.Set("_ansible_no_log", true)
			}
			tr.r.Display.Retry(tr.host.name, tr.name, show)
			select {
			case <-time.After(delay):
			case <-tr.r.ctx.Done():
				return nil, tr.r.ctx.Err()
			}
		}
	}
	if retries > 1 && !done {
		res.Set("attempts", retries-1)
		res.Set("failed", true)
	}
	return res, nil
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

// once runs the module a single time with rendered arguments.
func (tr *taskRun) once(args *value.Dict, env map[string]string, sc *scope) (*value.Dict, error) {
	t := tr.t
	seconds, poll, err := tr.asyncParams(sc)
	if err != nil {
		return nil, err
	}
	if err := tr.asyncRefused(seconds); err != nil {
		return tr.moduleFailure(err)
	}
	if t.Info.Kind == module.KindIncludeVars {
		return tr.includeVars(args)
	}
	m := tr.r.moduleOf(t)
	if t.Info.Path != "" {
		m = tr.r.Modules.External()
		if m == nil {
			return nil, diag.Chain("Task failed.", t.Pos, fmt.Errorf("no runner for the module file %s", t.Info.Path))
		}
	}
	if m == nil && t.Info.Flags&module.Unimplemented != 0 {
		// It fails as a module that cannot run here would.
		res := module.Failed(unimplementedModule(t))
		normalizeModuleFailure(t, res)
		return res, nil
	}
	if m == nil {
		return tr.moduleFailure(unresolvedAction(t))
	}
	req := tr.request(args, env, sc)
	var res *value.Dict
	if seconds > 0 {
		res, err = tr.runAsync(req, seconds, poll, sc)
	} else {
		res, err = m.Run(req)
	}
	if err != nil {
		return tr.moduleFailure(err)
	}
	if res == nil {
		res = module.Result(false)
	}
	normalizeModuleFailure(t, res)
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
		rv, err := tr.renderEnvironmentLevel(lv, sc)
		if err != nil {
			return nil, diag.Chain("Task failed.", tr.t.Pos, diag.Chain("Error while resolving value for 'environment'.", tr.t.Pos, err))
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
				return nil, diag.Chain("Task failed.", tr.t.Pos, fmt.Errorf("environment must be a dictionary, received %s (%s)", value.Str(e), value.TypeName(e)))
			}
			d.Each(func(k string, v any) bool {
				env[k] = value.Str(v)
				return true
			})
		}
	}
	return env, nil
}

// renderEnvironmentLevel renders one level of the `environment` keyword.
// A dict written out is rendered value by value, as ansible-core's
// Task._post_validate_environment does: a value that is omitted is left
// out, and so is one that needs the not yet gathered `ansible_env` facts
// (an undefined error naming ansible_env).
func (tr *taskRun) renderEnvironmentLevel(lv any, sc *scope) (any, error) {
	d, ok := lv.(*value.Dict)
	if !ok {
		return tr.r.Engine.RenderValue(lv, sc, tr.opt)
	}
	out := value.NewDict(d.Len())
	var ferr error
	d.Each(func(k string, v any) bool {
		rv, err := tr.r.Engine.RenderValue(v, sc, tr.opt)
		switch {
		case err != nil && template.IsUndefined(err) && strings.Contains(err.Error(), "ansible_env"):
		case err != nil:
			ferr = err
			return false
		default:
			if _, omit := rv.(value.Omit); !omit {
				out.Set(k, rv)
			}
		}
		return true
	})
	return out, ferr
}

func (tr *taskRun) checkMode() bool {
	v := tr.f.keyword(tr.t, "check_mode", func(k *playbook.Keywords) any { return k.CheckMode })
	return tr.boolOr(v, tr.r.Opts.Check)
}

func (tr *taskRun) diffMode() bool {
	v := tr.f.keyword(tr.t, "diff", func(k *playbook.Keywords) any { return k.Diff })
	return tr.boolOr(v, tr.r.Opts.Diff)
}

// boolOr renders a keyword value to a bool, or gives def when the keyword
// is not set or renders to omit (ansible-core then uses the default).
func (tr *taskRun) boolOr(v any, def bool) bool {
	return tr.boolInOr(v, tr.sc, def)
}

func (tr *taskRun) boolInOr(v any, sc *scope, def bool) bool {
	if v == nil {
		return def
	}
	if s, ok := v.(string); ok && template.HasMarkers(s) {
		r, err := tr.r.Engine.Render(s, sc, tr.opt)
		if err != nil {
			return false
		}
		if _, omit := r.(value.Omit); omit {
			return def
		}
		v = r
	}
	return keywordBool(v)
}

// renderArgs renders module arguments, dropping any that resolve to omit.
func (tr *taskRun) renderArgs(sc *scope) (*value.Dict, error) {
	t := tr.t
	if err := rejectRawParams(t); err != nil {
		return nil, err
	}
	var ferr error
	tr.untrustedVar = nil
	args := t.Args
	if t.ArgsTemplate != nil {
		// args: "{{ ... }}" supplies the arguments the task's own extend.
		v, err := tr.r.Engine.RenderValue(t.ArgsTemplate, sc, tr.optAt(t.ArgsPos))
		if err != nil {
			return nil, diag.Chain("Task failed.", t.Pos, diag.Chain("Error while resolving value for 'args'.", t.ArgsPos, err))
		}
		if d, ok := v.(*value.Dict); ok {
			args = d.Copy()
			args.Update(t.Args)
		}
	}
	args, err := tr.withModuleDefaults(args, sc)
	if err != nil {
		return nil, err
	}
	out := value.NewDict(args.Len())
	args.Each(func(k string, v any) bool {
		pos := t.ArgPos[k]
		if pos.IsZero() {
			pos = t.ModulePos
		}
		var rv any
		var err error
		if k == "that" && t.Info.Flags&module.ConditionsArg != 0 {
			rv = tr.assertConditions(v, sc, tr.optAt(pos))
		} else if src, isStr := v.(string); isStr && k == "var" && t.Info.Flags&module.ExpressionVar != 0 && template.HasMarkers(src) {
			// debug evaluates `var` as an expression: one that a
			// template computed or took from data is untrusted.
			var trusted bool
			rv, trusted, err = tr.r.Engine.RenderTrusted(src, sc, tr.optAt(pos))
			if s, isStr := rv.(string); isStr && err == nil && !trusted {
				tr.untrustedVar = &s
				tr.untrustedVarPos = tr.untrustedOrigin(src, sc, pos)
			}
		} else {
			rv, err = tr.r.Engine.RenderValue(v, sc, tr.optAt(pos))
		}
		if err != nil {
			inner := diag.Chain(fmt.Sprintf("Error while resolving value for '%s'.", k), pos, err)
			ferr = diag.Chain("Task failed.", t.Pos, diag.Chain(fmt.Sprintf("Finalization of task args for '%s' failed.", tr.r.fqcn(t)), t.ModulePos, inner))
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

// applyChangedFailed applies changed_when and failed_when to a result. As
// in ansible-core, an error while evaluating them fails the result rather
// than the task.
func (tr *taskRun) applyChangedFailed(res *value.Dict, rsc *scope) {
	t := tr.t
	if len(t.ChangedWhen) > 0 {
		ok, err := tr.evalConds(t.ChangedWhen, rsc)
		if err != nil {
			res.Set("failed", true)
			res.Set("changed_when_result", err.Error())
			return
		}
		res.Set("changed", ok)
	}
	if len(t.FailedWhen) > 0 {
		ok, err := tr.evalConds(t.FailedWhen, rsc)
		if err != nil {
			res.Set("failed", true)
			res.Set("failed_when_result", err.Error())
			return
		}
		res.Set("failed_when_result", ok)
		res.Set("failed", ok)
		if !ok {
			if exc, has := res.Get("exception"); has {
				res.Delete("exception")
				res.Set("failed_when_suppressed_exception", exc)
			}
		}
	}
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
	allow := tr.r.Opts.AllowBrokenConditionals
	var v any
	var err error
	var origin value.Pos
	switch x := c.Expr.(type) {
	case bool:
		return x, nil
	case nil:
		return true, nil
	case string:
		expr := strings.TrimSpace(x)
		if expr == "" {
			return tr.emptyConditional(c.Pos)
		}
		opt := tr.optAt(c.Pos)
		opt.Conditional = true
		switch {
		case template.PossiblyAllTemplate(expr):
			// One whole template: its result may be an expression, if
			// trusted. Templates elsewhere in an expression are a
			// syntax error, except in its string constants, which the
			// template engine renders (Options.Conditional).
			var trusted bool
			v, trusted, err = tr.r.Engine.RenderTrusted(expr, sc, opt)
			if err == nil {
				if s, ok := v.(string); ok && strings.TrimSpace(s) == "" {
					// ansible-core checks the rendered expression for
					// emptiness before its trust: an empty result is
					// the empty conditional, where the value came from.
					var ok bool
					if ok, err = tr.emptyConditional(tr.untrustedOrigin(expr, sc, c.Pos)); err != nil {
						return false, err
					}
					v = ok
				}
				if s, ok := v.(string); ok {
					if !trusted {
						// Only a trusted expression reached through a
						// variable may be evaluated (2.19's trust check).
						return false, untrustedError(tr.untrustedOrigin(expr, sc, c.Pos))
					}
					expr = strings.TrimSpace(s)
					v, err = tr.r.Engine.Eval(expr, sc, opt)
				} else {
					p := c.Pos
					tr.r.warn(&diag.Diagnostic{Severity: diag.Deprecation, Summary: "Conditionals should not be surrounded by templating delimiters such as {{ }} or {% %}.", Origin: &p, Version: "2.23"})
				}
			}
		default:
			v, err = tr.r.Engine.Eval(expr, sc, opt)
		}
		if err != nil {
			if template.IsUndefined(err) {
				p := c.Pos
				return false, &diag.Diagnostic{Summary: "Error while evaluating conditional.", Origin: &p, Cause: err}
			}
			return false, diag.Located(c.Pos, err)
		}
		if _, isBool := v.(bool); !isBool {
			origin = tr.originOf(expr, sc, c.Pos)
		}
	default:
		p := c.Pos
		if !allow {
			return false, &diag.Diagnostic{Summary: "Conditional expressions must be strings.", Origin: &p, Help: allowBroken}
		}
		// ALLOW_BROKEN_CONDITIONALS: a value that is not a string is
		// templated as it is; its result, never a boolean, is taken by
		// its truthiness below.
		opt := tr.optAt(c.Pos)
		if v, err = tr.r.Engine.RenderValue(x, sc, opt); err != nil {
			return false, diag.Located(c.Pos, err)
		}
		origin = c.Pos
	}
	b, isBool := v.(bool)
	if isBool {
		return b, nil
	}
	if v == nil {
		// None cannot carry an origin tag in ansible-core.
		origin = value.Pos{}
	}
	if !allow {
		return false, brokenConditional(v, origin, c.Pos)
	}
	p := c.Pos
	tr.r.warn(&diag.Diagnostic{Severity: diag.Deprecation, Summary: brokenConditionalMessage(v, origin), Origin: &p, Help: brokenAllowed, Version: "2.23"})
	return value.Truthy(v), nil
}

// emptyConditional is an empty conditional expression (or one whose whole
// template rendered empty), at pos: an error, or, under
// ALLOW_BROKEN_CONDITIONALS, true with a deprecation warning.
func (tr *taskRun) emptyConditional(pos value.Pos) (bool, error) {
	p := pos
	if !tr.r.Opts.AllowBrokenConditionals {
		return false, &diag.Diagnostic{Summary: "Empty conditional expressions are not allowed.", Origin: &p, Help: allowBroken}
	}
	tr.r.warn(&diag.Diagnostic{Severity: diag.Deprecation, Summary: "Empty conditional expression was evaluated as True.", Origin: &p, Help: brokenAllowed, Version: "2.23"})
	return true, nil
}

func brokenConditionalMessage(v any, origin value.Pos) string {
	return fmt.Sprintf("Conditional result (%s) was derived from value of type '%s' at '%s'. Conditionals must have a boolean result.",
		value.Repr(value.Truthy(v)), value.TypeName(v), origin)
}

func brokenConditional(v any, origin, pos value.Pos) error {
	p := pos
	return &diag.Diagnostic{Summary: brokenConditionalMessage(v, origin), Origin: &p, Help: allowBroken}
}

const allowBroken = "Broken conditionals can be temporarily allowed with the `ALLOW_BROKEN_CONDITIONALS` configuration option."

// brokenAllowed is the help of the deprecation warnings that
// ALLOW_BROKEN_CONDITIONALS turns the broken conditional errors into.
const brokenAllowed = "Broken conditionals are currently allowed because the `ALLOW_BROKEN_CONDITIONALS` configuration option is enabled."

// isFailed applies ansible-core's TaskResult.is_failed.
func isFailed(res *value.Dict) bool {
	if v, ok := res.Get("failed_when_result"); ok {
		return value.Truthy(v)
	}
	if value.Truthy(res.Default("failed", false)) {
		return true
	}
	return anyItem(res, "failed_when_result") || anyItem(res, "failed")
}

func isSkipped(res *value.Dict) bool {
	if l, ok := res.Default("results", nil).([]any); ok && len(l) > 0 {
		all := true
		for _, e := range l {
			d, ok := e.(*value.Dict)
			if !ok || !value.Truthy(d.Default("skipped", false)) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return value.Truthy(res.Default("skipped", false))
}

func isChanged(res *value.Dict) bool {
	if v, ok := res.Get("changed"); ok {
		return value.Truthy(v)
	}
	return anyItem(res, "changed")
}

func anyItem(res *value.Dict, key string) bool {
	l, _ := res.Default("results", nil).([]any)
	for _, e := range l {
		if d, ok := e.(*value.Dict); ok && value.Truthy(d.Default(key, false)) {
			return true
		}
	}
	return false
}

// process handles a finished result the way ansible-core's strategy does:
// counters, display, registration, facts and notifications. others are
// the further hosts of a run_once task. It reports whether the result
// failed the host (a failure that is not ignored).
func (tr *taskRun) process(res *value.Dict, others []*hostState) (failed bool) {
	t := tr.t
	loop := t.HasLoop && res.Has("results")
	ev := &Event{Host: tr.host.name, Task: t, Name: tr.name, Result: res, NoLog: tr.noLog, Loop: loop, Delegate: tr.delegate, Diff: tr.diffMode()}
	st := tr.r.stat(tr.host.name)
	targets := append([]*hostState{tr.host}, others...)
	switch {
	case isUnreachable(res):
		ev.Status = StatusUnreachable
		if err := ExceptionOf(res); err != nil {
			tr.r.Display.Error(err)
		}
		ev.Ignored = tr.boolOf(tr.f.keyword(t, "ignore_unreachable", func(k *playbook.Keywords) any { return k.IgnoreUnreachable }))
		tr.r.report(ev)
		if ev.Ignored {
			st.OK++
			st.Ignored++
			break
		}
		tr.markUnreachable(tr.host)
	case isFailed(res):
		ev.Status = StatusFailed
		ignored := tr.ignoreErrors()
		ev.Ignored = ignored
		if err := ExceptionOf(res); err != nil {
			tr.r.Display.Error(err)
		}
		tr.r.report(ev)
		if ignored {
			st.OK++
			st.Ignored++
			if isChanged(res) {
				st.Changed++
			}
			break
		}
		failed = true
		tr.markFailed(tr.host, res)
		for _, hs := range others {
			tr.markOtherFailed(hs)
		}
	case isSkipped(res):
		ev.Status = StatusSkipped
		st.Skipped++
		tr.r.report(ev)
	default:
		if t.Info.Flags&module.InventoryAction != 0 {
			tr.applyInventory(res, loop)
		}
		ev.Status = StatusOK
		if isChanged(res) {
			ev.Status = StatusChanged
		}
		for i, it := range resultItems(res, loop) {
			for _, hs := range tr.factHosts(targets, i) {
				tr.applyFacts(hs, it)
			}
			tr.recordStats(it, targets)
			if isChanged(res) {
				if err := tr.notify(it); err != nil {
					tr.r.fatal(err)
					return false
				}
			}
		}
		st.OK++
		if isChanged(res) {
			st.Changed++
		}
		tr.r.report(ev)
	}
	if t.Register != "" {
		if reservedNames[t.Register] {
			w, p := reservedWarning(t.Register), t.RegisterPos
			w.Origin = &p
			tr.r.warn(w)
		}
		reg := registered(res)
		for _, hs := range targets {
			hs.facts.Set(t.Register, reg)
			delete(hs.trustedFacts, t.Register)
			if t.Info.Kind == module.KindIncludeVars {
				// Variables read by include_vars are trusted templates,
				// so their registered copy renders on use too.
				hs.facts.Delete(t.Register)
				hs.incVars.Set(t.Register, reg)
			}
		}
	}
	return failed
}

// markFailed records a host failure. Inside a block with a rescue section
// the failure counts as rescued and sets ansible_failed_task/result; a
// host with nothing of its blocks left to run is a failed host of the
// batch at once.
func (tr *taskRun) markFailed(hs *hostState, res *value.Dict) {
	hs.failed, hs.halted = true, true
	if !tr.f.stillRunning() {
		tr.r.failedHosts[hs.name] = true
	}
	st := tr.r.stat(hs.name)
	if tr.f.rescuable() {
		st.Rescued++
		delete(hs.trustedFacts, "ansible_failed_task")
		delete(hs.trustedFacts, "ansible_failed_result")
		hs.facts.Set("ansible_failed_task", failedTask(tr.t, tr.name))
		hs.facts.Set("ansible_failed_result", registered(res))
		return
	}
	hs.removed = true
	st.Failed++
}

// markOtherFailed fails another host of a failed run_once task: it leaves
// for its rescue or always like the host that ran it, without a counter.
func (tr *taskRun) markOtherFailed(hs *hostState) {
	hs.failed, hs.halted = true, true
	if !tr.f.rescuable() {
		hs.removed = true
	}
}

// notify saves the notifications of a changed result (the task's own or
// its blocks', templated when it ran) for this host.
func (tr *taskRun) notify(res *value.Dict) error {
	names, _ := res.Default("_ansible_notify", nil).([]any)
	for _, n := range names {
		if err := tr.r.notify(tr.ps, tr.f, value.Str(n), tr.host.name); err != nil {
			return err
		}
	}
	return nil
}

// renderNotify templates the task's notify list with the scope it ran in
// (a loop item's, for a loop): handler names may depend on variables.
func (tr *taskRun) renderNotify(sc *scope) []any {
	names := tr.f.notify(tr.t)
	if names == nil {
		return nil
	}
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
		if v, err := tr.r.Engine.Render(n, sc, tr.opt); err == nil {
			out[i] = value.Str(v)
		}
	}
	return out
}

// failedTask is the ansible_failed_task value: the task's serialised form.
func failedTask(t *playbook.Task, name string) *value.Dict {
	if t.Name == "" {
		name = ""
	} else if t.Role != nil {
		name = strings.TrimPrefix(name, t.Role.Name()+" : ")
	}
	d := value.DictOf("name", name, "action", t.Action, "args", t.Args)
	if t.Role != nil {
		d.Set("role", t.Role.Name())
	}
	if !t.Pos.IsZero() {
		d.Set("path", fmt.Sprintf("%s:%d", t.Pos.File, t.Pos.Line))
	}
	return d
}
