package run

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// loopItems evaluates the task's loop into a list of items.
func (tr *taskRun) loopItems() ([]any, error) {
	t := tr.t
	v := t.Loop
	if s, ok := v.(string); ok && template.HasMarkers(s) {
		r, err := tr.r.Engine.Render(s, tr.sc, tr.optAt(t.LoopPos))
		if err != nil {
			if template.IsUndefined(err) {
				return nil, diag.Chain("Task failed.", t.Pos, diag.Located(t.LoopPos, err))
			}
			return nil, diag.Located(t.LoopPos, err)
		}
		v = r
	} else {
		r, err := tr.r.Engine.RenderTerms(strings.TrimPrefix(t.LoopKind, "with_"), v, tr.sc, tr.optAt(t.LoopPos))
		if err != nil {
			return nil, diag.Chain("Task failed.", t.Pos, diag.Located(t.LoopPos, err))
		}
		v = r
	}
	switch t.LoopKind {
	case "with_items":
		return flattenOnce(v), nil
	case "with_list":
		if l, ok := v.([]any); ok {
			return l, nil
		}
		return []any{v}, nil
	case "with_dict":
		d, ok := v.(*value.Dict)
		if !ok {
			p := t.LoopPos
			return nil, &diag.Diagnostic{Summary: fmt.Sprintf("with_dict expects a dict, got %s", value.TypeName(v)), Origin: &p}
		}
		var out []any
		d.Each(func(k string, e any) bool { out = append(out, value.DictOf("key", k, "value", e)); return true })
		return out, nil
	case "with_indexed_items":
		var out []any
		for i, e := range flattenOnce(v) {
			out = append(out, []any{i, e})
		}
		return out, nil
	case "loop":
	default:
		// with_<lookup>: the lookup plugin turns the terms into items.
		terms, ok := v.([]any)
		if !ok {
			terms = []any{v}
		}
		opt := tr.optAt(t.LoopPos)
		opt.LoopAction = t.Action
		items, err := tr.r.Engine.Query(strings.TrimPrefix(t.LoopKind, "with_"), terms, tr.sc, opt)
		var pe *template.PluginError
		if errors.As(err, &pe) {
			// ansible-core reports a failing with_<lookup> plugin without
			// the task's context, from its invoke_lookup().
			return nil, &diag.Diagnostic{Summary: pe.Error(), Origin: &value.Pos{}, Note: "invoke_lookup()"}
		}
		if err != nil {
			return nil, diag.Chain("Task failed.", t.Pos, diag.Located(t.LoopPos, err))
		}
		if items == nil {
			items = []any{}
		}
		return items, nil
	}
	l, ok := v.([]any)
	if !ok {
		if tup, isTuple := v.(value.Tuple); isTuple {
			return []any(tup), nil
		}
		p := t.LoopPos
		return nil, &diag.Diagnostic{Summary: fmt.Sprintf("The `loop` value must resolve to a 'list', not '%s'.", value.TypeName(v)), Origin: &p, Help: "Provide a list of items/templates, or a template resolving to a list."}
	}
	return l, nil
}

func flattenOnce(v any) []any {
	l, ok := v.([]any)
	if !ok {
		if v == nil {
			return nil
		}
		return []any{v}
	}
	var out []any
	for _, e := range l {
		if sub, ok := e.([]any); ok {
			out = append(out, sub...)
		} else {
			out = append(out, e)
		}
	}
	return out
}

// loopControl is a task's rendered loop_control.
type loopControl struct {
	loopVar, indexVar string
	label             any
	hasLabel          bool
	pause             time.Duration
	extended          bool
	allItems          bool
	// breakWhen are the conditions that end the loop after an item.
	breakWhen []playbook.Cond
}

func (tr *taskRun) loopControl() loopControl {
	lc := tr.t.LoopControl
	c := loopControl{loopVar: "item", allItems: true}
	if v, ok := lc.Get("loop_var"); ok {
		c.loopVar = value.Str(tr.renderScalar(v, tr.sc))
	}
	if v, ok := lc.Get("index_var"); ok && v != nil {
		c.indexVar = value.Str(tr.renderScalar(v, tr.sc))
	}
	c.label, c.hasLabel = lc.Get("label")
	if v, ok := lc.Get("pause"); ok {
		if f, ok := value.AsFloat(tr.renderScalar(v, tr.sc)); ok {
			c.pause = time.Duration(f * float64(time.Second))
		}
	}
	if v, ok := lc.Get("extended"); ok {
		c.extended = tr.boolOf(v)
	}
	if v, ok := lc.Get("extended_allitems"); ok {
		c.allItems = tr.boolOf(v)
	}
	c.breakWhen = tr.t.BreakWhen
	return c
}

// warnLoopVarInUse warns when the loop variable already has a value
// (typically an outer loop's item reaching an included file).
func (tr *taskRun) warnLoopVarInUse(c loopControl) {
	if _, _, ok := tr.sc.Lookup(c.loopVar); !ok {
		return
	}
	w := &diag.Diagnostic{Severity: diag.Warning, Summary: fmt.Sprintf("The loop variable %s is already in use.", value.Repr(c.loopVar)), Help: "You should set the `loop_var` value in the `loop_control` option for the task to something else to avoid variable collisions and unexpected behavior."}
	if p, ok := playbook.OriginOf(tr.t.LoopControl, "loop_var"); ok {
		w.Origin = &p
	} else {
		// The default loop_var comes from no file.
		w.Origin, w.Note = &value.Pos{}, c.loopVar
	}
	tr.r.warn(w)
}

// loopVars are the variables one loop iteration sees.
func (c loopControl) loopVars(items []any, i int) *value.Dict {
	locals := value.DictOf("ansible_loop_var", c.loopVar, c.loopVar, items[i])
	if c.indexVar != "" {
		locals.Set("ansible_index_var", c.indexVar)
		locals.Set(c.indexVar, i)
	}
	if c.extended {
		n := len(items)
		l := value.DictOf("index", i+1, "index0", i, "first", i == 0, "last", i+1 == n, "length", n, "revindex", n-i, "revindex0", n-i-1)
		if c.allItems {
			l.Set("allitems", items)
		}
		if i+1 < n {
			l.Set("nextitem", items[i+1])
		}
		if i > 0 {
			l.Set("previtem", items[i-1])
		}
		locals.Set("ansible_loop", l)
	}
	return locals
}

// label renders the loop label of one iteration.
func (c loopControl) renderLabel(tr *taskRun, sc *scope) (any, error) {
	if !c.hasLabel {
		v, _, _ := sc.Lookup(c.loopVar)
		return v, nil
	}
	return tr.r.Engine.RenderValue(c.label, sc, tr.opt)
}

// runLoop runs the task once per item, displays each item's result, and
// returns the aggregate result.
func (tr *taskRun) runLoop(items []any) *value.Dict {
	t := tr.t
	if len(items) == 0 {
		return value.DictOf("changed", false, "skipped", true, "skipped_reason", "No items in the list", "results", []any{})
	}
	c := tr.loopControl()
	tr.warnLoopVarInUse(c)
	ignore := tr.ignoreErrors()
	// overlay holds what earlier iterations registered or set as facts.
	overlay := value.NewDict(2)
	results := make([]any, 0, len(items))
	trust := tr.loopTrust(len(items))
	for i := range items {
		if c.pause > 0 && i > 0 {
			select {
			case <-time.After(c.pause):
			case <-tr.r.ctx.Done():
			}
		}
		locals := c.loopVars(items, i)
		var trustedItem map[string]bool
		if trust != nil && trust[i] {
			trustedItem = map[string]bool{c.loopVar: true}
		}
		sc := tr.sc.with(overlay, false).withData(locals, trustedItem)
		res := tr.checkConds(sc)
		if res == nil {
			res = tr.execute(sc)
			if isUnreachable(res) {
				// The connection fails the task, not the item, as
				// ansible-core's loop ends on AnsibleConnectionFailure.
				return res
			}
		} else if tr.noLogIn(sc) {
			res.Set("_ansible_no_log", true)
		}
		if t.Register != "" {
			overlay.Set(t.Register, registered(res))
		}
		if facts, ok := res.Get("ansible_facts"); ok && (t.Info.Flags&module.SetsFacts != 0 || t.Info.Kind == module.KindIncludeVars) {
			if d, ok := facts.(*value.Dict); ok {
				overlay.Update(d)
			}
		}
		locals.Each(func(k string, v any) bool {
			if k != "ansible_loop_var" && k != "ansible_index_var" && k != "ansible_loop" {
				res.Set(k, v)
			}
			return true
		})
		res.Set("ansible_loop_var", c.loopVar)
		if c.indexVar != "" {
			res.Set("ansible_index_var", c.indexVar)
		}
		if l, ok := locals.Get("ansible_loop"); ok {
			res.Set("ansible_loop", l)
		}
		res.Set("_ansible_item_result", true)
		res.Set("_ansible_ignore_errors", ignore)
		if lbl, err := c.renderLabel(tr, sc); err != nil {
			res.Set("failed", true)
			res.Set("msg", "Failed to template loop_control.label: "+err.Error())
		} else {
			res.Set("_ansible_item_label", lbl)
		}
		delegate := tr.itemDelegate(sc)
		tr.itemDelegates = append(tr.itemDelegates, delegate)
		ev := &Event{Host: tr.host.name, Task: t, Name: tr.name, Result: res, Item: true, NoLog: tr.noLog, Delegate: delegate, Diff: tr.diffMode()}
		switch {
		case isFailed(res):
			ev.Status = StatusFailed
			if err := ExceptionOf(res); err != nil {
				tr.r.Display.Error(err)
			}
		case isSkipped(res):
			ev.Status = StatusSkipped
		case isChanged(res):
			ev.Status = StatusChanged
		default:
			ev.Status = StatusOK
		}
		if (!isInclude(t) || ev.Status != StatusOK) && !deferredItem(tr, ev.Status) {
			tr.r.report(ev)
		}
		results = append(results, res)
		if len(c.breakWhen) > 0 {
			stop, err := tr.evalConds(c.breakWhen, sc)
			if err != nil {
				// ansible-core's loop ends with the error; the items' results
				// are lost with it.
				return value.DictOf("failed", true, "exception", &ResultError{err}, "msg", err.Error())
			}
			if stop {
				break
			}
		}
	}
	return aggregate(results)
}

// aggregate builds the result of a loop task from its item results, as
// ansible-core's TaskExecutor.run does.
func aggregate(items []any) *value.Dict {
	summary := make([]any, len(items))
	res := value.NewDict(6)
	res.Set("results", summary)
	res.Set("skipped", true)
	noLog := false
	for i, e := range items {
		it := e.(*value.Dict)
		summary[i] = summarized(it)
		if value.Truthy(it.Default("_ansible_no_log", false)) {
			noLog = true
		}
		if value.Truthy(it.Default("changed", false)) {
			res.Set("changed", true)
		}
		if value.Truthy(res.Default("skipped", false)) && !value.Truthy(it.Default("skipped", false)) {
			res.Set("skipped", false)
		}
		if value.Truthy(it.Default("failed", false)) && !res.Has("failed") {
			res.Set("failed", true)
			res.Set("msg", "One or more items failed")
		}
	}
	if !value.Truthy(res.Default("failed", false)) {
		res.Set("msg", "All items completed")
	}
	if value.Truthy(res.Default("skipped", false)) {
		res.Set("msg", "All items skipped")
	}
	if !res.Has("changed") {
		res.Set("changed", false)
	}
	if noLog {
		res.Set("_ansible_no_log", true)
	}
	return res
}

// itemDelegate is the delegate_to host of one loop item: the keyword
// rendered with the item's variables when it is a template.
func (tr *taskRun) itemDelegate(sc *scope) string {
	s, ok := tr.delegateExpr.(string)
	if !ok || !template.HasMarkers(s) {
		return tr.delegate
	}
	if v := tr.renderScalar(s, sc); v != nil {
		return value.Str(v)
	}
	return tr.delegate
}

// factHosts are the hosts that take the facts of result item i: with
// delegate_facts, the host that item was delegated to, else targets.
func (tr *taskRun) factHosts(targets []*hostState, i int) []*hostState {
	if tr.delegate == "" || !tr.boolOf(tr.f.keyword(tr.t, "delegate_facts", func(k *playbook.Keywords) any { return k.DelegateFacts })) {
		return targets
	}
	delegate := tr.delegate
	if i < len(tr.itemDelegates) {
		delegate = tr.itemDelegates[i]
	}
	return []*hostState{tr.r.host(delegate)}
}
