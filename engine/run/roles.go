package run

import (
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// addPlayRole adds a role to the play's roles. A public role's defaults
// and vars (with its dependencies') become visible to every task of the
// play from now on; its handlers join the play's either way.
func (r *Runner) addPlayRole(ps *playState, ri *playbook.RoleInstance) {
	ps.roles = append(ps.roles, ri)
	// Roles known when the play starts give its static handlers; a role
	// included while a batch runs adds its handlers to that batch.
	if ps.handlers != nil {
		ps.handlers.add(roleHandlers(ri))
	} else {
		ps.staticHandlers = append(ps.staticHandlers, roleHandlers(ri)...)
	}
	if !ri.Public {
		return
	}
	for _, d := range ri.DefaultLayers() {
		ps.roleDefs = playbook.CombineVars(ps.roleDefs, d, r.Opts.MergeHashes)
	}
	for _, d := range ri.ExportLayers() {
		ps.roleVars = playbook.CombineVars(ps.roleVars, d, r.Opts.MergeHashes)
	}
}

// adoptImportedRoles adds to the play the roles import_role brought in
// while a task file or role loaded during the run.
func (r *Runner) adoptImportedRoles(ps *playState) {
	for _, ri := range r.Loader.ImportedRoles() {
		r.addPlayRole(ps, ri)
	}
}

// roleDefaultLayers are the defaults a task of role sees above the
// play's, lowest first: those of the role's dependencies, then of each
// role of its dependency chain, outermost first, ending with its own.
func roleDefaultLayers(role *playbook.RoleInstance) []*value.Dict {
	var out []*value.Dict
	for _, d := range role.AllDependencies() {
		out = append(out, d.Defaults)
	}
	for _, c := range roleChain(role) {
		out = append(out, c.Defaults)
	}
	return out
}

// roleVarLayers are the role vars a task of role sees above the play's,
// lowest first: the `vars:` and vars files of each role of its chain,
// then what its dependencies export, then its own vars files and `vars:`.
func roleVarLayers(role *playbook.RoleInstance) []*value.Dict {
	var out []*value.Dict
	for _, c := range roleChain(role) {
		out = append(out, c.Ref.Vars, c.Vars)
	}
	seen := map[string]bool{}
	for _, d := range role.AllDependencies() {
		if k := d.Key(); !seen[k] {
			seen[k] = true
			out = append(out, d.ExportLayers()...)
		}
	}
	return append(out, role.Vars, role.Ref.Vars)
}

// pendingRoleHosts drops from hosts those a role already ran on, unless
// the role allows duplicates: ansible-core runs a role once per host and
// distinct reference (name, parameters, conditions, tags, files).
func (r *Runner) pendingRoleHosts(ps *playState, ri *playbook.RoleInstance, hosts []string) []string {
	if ri.AllowDuplicates {
		return hosts
	}
	done := ps.roleDone[ri.Key()]
	var out []string
	for _, h := range hosts {
		if !done[h] {
			out = append(out, h)
		}
	}
	return out
}

// roleRuns counts, per host, the task results that mean a task ran (all
// but skipped and unreachable ones), before a role's tasks start.
type roleRuns map[string]int

// ranCount is how many of a host's results so far mean a task ran.
func (r *Runner) ranCount(host string) int {
	st := r.stat(host)
	return st.OK + st.Changed + st.Failed + st.Rescued + st.Ignored
}

// roleRunsBefore snapshots ranCount for hosts.
func (r *Runner) roleRunsBefore(hosts []string) roleRuns {
	out := roleRuns{}
	for _, h := range hosts {
		out[h] = r.ranCount(h)
	}
	return out
}

// roleCompleted records that a role ran on the hosts still active among
// hosts, as ansible-core's role_complete does: only where at least one
// of its tasks ran (was not skipped), so a role skipped by `when` runs
// again when referenced again.
func (r *Runner) roleCompleted(ps *playState, ri *playbook.RoleInstance, hosts []string, before roleRuns) {
	key := ri.Key()
	for _, h := range hosts {
		if hs := r.host(h); hs.failed || hs.ended || r.ranCount(h) == before[h] {
			continue
		}
		if ps.roleDone[key] == nil {
			ps.roleDone[key] = map[string]bool{}
		}
		ps.roleDone[key][h] = true
	}
}

// runRole runs a play-level role: its dependencies, then its tasks.
func (r *Runner) runRole(ps *playState, f *frame, ri *playbook.RoleInstance) {
	r.runBlock(ps, f, playbook.CompileRole(ri))
}

// roleChain lists a role and the roles it runs within (the roles that
// depend on or include it), outermost first.
func roleChain(ri *playbook.RoleInstance) []*playbook.RoleInstance {
	var out []*playbook.RoleInstance
	for x := ri; x != nil; x = x.Parent {
		out = append([]*playbook.RoleInstance{x}, out...)
	}
	return out
}
