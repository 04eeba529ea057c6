package run

import (
	"os"
	"slices"
	"sort"

	"github.com/cfzt/cfzt-runner/engine/inventory"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// hostMagic are the magic variables that describe a host and the run,
// which hostvars shows too.
func (r *Runner) hostMagic(pbDir, host string) *value.Dict {
	short := host
	for i, c := range host {
		if c == '.' {
			short = host[:i]
			break
		}
	}
	tags := []any{}
	for _, t := range r.Opts.Tags {
		tags = append(tags, t)
	}
	if len(tags) == 0 {
		tags = []any{"all"}
	}
	skip := []any{}
	for _, t := range r.Opts.SkipTags {
		skip = append(skip, t)
	}
	sources := []any{}
	for _, s := range r.Inventory.Sources() {
		sources = append(sources, s)
	}
	exe, _ := os.Executable()
	m := value.DictOf(
		"inventory_hostname", host,
		"inventory_hostname_short", short,
		"group_names", groupNames(r.Inventory, host),
		"groups", r.Inventory.Groups(),
		"inventory_dir", r.Inventory.Dir(host),
		"inventory_file", r.Inventory.File(host),
		"playbook_dir", pbDir,
		"ansible_check_mode", r.Opts.Check,
		"ansible_diff_mode", r.Opts.Diff,
		"ansible_verbosity", r.Opts.Verbosity,
		"ansible_run_tags", tags,
		"ansible_skip_tags", skip,
		"ansible_forks", r.forks(),
		"ansible_inventory_sources", sources,
		"ansible_playbook_python", exe,
		"ansible_config_file", r.ConfigFile,
		"ansible_version", value.DictOf("full", "2.19.11", "major", 2, "minor", 19, "revision", 11, "string", "2.19.11"),
	)
	if r.Opts.Limit != "" {
		// ansible-core sets ansible_limit only when --limit is given.
		m.Set("ansible_limit", r.Opts.Limit)
	}
	return m
}

// magicVars are the variables Ansible defines about the run, the play
// and the host.
func (r *Runner) magicVars(ps *playState, host string) *value.Dict {
	m := r.hostMagic(r.playDir(ps), host)
	all, active, batch := r.playHostLists(ps)
	m.Set("ansible_play_name", ps.name)
	m.Set("ansible_play_hosts_all", all)
	m.Set("ansible_play_hosts", active)
	m.Set("ansible_play_batch", batch)
	m.Set("play_hosts", batch)
	m.Set("omit", value.Omit{})
	roles := []any{}
	deps := []any{}
	// The play's roles are its `roles:`, those import_role brought in and
	// those include_role loaded so far, as ansible-core appends them.
	for _, ri := range append(ps.play.LoadedRoles(), ps.includedRoles...) {
		roles = append(roles, ri.Name())
		for _, d := range ri.AllDependencies() {
			if !containsAny(deps, d.Name()) {
				deps = append(deps, d.Name())
			}
		}
	}
	// ansible_role_names is a set in ansible-core (its order varies);
	// here each name comes once, in the order first seen.
	var names []any
	for _, n := range append(append([]any{}, roles...), deps...) {
		if !containsAny(names, n.(string)) {
			names = append(names, n)
		}
	}
	if names == nil {
		names = []any{}
	}
	m.Set("ansible_play_role_names", roles)
	m.Set("role_names", roles)
	m.Set("ansible_dependent_role_names", deps)
	m.Set("ansible_role_names", names)
	return m
}

func containsAny(l []any, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// addIncludedVars stores include_vars results for a host. Each variable
// replaces the one of the same name, except that under
// hash_behaviour=merge a dict merges into an earlier dict, as
// ansible-core's set_host_variable does.
func (r *Runner) addIncludedVars(hs *hostState, d *value.Dict) {
	d.Each(func(k string, v any) bool {
		old, had := hs.incVars.Get(k)
		oldDict, oldIsDict := old.(*value.Dict)
		newDict, newIsDict := v.(*value.Dict)
		if r.Opts.MergeHashes && had && oldIsDict && newIsDict {
			v = value.MergeHash(oldDict, newDict, true, "replace")
		}
		hs.incVars.Set(k, v)
		return true
	})
}

// hostVars builds the hostvars magic variable: for every host, its
// inventory variables, facts and host magic variables (not play vars).
func (r *Runner) hostVars(ps *playState) func() *value.Dict {
	var built *value.Dict
	return func() *value.Dict {
		if built != nil {
			return built
		}
		built = value.NewDict(len(r.Inventory.Hosts()))
		built.SetTypeName("HostVars")
		for _, h := range r.Inventory.Hosts() {
			hs := r.host(h)
			// Rendered on use, as the inventory's variables are; the
			// facts, registered results and magic variables are data.
			d := flattenLayers([]layer{
				{d: r.Inventory.HostVars(h), templated: true},
				{d: r.factVars(hs)},
				{d: hs.incVars, templated: true},
				{d: hs.facts, trustedNames: hs.trustedFacts},
				{d: r.Opts.ExtraVars, templated: true},
				{d: r.hostMagic(r.playDir(ps), h)},
			}, r.Opts.MergeHashes)
			if r.Opts.MergeHashes {
				d = d.Copy()
			}
			d.SetTypeName("HostVarsVars")
			built.Set(h, d)
		}
		return built
	}
}

// hostVarOrigin is where hostvars[host][name] (at path inside it) was
// written, from the same layers as hostVars.
func (r *Runner) hostVarOrigin(host, name string, path []any) (value.Pos, bool) {
	if !slices.Contains(r.Inventory.Hosts(), host) {
		return value.Pos{}, false
	}
	hs := r.host(host)
	return originIn([]*value.Dict{r.Inventory.HostVars(host), r.factVars(hs), hs.incVars, hs.facts, r.Opts.ExtraVars}, name, path)
}

// taskScope builds ansible-core's precedence ladder for t on a host:
// role defaults < inventory < play vars < vars_files < role vars < block
// and task vars < include_vars < set_fact/register < role params <
// include params < extra vars < magic variables.
func (r *Runner) taskScope(ps *playState, f *frame, t *playbook.Task, hs *hostState) *scope {
	s := &scope{hostvars: r.hostVars(ps), hostOrigin: r.hostVarOrigin, static: &r.static, merge: r.Opts.MergeHashes}
	role := t.Role
	if role == nil {
		role = f.role
	}
	var roles []*playbook.RoleInstance
	s.add(ps.roleDefs, true)
	if role != nil {
		roles = roleChain(role)
		for _, d := range roleDefaultLayers(role) {
			s.add(d, true)
		}
	}
	s.add(r.Inventory.HostVars(hs.name), true)
	s.add(r.factVars(hs), false)
	s.add(ps.vars, true)
	s.add(ps.varsFiles[hs.name], true)
	s.add(ps.roleVars, true)
	if role != nil {
		for _, d := range roleVarLayers(role) {
			s.add(d, true)
		}
	}
	chain := f.chain()
	var taskVars []*value.Dict
	for _, x := range chain {
		if x.kw != nil && !x.play {
			taskVars = append(taskVars, x.kw.Vars)
		}
	}
	s.addLevel(append(taskVars, t.Vars), true)
	s.add(hs.incVars, true)
	s.addData(hs.facts, hs.trustedFacts)
	for _, ri := range roles {
		s.add(ri.Params, true)
	}
	for _, x := range chain {
		s.add(x.includeVars, true)
		s.add(x.includeLocals, false)
	}
	s.add(r.Opts.ExtraVars, true)
	m := r.magicVars(ps, hs.name)
	if role != nil {
		m.Set("role_name", role.Role.Name)
		m.Set("role_path", role.Role.Path)
		m.Set("ansible_role_name", role.Name())
		var parents, paths []any
		for x := role; x.Parent != nil && !x.Dep; x = x.Parent {
			x := x.Parent
			parents = append(parents, x.Name())
			paths = append(paths, x.Role.Path)
		}
		if parents != nil {
			m.Set("ansible_parent_role_names", parents)
			m.Set("ansible_parent_role_paths", paths)
		}
	}
	s.add(m, false)
	return s
}

func groupNames(inv *inventory.Inventory, h string) []any {
	out := []any{}
	names := inv.GroupNames(h).([]string)
	sort.Strings(names)
	for _, g := range names {
		out = append(out, g)
	}
	return out
}

// forks is the ansible_forks magic variable: DEFAULT_FORKS, 5 unless the
// configuration says otherwise.
func (r *Runner) forks() int {
	if r.Opts.Forks > 0 {
		return r.Opts.Forks
	}
	return 5
}

// addConnectionUser gives the task ansible_user from the remote_user
// keyword when no variable defines it, as ansible-core's PlayContext adds
// its connection settings to the task's variables.
func (tr *taskRun) addConnectionUser() {
	ru := tr.f.keyword(tr.t, "remote_user", func(k *playbook.Keywords) any { return k.RemoteUser })
	if ru == nil {
		return
	}
	if _, _, found := tr.sc.Lookup("ansible_user"); found {
		return
	}
	tr.sc.add(value.DictOf("ansible_user", ru), true)
}
