package inventory

import (
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/engine/vault"
)

// hostGroups lists every group a host belongs to, with ancestors,
// sorted as ansible-core's sort_groups (depth, priority, name).
func (inv *Inventory) hostGroups(h string) []*group {
	set := map[*group]bool{}
	var visit func(g *group)
	visit = func(g *group) {
		if set[g] {
			return
		}
		set[g] = true
		for _, p := range g.parents {
			visit(p)
		}
	}
	for _, g := range inv.order {
		if slices.Contains(g.hosts, h) {
			visit(g)
		}
	}
	var out []*group
	for g := range set {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.depth != b.depth {
			return a.depth < b.depth
		}
		if a.priority != b.priority {
			return a.priority < b.priority
		}
		return a.name < b.name
	})
	return out
}

// HostVars returns the merged inventory variables of a host, in
// ansible-core's default VARIABLE_PRECEDENCE: the all group, other
// groups, group_vars/ beside the inventory then beside the playbook,
// then the host's own vars, host_vars/ beside the inventory, then beside
// the playbook.
func (inv *Inventory) HostVars(h string) *value.Dict {
	if inv.merged == nil {
		inv.merged = map[string]*value.Dict{}
	}
	if d, ok := inv.merged[h]; ok {
		return d
	}
	d := value.NewDict(8)
	var others []*group
	for _, g := range inv.hostGroups(h) {
		if g.name != "all" {
			others = append(others, g)
		}
	}
	d = inv.combine(d, inv.groups["all"].vars)
	for _, g := range others {
		d = inv.combine(d, g.vars)
	}
	for _, dirs := range [][]string{inv.invDirs, inv.pbDirs} {
		for _, dir := range dirs {
			d = inv.combine(d, inv.readVarsDir(filepath.Join(dir, "group_vars"), "all"))
		}
	}
	for _, dirs := range [][]string{inv.invDirs, inv.pbDirs} {
		for _, g := range others {
			for _, dir := range dirs {
				d = inv.combine(d, inv.readVarsDir(filepath.Join(dir, "group_vars"), g.name))
			}
		}
	}
	if hv, ok := inv.hostVars[h]; ok {
		d = inv.combine(d, hv)
	}
	for _, dirs := range [][]string{inv.invDirs, inv.pbDirs} {
		for _, dir := range dirs {
			d = inv.combine(d, inv.readVarsDir(filepath.Join(dir, "host_vars"), h))
		}
	}
	inv.merged[h] = d
	return d
}

// combine layers src over d: a copy merged under hash_behaviour=merge,
// else d itself updated.
func (inv *Inventory) combine(d, src *value.Dict) *value.Dict {
	if inv.MergeHashes {
		return playbook.CombineVars(d, src, true)
	}
	d.Update(src)
	return d
}

// readVarsDir reads group_vars/NAME or host_vars/NAME: a file (with or
// without a YAML/JSON extension) or a directory of such files.
func (inv *Inventory) readVarsDir(dir, name string) *value.Dict {
	out := value.NewDict(0)
	base := filepath.Join(dir, name)
	if st, err := os.Stat(base); err == nil && st.IsDir() {
		entries, _ := os.ReadDir(base)
		for _, e := range entries {
			if !e.IsDir() {
				out.Update(inv.readVarsFile(filepath.Join(base, e.Name())))
			}
		}
		return out
	}
	for _, ext := range []string{"", ".yml", ".yaml", ".json"} {
		if p := base + ext; fileExists(p) {
			out.Update(inv.readVarsFile(p))
		}
	}
	return out
}

func (inv *Inventory) readVarsFile(p string) *value.Dict {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	if vault.IsEncrypted(data) {
		if data, err = inv.Vault.Decrypt(data); err != nil {
			inv.vaultErrs = append(inv.vaultErrs, VaultError{Path: p, Err: err})
			return nil
		}
	}
	docs, nodes, err := value.DecodeYAML(p, data)
	if err == nil && len(docs) > 0 {
		if d, ok := docs[0].(*value.Dict); ok {
			if len(nodes) > 0 {
				playbook.RecordOrigins(p, nodes[0], d)
			}
			return d
		}
	}
	return nil
}

// GroupNames returns the groups of a host other than all, sorted.
func (inv *Inventory) GroupNames(h string) any {
	out := []string{}
	for _, g := range inv.hostGroups(h) {
		if g.name != "all" {
			out = append(out, g.name)
		}
	}
	sort.Strings(out)
	return out
}

// Groups returns every group with its hosts (the groups magic variable).
func (inv *Inventory) Groups() *value.Dict {
	d := value.NewDict(len(inv.order))
	for _, g := range inv.order {
		l := []any{}
		for _, h := range inv.groupHosts(g) {
			l = append(l, h)
		}
		d.Set(g.name, l)
	}
	return d
}

// Dir and File name the inventory source of a host. A host from a -i
// host list has the list as its file and no directory.
func (inv *Inventory) Dir(h string) any {
	if inv.listHosts[h] {
		// ansible-core stores the string 'None' for a host list.
		return "None"
	}
	if f := inv.files[h]; f != "" {
		return filepath.Dir(f)
	}
	return nil
}

// File names the inventory file of a host.
func (inv *Inventory) File(h string) any {
	if f := inv.files[h]; f != "" {
		return f
	}
	return nil
}

// fileExists reports whether p names a regular file (or anything but a
// directory).
func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// IsLocalhost reports the names that stand for the implicit localhost
// (ansible-core's C.LOCALHOST).
func IsLocalhost(name string) bool {
	return name == "localhost" || name == "127.0.0.1" || name == "::1"
}

// SourceErrors returns, and forgets, the files of inventory directories
// that no plugin could parse.
func (inv *Inventory) SourceErrors() []*SourceError {
	errs := inv.sourceErrs
	inv.sourceErrs = nil
	return errs
}

// VaultError is an encrypted group_vars or host_vars file that could not
// be decrypted.
type VaultError struct {
	Path string
	Err  error
}

// VaultErrors returns the encrypted vars files read so far that could not
// be decrypted, once each.
func (inv *Inventory) VaultErrors() []VaultError {
	seen := map[string]bool{}
	var out []VaultError
	for _, e := range inv.vaultErrs {
		if !seen[e.Path] {
			seen[e.Path] = true
			out = append(out, e)
		}
	}
	return out
}
