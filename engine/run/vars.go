package run

import (
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// magicVars are the variables Ansible defines about the run itself.
func (r *Runner) magicVars(ps *playState, host string) *value.Dict {
	hostsAll := make([]any, 0, len(ps.hosts))
	for _, h := range ps.hosts {
		hostsAll = append(hostsAll, h)
	}
	tags := []any{"all"}
	if len(r.Opts.Tags) > 0 {
		tags = nil
		for _, t := range r.Opts.Tags {
			tags = append(tags, t)
		}
	}
	skip := []any{}
	for _, t := range r.Opts.SkipTags {
		skip = append(skip, t)
	}
	short := host
	for i, c := range host {
		if c == '.' {
			short = host[:i]
			break
		}
	}
	return value.DictOf(
		"inventory_hostname", host,
		"inventory_hostname_short", short,
		"playbook_dir", ps.pb.Dir,
		"ansible_play_name", ps.name,
		"ansible_play_hosts", hostsAll,
		"ansible_play_hosts_all", hostsAll,
		"ansible_play_batch", hostsAll,
		"play_hosts", hostsAll,
		"ansible_check_mode", r.Opts.Check,
		"ansible_diff_mode", r.Opts.Diff,
		"ansible_verbosity", r.Opts.Verbosity,
		"ansible_run_tags", tags,
		"ansible_skip_tags", skip,
		"ansible_forks", 5,
		"ansible_version", value.DictOf("full", "2.19.11", "major", 2, "minor", 19, "revision", 11, "string", "2.19.11"),
		"group_names", groupNames(r.Inventory, host),
		"groups", r.Inventory.Groups(),
		"omit", value.Omit{},
		"ansible_config_file", nil,
		"inventory_dir", r.Inventory.Dir(host),
		"inventory_file", r.Inventory.File(host),
	)
}

// playScope is the scope of play-level templates (play name, vars_files).
func (r *Runner) playScope(ps *playState, host string) *scope {
	s := &scope{}
	s.add(ps.roleDefs, true)
	s.add(r.Inventory.HostVars(host), true)
	s.add(ps.vars, true)
	s.add(ps.varsFile, true)
	s.add(ps.roleVars, true)
	s.add(r.host(host).facts, false)
	s.add(r.Opts.ExtraVars, true)
	s.add(r.magicVars(ps, host), false)
	return s
}

// taskScope builds the precedence ladder for t on host.
func (r *Runner) taskScope(ps *playState, f *frame, t *playbook.Task, hs *hostState) *scope {
	s := &scope{}
	role := t.Role
	if role == nil {
		role = f.role
	}
	s.add(ps.roleDefs, true)
	if role != nil {
		for _, ri := range roleChain(role) {
			s.add(ri.Defaults, true)
		}
	}
	s.add(r.Inventory.HostVars(hs.name), true)
	s.add(ps.vars, true)
	s.add(ps.varsFile, true)
	s.add(ps.roleVars, true)
	if role != nil {
		for _, ri := range roleChain(role) {
			s.add(ri.Vars, true)
		}
	}
	chain := f.chain()
	for _, x := range chain {
		if x.kw != nil {
			s.add(x.kw.Vars, true)
		}
	}
	s.add(t.Vars, true)
	for _, x := range chain {
		s.add(x.includeVars, true)
	}
	s.add(hs.facts, false)
	for _, x := range chain {
		s.add(x.rescueVars, false)
	}
	if role != nil {
		for _, ri := range roleChain(role) {
			s.add(ri.Params, true)
		}
	}
	s.add(r.Opts.ExtraVars, true)
	m := r.magicVars(ps, hs.name)
	if role != nil {
		m.Set("role_name", role.Name())
		m.Set("role_path", role.Role.Path)
		m.Set("ansible_role_name", role.Name())
	}
	s.add(m, false)
	return s
}

// roleChain lists a role and its parents, outermost first.
func roleChain(ri *playbook.RoleInstance) []*playbook.RoleInstance {
	var out []*playbook.RoleInstance
	for x := ri; x != nil; x = x.Parent {
		out = append([]*playbook.RoleInstance{x}, out...)
	}
	return out
}

func groupNames(inv *Inventory, h string) []any {
	out := []any{}
	for _, g := range inv.GroupNames(h).([]string) {
		out = append(out, g)
	}
	return out
}
