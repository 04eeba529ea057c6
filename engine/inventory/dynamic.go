package inventory

import (
	"fmt"
	"regexp"
	"slices"

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
func (inv *Inventory) addGroup(name string) bool {
	if _, ok := inv.groups[name]; ok {
		return false
	}
	if invalidGroupChars.MatchString(name) {
		inv.warning(invalidGroupWarning)
	}
	inv.group(name)
	return true
}

// AddDynamicHost adds a host while a play runs (add_host), as
// InventoryManager.add_dynamic_host does: the host, its variables and its
// groups. It reports whether the inventory changed: a new host, new or
// changed variables, a new group or a new membership.
func (inv *Inventory) AddDynamicHost(name string, vars *value.Dict, groups []string) bool {
	saved := vars
	if saved != nil {
		saved = saved.Copy()
	}
	inv.dynamic = append(inv.dynamic, func(to *Inventory) { to.AddDynamicHost(name, saved, slices.Clone(groups)) })
	changed := false
	if inv.implicitOnly(name) {
		// The implicit localhost becomes an inventory host, which
		// ansible-core counts as a second localhost.
		inv.warning(fmt.Sprintf("A duplicate localhost-like entry was found (%s). First found localhost was %s", name, name))
	}
	if _, ok := inv.hostVars[name]; !ok {
		inv.addHost(name, "all", "")
		changed = true
	}
	if vars != nil {
		hv := inv.hostVars[name]
		before := hv.Copy()
		hv.Update(vars)
		if !value.Equal(before, hv) {
			changed = true
		}
	}
	for _, gname := range groups {
		if inv.addGroup(gname) {
			changed = true
		}
		if !slices.Contains(inv.groups[gname].hosts, name) {
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

// AddDynamicGroup puts host in a group while a play runs (group_by), as
// InventoryManager.add_dynamic_group does: the group and its parents are
// created and linked, and the host joins the group. It reports whether
// the inventory changed.
func (inv *Inventory) AddDynamicGroup(host, name string, parents []string) bool {
	inv.dynamic = append(inv.dynamic, func(to *Inventory) {
		// A host the re-read sources dropped stays out.
		if _, ok := to.hostVars[host]; ok {
			to.AddDynamicGroup(host, name, slices.Clone(parents))
		}
	})
	inv.addGroup(name)
	changed := false
	for _, p := range parents {
		if inv.addGroup(p) {
			changed = true
		}
	}
	g := inv.groups[name]
	for _, p := range parents {
		if !slices.Contains(inv.groups[p].children, g) {
			inv.link(p, name)
			changed = true
		}
	}
	if !slices.Contains(inv.groupHosts(g), host) {
		inv.addHost(host, name, inv.files[host])
		changed = true
	}
	if changed {
		inv.reconcile()
	}
	inv.merged = nil
	return changed
}

// FromGroups builds an inventory from a groups variable (each group with
// the hosts it lists, nothing nested), as ansible-core's
// inventory_hostnames lookup rebuilds one to select hosts with patterns.
func FromGroups(groups *value.Dict) *Inventory {
	inv := New()
	groups.Each(func(name string, hosts any) bool {
		inv.group(name)
		l, _ := hosts.([]any)
		for _, h := range l {
			inv.addHost(value.Str(h), name, "")
		}
		return true
	})
	return inv
}

// ReplayDynamic makes on inv the run-time changes (add_host, group_by)
// made on from, as InventoryManager.refresh_inventory re-adds its cached
// dynamic hosts and groupings to the re-read sources.
func (inv *Inventory) ReplayDynamic(from *Inventory) {
	for _, change := range from.dynamic {
		change(inv)
	}
}

// implicitOnly reports a host that is the implicit localhost and no
// member of any group yet.
func (inv *Inventory) implicitOnly(name string) bool {
	if _, ok := inv.hostVars[name]; !ok || !inv.implicit || !IsLocalhost(name) {
		return false
	}
	for _, g := range inv.groups {
		if slices.Contains(g.hosts, name) {
			return false
		}
	}
	return true
}
