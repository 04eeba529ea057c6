package run

import (
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// loopItems evaluates the task's loop into a list of items.
func (tr *taskRun) loopItems() ([]any, error) {
	t := tr.t
	v := t.Loop
	if s, ok := v.(string); ok && template.HasMarkers(s) {
		r, err := tr.r.Engine.Render(s, tr.sc, tr.opt)
		if err != nil {
			if template.IsUndefined(err) {
				return nil, chain("Task failed", t.Pos, at(t.LoopPos, err))
			}
			return nil, at(t.LoopPos, err)
		}
		v = r
	} else {
		r, err := tr.r.Engine.RenderValue(v, tr.sc, tr.opt)
		if err != nil {
			return nil, chain("Task failed", t.Pos, at(t.LoopPos, err))
		}
		v = r
	}
	switch t.LoopKind {
	case "with_items":
		return flattenOnce(v), nil
	case "with_dict":
		d, ok := v.(*value.Dict)
		if !ok {
			return nil, at(t.LoopPos, fmt.Errorf("with_dict expects a dict"))
		}
		var out []any
		d.Each(func(k string, e any) bool { out = append(out, value.DictOf("key", k, "value", e)); return true })
		return out, nil
	case "with_indexed_items":
		var out []any
		for i, e := range flattenOnce(v) {
			out = append(out, value.Tuple{i, e})
		}
		return out, nil
	}
	l, ok := v.([]any)
	if !ok {
		p := t.LoopPos
		return nil, &ChainError{Msg: fmt.Sprintf("The `loop` value must resolve to a 'list', not '%s'.", value.TypeName(v)), Origin: &p,
			Help: "Provide a list of items/templates, or a template resolving to a list."}
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

// runLoop runs the task once per item and aggregates the results.
func (tr *taskRun) runLoop() {
	t := tr.t
	items, err := tr.loopItems()
	if err != nil {
		tr.fail(err, nil)
		return
	}
	lc := t.LoopControl
	loopVar := value.Str(lc.Default("loop_var", "item"))
	indexVar, _ := lc.Get("index_var")
	label, hasLabel := lc.Get("label")
	extended := value.Truthy(lc.Default("extended", false))
	if len(items) == 0 {
		res := value.DictOf("changed", false, "results", []any{}, "skipped", true, "skipped_reason", "No items in the list")
		tr.register(res)
		tr.r.stat(tr.host.name).Skipped++
		tr.r.Display.Result(&Event{Host: tr.host.name, Task: t, Name: tr.name, Status: StatusSkipped, Result: value.DictOf("changed", false, "skipped_reason", "No items in the list"), NoLog: tr.noLog})
		return
	}
	var results []any
	anyChanged, anyFailed, allSkipped := false, false, true
	for i, it := range items {
		locals := value.DictOf(loopVar, it, "ansible_loop_var", loopVar)
		if indexVar != nil {
			locals.Set(value.Str(indexVar), i)
			locals.Set("ansible_index_var", value.Str(indexVar))
		}
		if extended {
			locals.Set("ansible_loop", value.DictOf("index", i+1, "index0", i, "first", i == 0, "last", i == len(items)-1, "length", len(items), "revindex", len(items)-i, "revindex0", len(items)-i-1, "allitems", items))
		}
		sc := tr.sc.with(locals, false)
		if t.Module == "include_tasks" || t.Module == "include_role" {
			ok, err := tr.evalConds(tr.f.conds(t), sc)
			if err == nil && ok {
				tr.include(locals)
			}
			continue
		}
		res := value.NewDict(8)
		ok, err := tr.evalConds(tr.f.conds(t), sc)
		if err == nil && ok {
			res, err = tr.execute(sc)
		} else if err == nil {
			res = value.DictOf("changed", false, "skip_reason", "Conditional result was False", "skipped", true)
			if conds := tr.f.conds(t); len(conds) > 0 {
				res.Set("false_condition", conds[len(conds)-1].Expr)
			}
		}
		if err != nil {
			res = value.DictOf("msg", err.Error(), "failed", true)
		}
		res.Set(loopVar, it)
		res.Set("ansible_loop_var", loopVar)
		if indexVar != nil {
			res.Set(value.Str(indexVar), i)
			res.Set("ansible_index_var", value.Str(indexVar))
		}
		if hasLabel {
			if lv, err := tr.r.Engine.RenderValue(label, sc, tr.opt); err == nil {
				res.Set("_ansible_item_label", lv)
			}
		}
		if !res.Has("changed") {
			res.Set("changed", false)
		}
		skipped := value.Truthy(res.Default("skipped", false))
		failed := value.Truthy(res.Default("failed", false))
		if !res.Has("failed") && !skipped {
			res.Set("failed", false)
		}
		status := StatusOK
		switch {
		case failed:
			anyFailed = true
			allSkipped = false
			status = StatusFailed
		case skipped:
			status = StatusSkipped
		default:
			allSkipped = false
			if value.Truthy(res.Default("changed", false)) {
				anyChanged = true
				status = StatusChanged
			}
		}
		if facts, ok := res.Get("ansible_facts"); ok && !failed {
			if d, ok := facts.(*value.Dict); ok {
				tr.host.facts.Update(d)
			}
		}
		tr.r.Display.Result(&Event{Host: tr.host.name, Task: t, Name: tr.name, Status: status, Result: res, Item: true, NoLog: tr.noLog})
		results = append(results, stripInternal(res))
	}
	if t.Module == "include_tasks" || t.Module == "include_role" {
		return
	}
	agg := value.DictOf("changed", anyChanged, "msg", "All items completed", "results", results, "skipped", allSkipped)
	if anyFailed {
		agg.Set("msg", "One or more items failed")
		agg.Set("failed", true)
		tr.register(agg)
		ignored := tr.boolOf(tr.f.keyword(t, "ignore_errors", ignoreErrorsOf))
		st := tr.r.stat(tr.host.name)
		tr.r.Display.Result(&Event{Host: tr.host.name, Task: t, Name: tr.name, Status: StatusFailed, Result: value.DictOf("msg", "One or more items failed", "changed", anyChanged), Ignored: ignored, NoLog: tr.noLog})
		if ignored {
			st.OK++
			st.Ignored++
			return
		}
		st.Failed++
		tr.host.failed = true
		return
	}
	if allSkipped {
		tr.register(agg)
		tr.r.stat(tr.host.name).Skipped++
		tr.r.Display.Result(&Event{Host: tr.host.name, Task: t, Name: tr.name, Status: StatusSkipped, Result: value.DictOf("changed", false, "msg", "All items skipped", "skipped_reason", "All items skipped"), NoLog: tr.noLog})
		return
	}
	tr.register(agg)
	st := tr.r.stat(tr.host.name)
	st.OK++
	if anyChanged {
		st.Changed++
		tr.notify()
	}
}
