// Package inventory holds the hosts, groups and variables of a run, as
// ansible-core's InventoryManager sees them: INI and YAML sources, host
// lists, group_vars/host_vars directories, host patterns, and the hosts
// and groups add_host and group_by add while a play runs.
package inventory

import (
	"path/filepath"
	"slices"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/engine/vault"
)

// group is an inventory group with its direct hosts and children.
type group struct {
	name     string
	vars     *value.Dict
	hosts    []string
	children []*group
	parents  []*group
	depth    int
	priority int
}

// Inventory holds hosts, groups and their variables, the way ansible-core's
// InventoryManager sees them.
type Inventory struct {
	// Vault decrypts vault-encrypted group_vars and host_vars files (nil:
	// the run has no vault secrets).
	Vault *vault.Keyring
	// vaultErrs are the encrypted vars files that could not be decrypted.
	vaultErrs []VaultError
	hosts     []string
	hostVars  map[string]*value.Dict
	files     map[string]string
	groups    map[string]*group
	order     []*group
	// invDirs hold group_vars/ and host_vars/ beside inventory files;
	// pbDirs those beside playbooks (they win).
	invDirs, pbDirs []string
	merged          map[string]*value.Dict
	sources         []string
	// implicit is the implicit localhost, when a play needed it.
	implicit bool
	// dynamic replays the add_host and group_by changes made at run time
	// on another inventory, which meta: refresh_inventory keeps.
	dynamic []func(*Inventory)
	// listHosts are hosts given as a -i host list.
	listHosts map[string]bool
	// Warnings are collected for the display (unmatched patterns).
	warn func(string)
	// MergeHashes is hash_behaviour=merge: a host's group and host
	// variables merge dicts of the same name.
	MergeHashes bool
	// PatternMismatch is what a host pattern that matches nothing causes:
	// "warning" (the default), "error" or "ignore".
	PatternMismatch string
	// sourceErrs are the files of inventory directories that no plugin
	// parsed (see SourceErrors).
	sourceErrs []*SourceError
	// Deprecate, when set, receives the deprecations of inventory
	// plugins (the script plugin's).
	Deprecate func(*diag.Diagnostic)
}

// New returns an empty inventory with the all and ungrouped groups.
func New() *Inventory {
	inv := &Inventory{hostVars: map[string]*value.Dict{}, files: map[string]string{}, groups: map[string]*group{}, listHosts: map[string]bool{}}
	inv.group("all")
	inv.link("all", "ungrouped")
	return inv
}

// SetWarn sets where inventory warnings go.
func (inv *Inventory) SetWarn(fn func(string)) { inv.warn = fn }

func (inv *Inventory) warning(msg string) {
	if inv.warn != nil {
		inv.warn(msg)
	}
}

// group returns (creating) a group.
func (inv *Inventory) group(name string) *group {
	g, ok := inv.groups[name]
	if !ok {
		g = &group{name: name, vars: value.NewDict(0), priority: 1}
		inv.groups[name] = g
		inv.order = append(inv.order, g)
	}
	return g
}

// link makes child a child group of parent.
func (inv *Inventory) link(parent, child string) {
	p, c := inv.group(parent), inv.group(child)
	for _, x := range p.children {
		if x == c {
			return
		}
	}
	p.children = append(p.children, c)
	c.parents = append(c.parents, p)
	inv.fixDepth(c, p.depth+1, 0)
}

func (inv *Inventory) fixDepth(g *group, d, guard int) {
	if d <= g.depth || guard > len(inv.order) {
		return
	}
	g.depth = d
	for _, c := range g.children {
		inv.fixDepth(c, d+1, guard+1)
	}
}

// Hosts lists every host of the inventory, in definition order.
func (inv *Inventory) Hosts() []string { return inv.hosts }

// Sources lists the inventory sources given with -i.
func (inv *Inventory) Sources() []string { return inv.sources }

// ParsedMessage is what ansible-playbook -vvv says about parsing src.
func (inv *Inventory) ParsedMessage(src string) string {
	if !fileExists(src) {
		return "Parsed " + src + " inventory source with host_list plugin"
	}
	abs, _ := filepath.Abs(src)
	declined := func(p string) string {
		return p + " declined parsing " + abs + " as it did not pass its verify_file() method\n"
	}
	if isScript(abs) {
		return declined("host_list") + "Parsed " + abs + " inventory source with script plugin"
	}
	if isYAMLInventory(src, nil) {
		return declined("host_list") + declined("script") + "Parsed " + abs + " inventory source with yaml plugin"
	}
	msg := declined("host_list") + declined("script") + declined("auto")
	if _, ext := py.Splitext(abs); ext != "" {
		// The yaml plugin tries files without an extension (and fails
		// quietly on INI); it declines only other extensions.
		msg += declined("yaml")
	}
	return msg + "Parsed " + abs + " inventory source with ini plugin"
}

func (inv *Inventory) addHost(h, grp, file string) {
	if _, ok := inv.hostVars[h]; !ok {
		inv.hosts = append(inv.hosts, h)
		inv.hostVars[h] = value.NewDict(0)
		inv.files[h] = file
	}
	g := inv.group(grp)
	for _, m := range g.hosts {
		if m == h {
			return
		}
	}
	g.hosts = append(g.hosts, h)
}

// reconcile puts parentless groups under all and groupless hosts in
// ungrouped, as ansible-core's reconcile_inventory does.
func (inv *Inventory) reconcile() {
	for _, g := range inv.order {
		if g.name != "all" && len(g.parents) == 0 {
			inv.link("all", g.name)
		}
	}
	for _, h := range inv.hosts {
		only := true
		for _, g := range inv.order {
			if g.name != "all" && g.name != "ungrouped" && slices.Contains(g.hosts, h) {
				only = false
				break
			}
		}
		if only {
			inv.addHost(h, "ungrouped", inv.files[h])
		} else if ug := inv.groups["ungrouped"]; slices.Contains(ug.hosts, h) {
			var keep []string
			for _, x := range ug.hosts {
				if x != h {
					keep = append(keep, x)
				}
			}
			ug.hosts = keep
		}
	}
}
