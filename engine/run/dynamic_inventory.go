package run

import (
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// addDynamicHost applies an add_host result to the inventory and reports
// whether it changed.
func (r *Runner) addDynamicHost(info *value.Dict) bool {
	vars, _ := info.Default("host_vars", nil).(*value.Dict)
	if vars != nil {
		// The variables were rendered from the task's arguments: what
		// still looks like a template there came from data.
		vars, _ = markUntrusted(vars).(*value.Dict)
	}
	return r.Inventory.AddDynamicHost(value.Str(info.Default("host_name", "")), vars, strList(info.Default("groups", nil)))
}

// addDynamicGroup applies a group_by result for host to the inventory and
// reports whether it changed.
func (r *Runner) addDynamicGroup(host string, res *value.Dict) bool {
	return r.Inventory.AddDynamicGroup(host, value.Str(res.Default("add_group", "")), strList(res.Default("parent_groups", nil)))
}

// strList is a list value's items as strings (none when v is no list).
func strList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, len(l))
	for i, e := range l {
		out[i] = value.Str(e)
	}
	return out
}

// applyInventory applies an add_host or group_by result (each loop item's
// for a loop) to the inventory, as the strategy does before it reports
// the result: `changed` says whether the inventory changed, then
// changed_when and failed_when are evaluated again, and loop items,
// whose display waited for this, are shown.
func (tr *taskRun) applyInventory(res *value.Dict, loop bool) {
	for _, it := range resultItems(res, loop) {
		if isFailed(it) || isSkipped(it) {
			continue
		}
		if info, ok := it.Default("add_host", nil).(*value.Dict); ok {
			it.Set("changed", tr.r.addDynamicHost(info))
			tr.recordHostVarOrigins(info)
		} else if it.Has("add_group") {
			it.Set("changed", tr.r.addDynamicGroup(tr.host.name, it))
		} else {
			continue
		}
		tr.reapplyConditions(it, loop)
		if !loop {
			continue
		}
		status := StatusOK
		if isChanged(it) {
			status = StatusChanged
			res.Set("changed", true)
		}
		if value.Truthy(it.Default("failed", false)) {
			res.Set("failed", true)
		}
		tr.r.report(&Event{Host: tr.host.name, Task: tr.t, Name: tr.name, Status: status, Result: it, Item: true,
			NoLog: tr.noLog, Delegate: tr.delegate, Diff: tr.diffMode()})
	}
}

// reapplyConditions evaluates changed_when and failed_when once more
// against the result the inventory update changed, with the result as
// the registered variable and a loop item's variables.
func (tr *taskRun) reapplyConditions(it *value.Dict, loop bool) {
	t := tr.t
	if len(t.ChangedWhen) == 0 && len(t.FailedWhen) == 0 {
		return
	}
	vars := value.NewDict(4)
	if loop {
		loopVar := value.Str(it.Default("ansible_loop_var", "item"))
		for _, k := range []string{loopVar, value.Str(it.Default("ansible_index_var", "")), "ansible_loop", "_ansible_item_label"} {
			if v, ok := it.Get(k); ok && k != "" {
				vars.Set(k, v)
			}
		}
	}
	if t.Register != "" {
		vars.Set(t.Register, it)
	}
	tr.applyChangedFailed(it, tr.sc.with(vars, false))
}

// resultItems are the results a task's result stands for: each item's
// for a loop, else the result itself.
func resultItems(res *value.Dict, loop bool) []*value.Dict {
	if !loop {
		return []*value.Dict{res}
	}
	var items []*value.Dict
	for _, e := range res.Default("results", nil).([]any) {
		if d, ok := e.(*value.Dict); ok {
			items = append(items, d)
		}
	}
	return items
}

// deferredItem reports whether a loop item's result waits for the
// inventory update before it is shown (ansible-core's inventory tasks).
func deferredItem(t *taskRun, status Status) bool {
	return t.t.Info.Flags&module.InventoryAction != 0 && (status == StatusOK || status == StatusChanged)
}

// recordHostVarOrigins records that the variables add_host gave a host
// were written as the task's arguments, as ansible-core's values keep
// their origin (for the messages about them). The inventory keeps the
// record until its next change.
func (tr *taskRun) recordHostVarOrigins(info *value.Dict) {
	vars, _ := info.Default("host_vars", nil).(*value.Dict)
	name := value.Str(info.Default("host_name", ""))
	if vars == nil || name == "" {
		return
	}
	hv := tr.r.Inventory.HostVars(name)
	vars.Each(func(k string, _ any) bool {
		if pos, ok := tr.t.ArgPos[k]; ok {
			playbook.SetOrigin(hv, k, pos)
		}
		return true
	})
}
