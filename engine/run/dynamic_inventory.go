package run

import (
	"regexp"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// invalidGroupChars matches what ansible-core's to_safe_group_name
// objects to in a group name (C.INVALID_VARIABLE_NAMES, `^[\d\W]|[^\w]`
// on a str, where \w and \d are Unicode word characters and digits).
var invalidGroupChars = regexp.MustCompile(`^\p{Nd}|[^\p{L}\p{N}_]`)

// invalidGroupWarning is ansible-core's warning for such a name with the
// default TRANSFORM_INVALID_GROUP_CHARS (never).
const invalidGroupWarning = "Invalid characters were found in group names but not replaced, use -vvvv to see details"

// addGroup creates a group at run time, warning about a name ansible-core
// would call invalid; it reports whether the group is new.
func (r *Runner) addGroup(name string) bool {
	if _, ok := r.Inventory.groups[name]; ok {
		return false
	}
	if invalidGroupChars.MatchString(name) {
		r.warn(Warning{Msg: invalidGroupWarning})
	}
	r.Inventory.group(name)
	return true
}

// addDynamicHost applies an add_host result to the in-memory inventory,
// as InventoryManager.add_dynamic_host does, and reports whether the
// inventory changed: a new host, new or changed variables, a new group
// or a new membership.
func (r *Runner) addDynamicHost(info *value.Dict) bool {
	inv := r.Inventory
	name := value.Str(info.Default("host_name", ""))
	changed := false
	if _, ok := inv.hostVars[name]; !ok {
		inv.addHost(name, "all", "")
		changed = true
	}
	if vars, ok := info.Default("host_vars", nil).(*value.Dict); ok {
		hv := inv.hostVars[name]
		before := hv.Copy()
		hv.Update(vars)
		if !value.Equal(before, hv) {
			changed = true
		}
	}
	groups, _ := info.Default("groups", nil).([]any)
	for _, g := range groups {
		gname := value.Str(g)
		if r.addGroup(gname) {
			changed = true
		}
		if !containsStr(inv.groups[gname].hosts, name) {
			inv.addHost(name, gname, "")
			changed = true
		}
	}
	if changed {
		inv.reconcile()
	}
	inv.merged = nil
	return changed
}

// addDynamicGroup applies a group_by result for host, as
// InventoryManager.add_dynamic_group does: the group and its parents are
// created, linked, and the host joins the group.
func (r *Runner) addDynamicGroup(host string, res *value.Dict) bool {
	inv := r.Inventory
	name := value.Str(res.Default("add_group", ""))
	parents, _ := res.Default("parent_groups", nil).([]any)
	r.addGroup(name)
	changed := false
	for _, p := range parents {
		if r.addGroup(value.Str(p)) {
			changed = true
		}
	}
	g := inv.groups[name]
	for _, p := range parents {
		if !containsGroup(inv.groups[value.Str(p)].children, g) {
			inv.link(value.Str(p), name)
			changed = true
		}
	}
	if !containsStr(inv.groupHosts(g), host) {
		inv.addHost(host, name, inv.files[host])
		changed = true
	}
	if changed {
		inv.reconcile()
	}
	inv.merged = nil
	return changed
}

func containsGroup(l []*group, g *group) bool {
	for _, x := range l {
		if x == g {
			return true
		}
	}
	return false
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
		tr.r.Display.Result(&Event{Host: tr.host.name, Task: tr.t, Name: tr.name, Status: status, Result: it, Item: true,
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
