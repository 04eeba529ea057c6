// Package inventory holds the hosts, groups and variables of a run, as
// ansible-core's InventoryManager sees them: INI and YAML sources, host
// lists, group_vars/host_vars directories, host patterns, and the hosts
// and groups add_host and group_by add while a play runs.
package inventory

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/playbook"
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

func isYAMLInventory(src string, data []byte) bool {
	for _, ext := range []string{".yml", ".yaml", ".json"} {
		if strings.HasSuffix(src, ext) {
			return true
		}
	}
	return data != nil && strings.HasPrefix(strings.TrimSpace(string(data)), "all:")
}

// AddSource parses one -i argument: a comma list of hosts, a file, or a
// directory of inventory files.
func (inv *Inventory) AddSource(src string) error {
	if st, err := os.Stat(src); err == nil && st.IsDir() {
		return inv.addSourceDir(src)
	}
	if abs, err := filepath.Abs(src); err == nil && fileExists(src) {
		inv.sources = append(inv.sources, abs)
	} else {
		inv.sources = append(inv.sources, src)
	}
	inv.merged = nil
	if !fileExists(src) && strings.Contains(src, ",") {
		for _, h := range strings.Split(src, ",") {
			if h = strings.TrimSpace(h); h != "" {
				inv.addHost(h, "ungrouped", src)
				inv.listHosts[h] = true
			}
		}
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("Unable to parse %s as an inventory source", src)
	}
	abs, _ := filepath.Abs(src)
	inv.invDirs = appendUnique(inv.invDirs, filepath.Dir(abs))
	err = inv.parseFile(abs, data)
	inv.reconcile()
	inv.warnConflicts()
	return err
}

// warnConflicts warns about names that are both a group and a host, as
// ansible-core's reconcile_inventory does after parsing sources.
func (inv *Inventory) warnConflicts() {
	var names []string
	for _, h := range inv.hosts {
		if _, ok := inv.groups[h]; ok {
			names = append(names, h)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		inv.warning("Found both group and host with same name: " + n)
	}
}

// parseFile parses one inventory file as ansible-core's plugins would, in
// their order: an executable is an inventory script, a YAML file with a
// plugin key an inventory plugin's configuration (which cfzt-runner
// refuses: it runs no inventory plugin), else YAML or INI.
func (inv *Inventory) parseFile(abs string, data []byte) error {
	if isScript(abs) {
		if err := inv.parseScript(abs); err != nil {
			return &SourceError{Source: abs, Failures: []PluginFailure{scriptFailure(err, abs)}}
		}
		return nil
	}
	if plugin := pluginConfig(abs, data); plugin != "" {
		return pluginRefusal(abs, plugin, data)
	}
	if isYAMLInventory(abs, data) {
		return inv.parseYAML(abs, data)
	}
	return inv.parseINI(abs, string(data))
}

// ignoredInventoryEntry matches the directory entries ansible-core skips
// in an inventory directory: hidden ones, group_vars, host_vars and
// vars_plugins, and the INVENTORY_IGNORE_EXTS extensions.
var ignoredInventoryEntry = regexp.MustCompile(`^\.|^host_vars$|^group_vars$|^vars_plugins$|(\.pyc|\.pyo|\.swp|\.bak|~|\.rpm|\.md|\.txt|\.rst|\.orig|\.cfg|\.retry)$`)

// addSourceDir parses an inventory directory as ansible-core does: its
// entries in name order, subdirectories recursively, the ignored ones
// skipped. Its group_vars/ and host_vars/ are the directory's own.
func (inv *Inventory) addSourceDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	inv.sources = append(inv.sources, abs)
	inv.merged = nil
	inv.invDirs = appendUnique(inv.invDirs, abs)
	err = inv.parseDir(abs)
	inv.reconcile()
	inv.warnConflicts()
	return err
}

func (inv *Inventory) parseDir(dir string) error {
	names, err := readDirSorted(dir)
	if err != nil {
		return fmt.Errorf("Unable to parse %s as an inventory source", dir)
	}
	for _, name := range names {
		if ignoredInventoryEntry.MatchString(name) {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			if err := inv.parseDir(p); err != nil {
				return err
			}
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("Unable to parse %s as an inventory source", p)
		}
		if err := inv.parseFile(p, data); err != nil {
			var se *SourceError
			if !errors.As(err, &se) {
				return err
			}
			// As ansible-core parses each file of the directory as a
			// source of its own, the others still count.
			inv.sourceErrs = append(inv.sourceErrs, se)
		}
	}
	return nil
}

// readDirSorted lists a directory's entry names in sorted order.
func readDirSorted(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

func appendUnique(l []string, s string) []string {
	for _, x := range l {
		if x == s {
			return l
		}
	}
	return append(l, s)
}

// AddVarsDir adds a playbook directory, whose group_vars/ and host_vars/
// take precedence over those beside the inventory.
func (inv *Inventory) AddVarsDir(dir string) {
	inv.pbDirs = appendUnique(inv.pbDirs, dir)
	inv.merged = nil
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

var hostRange = regexp.MustCompile(`^(.*)\[([0-9a-zA-Z]+):([0-9a-zA-Z]+)(?::([0-9]+))?\](.*)$`)

// expandHost expands one host range such as web[01:03].
func expandHost(name string) []string {
	m := hostRange.FindStringSubmatch(name)
	if m == nil {
		return []string{name}
	}
	step := 1
	if m[4] != "" {
		step, _ = strconv.Atoi(m[4])
		if step < 1 {
			step = 1
		}
	}
	var out []string
	if a, err := strconv.Atoi(m[2]); err == nil {
		b, err := strconv.Atoi(m[3])
		if err != nil {
			return []string{name}
		}
		width := 0
		if strings.HasPrefix(m[2], "0") && len(m[2]) > 1 {
			width = len(m[2])
		}
		for i := a; i <= b; i += step {
			for _, rest := range expandHost(m[5]) {
				out = append(out, fmt.Sprintf("%s%0*d%s", m[1], width, i, rest))
			}
		}
		return out
	}
	if len(m[2]) == 1 && len(m[3]) == 1 {
		for c := m[2][0]; c <= m[3][0]; c += byte(step) {
			for _, rest := range expandHost(m[5]) {
				out = append(out, m[1]+string(c)+rest)
			}
		}
		return out
	}
	return []string{name}
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
			inv.group(section)
			continue
		}
		switch kind {
		case "vars":
			k, v, _ := strings.Cut(line, "=")
			inv.setGroupVar(inv.group(section), strings.TrimSpace(k), py.LiteralEval(strings.TrimSpace(v)))
		case "children":
			inv.link(section, strings.Fields(line)[0])
		default:
			fields := playbook.ParseKV(line)
			name, _ := fields.Get("_raw_params")
			for _, host := range expandHost(strings.Fields(value.Str(name))[0]) {
				inv.addHost(host, section, file)
				fields.Each(func(k string, v any) bool {
					if k != "_raw_params" {
						inv.setVar(inv.hostVars[host], k, py.LiteralEval(value.Str(v)))
					}
					return true
				})
			}
		}
	}
	return sc.Err()
}

// setVar sets an inventory variable of a host or group as Host and
// Group.set_variable do: under hash_behaviour=merge a dict merges into
// the dict an earlier source gave the same name.
func (inv *Inventory) setVar(vars *value.Dict, k string, v any) {
	if old, ok := vars.Get(k); ok && inv.MergeHashes {
		od, oldIsDict := old.(*value.Dict)
		nd, newIsDict := v.(*value.Dict)
		if oldIsDict && newIsDict {
			v = value.MergeHash(od, nd, true, "replace")
		}
	}
	vars.Set(k, v)
}

func (inv *Inventory) setGroupVar(g *group, k string, v any) {
	inv.setVar(g.vars, k, v)
	if k == "ansible_group_priority" {
		if n, ok := value.AsInt(v); ok {
			g.priority = n
		}
	}
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

func (inv *Inventory) parseYAMLGroup(file, name string, v any) {
	g := inv.group(name)
	d, _ := v.(*value.Dict)
	if hosts, ok := d.Get("hosts"); ok {
		if hd, ok := hosts.(*value.Dict); ok {
			hd.Each(func(h string, hv any) bool {
				for _, host := range expandHost(h) {
					inv.addHost(host, name, file)
					if vars, ok := hv.(*value.Dict); ok {
						vars.Each(func(k string, v any) bool { inv.setVar(inv.hostVars[host], k, v); return true })
					}
				}
				return true
			})
		}
	}
	if vars, ok := d.Get("vars"); ok {
		if vd, ok := vars.(*value.Dict); ok {
			vd.Each(func(k string, v any) bool { inv.setGroupVar(g, k, v); return true })
		}
	}
	if ch, ok := d.Get("children"); ok {
		if cd, ok := ch.(*value.Dict); ok {
			cd.Each(func(c string, cv any) bool {
				inv.link(name, c)
				inv.parseYAMLGroup(file, c, cv)
				return true
			})
		}
	}
}

// groupHosts lists a group's hosts: its own and its descendants', in
// ansible-core's order (the group, its children, then deeper levels).
func (inv *Inventory) groupHosts(g *group) []string {
	ordered := []*group{g}
	ordered = append(ordered, g.children...)
	seen := map[*group]bool{g: true}
	level := append([]*group{}, g.children...)
	for _, c := range level {
		seen[c] = true
	}
	for len(level) > 0 {
		var next []*group
		for _, x := range level {
			for _, c := range x.children {
				ordered = append(ordered, c)
				if !seen[c] {
					seen[c] = true
					next = append(next, c)
				}
			}
		}
		level = next
	}
	var out []string
	have := map[string]bool{}
	for _, x := range ordered {
		for _, h := range x.hosts {
			if !have[h] {
				have[h] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// splitPattern splits a host pattern on commas and colons (not inside
// ranges or IPv6 addresses).
func splitPattern(p string) []string {
	var out []string
	depth := 0
	cur := strings.Builder{}
	for _, r := range p {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		}
		if (r == ',' || r == ':') && depth == 0 {
			if s := strings.TrimSpace(cur.String()); s != "" {
				out = append(out, s)
			}
			cur.Reset()
			continue
		}
		cur.WriteRune(r)
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}

// matchOne returns the hosts one pattern (without its ! or & prefix)
// selects.
func (inv *Inventory) matchOne(p string) []string {
	if p == "all" || p == "*" {
		return inv.groupHosts(inv.groups["all"])
	}
	if g, ok := inv.groups[p]; ok {
		return inv.groupHosts(g)
	}
	if _, ok := inv.hostVars[p]; ok {
		return []string{p}
	}
	var out []string
	if strings.HasPrefix(p, "~") {
		// A Python regex, applied with re.match: anchored at the start
		// of the name.
		re, err := py.CompilePattern(p[1:], py.RegexText)
		if err != nil {
			return nil
		}
		matches := func(name string) bool {
			loc, err := re.FindStringIndex(name)
			return err == nil && loc != nil && loc[0] == 0
		}
		for _, g := range inv.order {
			if matches(g.name) {
				out = append(out, inv.groupHosts(g)...)
			}
		}
		for _, h := range inv.hosts {
			if matches(h) {
				out = append(out, h)
			}
		}
		return out
	}
	if strings.ContainsAny(p, "*?[") {
		for _, g := range inv.order {
			if ok, _ := filepath.Match(p, g.name); ok {
				out = append(out, inv.groupHosts(g)...)
			}
		}
		for _, h := range inv.hosts {
			if ok, _ := filepath.Match(p, h); ok {
				out = append(out, h)
			}
		}
		return out
	}
	if IsLocalhost(p) {
		inv.implicit = true
		if _, ok := inv.hostVars[p]; !ok {
			inv.hosts = append(inv.hosts, p)
			inv.hostVars[p] = value.DictOf("ansible_connection", "local")
		}
		return []string{p}
	}
	return nil
}

// matchChecked matches one pattern, warning about (or, as configured,
// failing on or ignoring) a pattern that matches nothing.
func (inv *Inventory) matchChecked(pattern string) ([]string, error) {
	p, sub, dashed := splitSubscript(pattern)
	if dashed {
		inv.warning("Use [x:y] inclusive subscripts instead of [x-y] which has been removed")
	}
	hosts := inv.matchOne(p)
	if _, isGroup := inv.groups[p]; len(hosts) > 0 || isGroup || p == "all" || p == "*" {
		return sub.apply(hosts, pattern)
	}
	msg := "Could not match supplied host pattern, ignoring: " + p
	switch inv.PatternMismatch {
	case "error":
		return nil, errors.New(msg)
	case "ignore":
	default:
		inv.warning(msg)
	}
	return hosts, nil
}

// Match returns the hosts a play's `hosts:` pattern selects, warning
// about patterns that match nothing.
func (inv *Inventory) Match(pattern any) ([]string, error) {
	var pats []string
	switch p := pattern.(type) {
	case []any:
		for _, e := range p {
			pats = append(pats, splitPattern(value.Str(e))...)
		}
	default:
		pats = splitPattern(value.Str(p))
	}
	// Plain patterns first, then intersections, then exclusions.
	var out []string
	seen := map[string]bool{}
	for _, p := range pats {
		if strings.HasPrefix(p, "!") || strings.HasPrefix(p, "&") {
			continue
		}
		hosts, err := inv.matchChecked(p)
		if err != nil {
			return nil, err
		}
		for _, h := range hosts {
			if !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	for _, p := range pats {
		if !strings.HasPrefix(p, "&") {
			continue
		}
		keep := map[string]bool{}
		hosts, err := inv.matchChecked(p[1:])
		if err != nil {
			return nil, err
		}
		for _, h := range hosts {
			keep[h] = true
		}
		var next []string
		for _, h := range out {
			if keep[h] {
				next = append(next, h)
			}
		}
		out = next
	}
	for _, p := range pats {
		if !strings.HasPrefix(p, "!") {
			continue
		}
		drop := map[string]bool{}
		hosts, err := inv.matchChecked(p[1:])
		if err != nil {
			return nil, err
		}
		for _, h := range hosts {
			drop[h] = true
		}
		var next []string
		for _, h := range out {
			if !drop[h] {
				next = append(next, h)
			}
		}
		out = next
	}
	return out, nil
}

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
