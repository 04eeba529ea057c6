package run

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Inventory holds hosts, groups and their variables.
type Inventory struct {
	hosts    []string
	hostVars map[string]*value.Dict
	groups   map[string][]string
	groupVar map[string]*value.Dict
	files    map[string]string
	// dirs are where host_vars/ and group_vars/ are read from.
	dirs   []string
	merged map[string]*value.Dict
}

// NewInventory returns an empty inventory.
func NewInventory() *Inventory {
	return &Inventory{hostVars: map[string]*value.Dict{}, groups: map[string][]string{}, groupVar: map[string]*value.Dict{}, files: map[string]string{}}
}

// AddSource parses one -i argument: a comma list or a file.
func (inv *Inventory) AddSource(src string) error {
	if strings.Contains(src, ",") {
		if _, err := os.Stat(src); err != nil {
			for _, h := range strings.Split(src, ",") {
				if h = strings.TrimSpace(h); h != "" {
					inv.addHost(h, "ungrouped", "")
				}
			}
			return nil
		}
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("Unable to parse %s as an inventory source", src)
	}
	abs, _ := filepath.Abs(src)
	inv.dirs = append(inv.dirs, filepath.Dir(abs))
	trimmed := strings.TrimSpace(string(data))
	if strings.HasSuffix(src, ".yml") || strings.HasSuffix(src, ".yaml") || strings.HasPrefix(trimmed, "all:") {
		return inv.parseYAML(abs, data)
	}
	return inv.parseINI(abs, string(data))
}

// AddVarsDir adds a directory whose host_vars/group_vars are read (the
// playbook directory).
func (inv *Inventory) AddVarsDir(dir string) { inv.dirs = append(inv.dirs, dir) }

func (inv *Inventory) addHost(h, group, file string) {
	if _, ok := inv.hostVars[h]; !ok {
		inv.hosts = append(inv.hosts, h)
		inv.hostVars[h] = value.NewDict(0)
		inv.files[h] = file
	}
	for _, m := range inv.groups[group] {
		if m == h {
			return
		}
	}
	inv.groups[group] = append(inv.groups[group], h)
}

func (inv *Inventory) parseINI(file, data string) error {
	section, kind := "ungrouped", "hosts"
	sc := bufio.NewScanner(strings.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			name := line[1 : len(line)-1]
			section, kind = name, "hosts"
			if g, k, ok := strings.Cut(name, ":"); ok {
				section, kind = g, k
			}
			if _, ok := inv.groups[section]; !ok && section != "all" {
				inv.groups[section] = nil
			}
			continue
		}
		switch kind {
		case "vars":
			k, v, _ := strings.Cut(line, "=")
			d := inv.groupVars(section)
			d.Set(strings.TrimSpace(k), value.ResolvePlain(unquoteINI(strings.TrimSpace(v))))
		case "children":
			for _, h := range inv.groups[line] {
				inv.addHost(h, section, file)
			}
		default:
			fields := playbook.ParseKV(line)
			name, _ := fields.Get("_raw_params")
			host := strings.Fields(value.Str(name))[0]
			inv.addHost(host, section, file)
			fields.Each(func(k string, v any) bool {
				if k != "_raw_params" {
					inv.hostVars[host].Set(k, value.ResolvePlain(value.Str(v)))
				}
				return true
			})
		}
	}
	return sc.Err()
}

func unquoteINI(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

func (inv *Inventory) groupVars(g string) *value.Dict {
	d, ok := inv.groupVar[g]
	if !ok {
		d = value.NewDict(0)
		inv.groupVar[g] = d
	}
	return d
}

func (inv *Inventory) parseYAML(file string, data []byte) error {
	docs, _, err := value.DecodeYAML(file, data)
	if err != nil || len(docs) == 0 {
		return err
	}
	root, _ := docs[0].(*value.Dict)
	root.Each(func(g string, v any) bool {
		inv.parseYAMLGroup(file, g, v)
		return true
	})
	return nil
}

func (inv *Inventory) parseYAMLGroup(file, g string, v any) {
	d, _ := v.(*value.Dict)
	if hosts, ok := d.Get("hosts"); ok {
		if hd, ok := hosts.(*value.Dict); ok {
			hd.Each(func(h string, hv any) bool {
				inv.addHost(h, g, file)
				if vars, ok := hv.(*value.Dict); ok {
					inv.hostVars[h].Update(vars)
				}
				return true
			})
		}
	}
	if vars, ok := d.Get("vars"); ok {
		if vd, ok := vars.(*value.Dict); ok {
			inv.groupVars(g).Update(vd)
		}
	}
	if ch, ok := d.Get("children"); ok {
		if cd, ok := ch.(*value.Dict); ok {
			cd.Each(func(c string, cv any) bool {
				inv.parseYAMLGroup(file, c, cv)
				for _, h := range inv.groups[c] {
					inv.addHost(h, g, file)
				}
				return true
			})
		}
	}
}

// Match returns the hosts a play's `hosts:` pattern selects.
func (inv *Inventory) Match(pattern any) ([]string, error) {
	var pats []string
	switch p := pattern.(type) {
	case []any:
		for _, e := range p {
			pats = append(pats, value.Str(e))
		}
	default:
		for _, part := range strings.FieldsFunc(value.Str(p), func(r rune) bool { return r == ',' || r == ':' }) {
			pats = append(pats, strings.TrimSpace(part))
		}
	}
	var out []string
	seen := map[string]bool{}
	add := func(h string) {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	for _, p := range pats {
		switch {
		case p == "all" || p == "*":
			for _, h := range inv.hosts {
				add(h)
			}
		case inv.groups[p] != nil:
			for _, h := range inv.groups[p] {
				add(h)
			}
		case inv.hostVars[p] != nil:
			add(p)
		case p == "localhost" || p == "127.0.0.1":
			inv.addHost(p, "ungrouped", "")
			add(p)
		}
	}
	return out, nil
}

// HostVars returns the merged inventory variables of a host: group vars
// (all first), host vars, then group_vars/ and host_vars/ directories.
func (inv *Inventory) HostVars(h string) *value.Dict {
	if inv.merged == nil {
		inv.merged = map[string]*value.Dict{}
	}
	if d, ok := inv.merged[h]; ok {
		return d
	}
	d := value.NewDict(8)
	groups := append([]string{"all"}, inv.GroupNames(h).([]string)...)
	for _, g := range groups {
		if gv, ok := inv.groupVar[g]; ok {
			d.Update(gv)
		}
	}
	for _, dir := range inv.dirs {
		for _, g := range groups {
			d.Update(readVarsDir(filepath.Join(dir, "group_vars"), g))
		}
	}
	if hv, ok := inv.hostVars[h]; ok {
		d.Update(hv)
	}
	for _, dir := range inv.dirs {
		d.Update(readVarsDir(filepath.Join(dir, "host_vars"), h))
	}
	inv.merged[h] = d
	return d
}

func readVarsDir(dir, name string) *value.Dict {
	out := value.NewDict(0)
	for _, ext := range []string{"", ".yml", ".yaml", ".json"} {
		p := filepath.Join(dir, name+ext)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			docs, _, err := value.DecodeYAML(p, data)
			if err == nil && len(docs) > 0 {
				if d, ok := docs[0].(*value.Dict); ok {
					out.Update(d)
				}
			}
		}
	}
	return out
}

// GroupNames returns the groups of a host other than all, sorted.
func (inv *Inventory) GroupNames(h string) any {
	var out []string
	for g, members := range inv.groups {
		for _, m := range members {
			if m == h && g != "all" {
				out = append(out, g)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Groups returns every group with its hosts.
func (inv *Inventory) Groups() *value.Dict {
	d := value.NewDict(len(inv.groups) + 1)
	all := make([]any, 0, len(inv.hosts))
	for _, h := range inv.hosts {
		all = append(all, h)
	}
	d.Set("all", all)
	names := make([]string, 0, len(inv.groups))
	for g := range inv.groups {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		l := make([]any, 0, len(inv.groups[g]))
		for _, h := range inv.groups[g] {
			l = append(l, h)
		}
		d.Set(g, l)
	}
	return d
}

// Dir and File name the inventory source of a host.
func (inv *Inventory) Dir(h string) any {
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
