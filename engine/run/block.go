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

// blockParts are the three sections of a block as functions, so that the
// play's own sections, which ansible-core compiles into blocks (with
// force_handlers, a section whose always is the flush of handlers), go
// through the same failure handling as the blocks a playbook writes.
type blockParts struct {
	body, rescue, always func(f *frame)
	hasRescue, hasAlways bool
}

// runBlock runs block, then rescue for hosts that failed in it, then
// always for every host that entered the block.
func (r *Runner) runBlock(ps *playState, f *frame, b *playbook.Block) {
	r.runParts(ps, f, b, blockParts{
		body:      func(cf *frame) { r.runItems(ps, cf, b.Block) },
		rescue:    func(cf *frame) { r.runItems(ps, cf, b.Rescue) },
		always:    func(cf *frame) { r.runItems(ps, cf, b.Always) },
		hasRescue: len(b.Rescue) > 0,
		hasAlways: len(b.Always) > 0,
	})
}

// runParts runs the sections of a block the way ansible-core's
// PlayIterator moves a host through them: a host that fails in the body
// goes to the rescue; one that fails there (or had no rescue) goes to the
// always and stays failed after it, unless meta: clear_host_errors
// cleared its failure meanwhile.
func (r *Runner) runParts(ps *playState, f *frame, b *playbook.Block, p blockParts) {
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
	p.body(f.sectionOf(b, sectionBlock, p.hasRescue, p.hasAlways))
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
	skipAlways := r.takeEscalated(entered, !p.hasRescue)
	if p.hasRescue && !ps.endPlay && r.abort == 0 {
		skipAlways = r.runRescue(ps, f, b, p, entered, skipAlways)
	}
	if p.hasAlways && !ps.endPlay && r.abort == 0 {
		r.runAlways(ps, f, b, p, entered, skipAlways)
	}
}

// takeEscalated clears the escalated mark of the hosts that carry it and
// returns them when it makes them skip the always section (they were
// headed for it); otherwise they skip the rescue.
func (r *Runner) takeEscalated(hosts []string, skipsAlways bool) map[string]bool {
	skip := map[string]bool{}
	for _, h := range hosts {
		if hs := r.host(h); hs.escalated {
			hs.escalated = false
			if skipsAlways {
				skip[h] = true
			} else {
				hs.skipRescue = true
			}
		}
	}
	return skip
}

// runRescue runs the rescue section for the hosts that failed in the
// body; they are no longer failed unless they fail again. It returns the
// hosts that must skip the always section.
func (r *Runner) runRescue(ps *playState, f *frame, b *playbook.Block, p blockParts, entered []string, skipAlways map[string]bool) map[string]bool {
	var hosts []string
	for _, h := range entered {
		hs := r.host(h)
		if hs.skipRescue {
			hs.skipRescue = false
			continue
		}
		if hs.halted && !hs.ended && !hs.unreachable {
			hs.halted, hs.failed = false, false
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return skipAlways
	}
	ps.hosts = hosts
	p.rescue(f.sectionOf(b, sectionRescue, p.hasRescue, p.hasAlways))
	for h := range r.takeEscalated(hosts, true) {
		skipAlways[h] = true
	}
	return skipAlways
}

// runAlways runs the always section for every host that entered the
// block and was not ended; hosts that were failing stay failed after it.
func (r *Runner) runAlways(ps *playState, f *frame, b *playbook.Block, p blockParts, entered []string, skip map[string]bool) {
	var failing []*hostState
	var hosts []string
	for _, h := range entered {
		hs := r.host(h)
		if hs.ended || hs.unreachable || skip[h] {
			continue
		}
		if hs.halted {
			hs.halted = false
			failing = append(failing, hs)
		}
		hosts = append(hosts, h)
	}
	ps.hosts = hosts
	p.always(f.sectionOf(b, sectionAlways, p.hasRescue, p.hasAlways))
	for _, hs := range failing {
		if hs.failed {
			hs.halted = true
		}
	}
}
