package run

import (
	"github.com/cfzt/cfzt-runner/engine/playbook"
)

// runItems runs a list of tasks and blocks on every active host, stopping
// once no host can continue.
func (r *Runner) runItems(ps *playState, f *frame, items []playbook.Item) {
	for _, it := range items {
		if ps.endPlay || r.abort != 0 || !r.anyActive(ps) || r.stopping() {
			return
		}
		switch x := it.(type) {
		case *playbook.Block:
			r.runBlock(ps, f, x)
		case *playbook.Task:
			r.runTask(ps, f, x)
		}
	}
}

func (r *Runner) anyActive(ps *playState) bool {
	return len(r.activeHosts(ps)) > 0
}

// runBlock runs block, then rescue for hosts that failed in it, then
// always for every host that entered the block.
func (r *Runner) runBlock(ps *playState, f *frame, b *playbook.Block) {
	entered := r.activeHosts(ps)
	var ran roleRuns
	if b.RoleTasks {
		entered = r.pendingRoleHosts(ps, b.Role, entered)
		ran = r.roleRunsBefore(entered)
	}
	if len(entered) == 0 {
		return
	}
	saved := ps.hosts
	defer func() { ps.hosts = saved }()
	ps.hosts = entered
	cf := f.child(b)
	cf.rescue = len(b.Rescue) > 0
	r.runItems(ps, cf, b.Block)
	if b.RoleTasks {
		r.roleCompleted(ps, b.Role, entered, ran)
	}
	if b.Role != nil && !b.Static {
		for _, h := range entered {
			if hs := r.host(h); hs.endRole == b.Role {
				hs.endRole = nil
			}
		}
	}
	if len(b.Rescue) > 0 {
		var rescued []string
		for _, h := range entered {
			if hs := r.host(h); hs.failed && !hs.ended {
				hs.failed = false
				rescued = append(rescued, h)
			}
		}
		if len(rescued) > 0 && !ps.endPlay {
			ps.hosts = rescued
			r.runItems(ps, f.child(b), b.Rescue)
		}
	}
	if len(b.Always) > 0 && !ps.endPlay {
		var failed []*hostState
		var hosts []string
		for _, h := range entered {
			hs := r.host(h)
			if hs.ended {
				continue
			}
			if hs.failed {
				hs.failed = false
				failed = append(failed, hs)
			}
			hosts = append(hosts, h)
		}
		ps.hosts = hosts
		r.runItems(ps, f.child(b), b.Always)
		for _, hs := range failed {
			hs.failed = true
		}
	}
}
