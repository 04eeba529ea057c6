package run

import (
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// runItems runs a list of tasks and blocks on every active host, stopping
// once no host can continue.
func (r *Runner) runItems(ps *playState, f *frame, items []playbook.Item) {
	for _, it := range items {
		if ps.endPlay || !r.anyActive(ps) {
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
	for _, h := range ps.hosts {
		hs := r.host(h)
		if !hs.failed && !hs.ended {
			return true
		}
	}
	return false
}

// runBlock runs block, then rescue for hosts that failed in it, then
// always.
func (r *Runner) runBlock(ps *playState, f *frame, b *playbook.Block) {
	cf := f.child(b)
	before := map[string]bool{}
	for _, h := range ps.hosts {
		before[h] = r.host(h).failed
	}
	r.runItems(ps, cf, b.Block)
	if len(b.Rescue) > 0 {
		var rescued []string
		for _, h := range ps.hosts {
			hs := r.host(h)
			if hs.failed && !before[h] {
				hs.failed = false
				st := r.stat(h)
				st.Failed--
				st.Rescued++
				rescued = append(rescued, h)
			}
		}
		if len(rescued) > 0 {
			rf := f.child(&playbook.Block{Keywords: b.Keywords})
			rf.rescueVars = r.lastFailure
			saved := ps.hosts
			ps.hosts = rescued
			r.runItems(ps, rf, b.Rescue)
			ps.hosts = saved
		}
	}
	if len(b.Always) > 0 {
		failedNow := map[string]bool{}
		for _, h := range ps.hosts {
			hs := r.host(h)
			failedNow[h] = hs.failed && !before[h]
			if failedNow[h] {
				hs.failed = false
			}
		}
		af := f.child(&playbook.Block{Keywords: b.Keywords})
		af.rescueVars = r.lastFailure
		r.runItems(ps, af, b.Always)
		for h, fl := range failedNow {
			if fl {
				r.host(h).failed = true
			}
		}
	}
}

// lastFailureVars builds ansible_failed_task/ansible_failed_result.
func failureVars(t *playbook.Task, name string, res *value.Dict) *value.Dict {
	return value.DictOf(
		"ansible_failed_task", value.DictOf("name", name, "action", t.Action),
		"ansible_failed_result", res,
	)
}
