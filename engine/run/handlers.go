package run

import (
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// flushHandlers runs notified handlers in definition order, each on the
// hosts that notified it. A handler notified during the flush by a later
// handler waits for the next flush, as in ansible-core.
func (r *Runner) flushHandlers(ps *playState, only ...string) {
	if len(ps.notified) == 0 {
		return
	}
	handlers := r.playHandlers(ps)
	if only == nil {
		for _, host := range ps.allHosts {
			r.announceHandlers(ps, host)
		}
	}
	ps.flushing = true
	defer func() { ps.flushing = false }()
	for _, h := range handlers {
		hosts := ps.notified[h]
		if len(hosts) == 0 {
			continue
		}
		var active, keep []string
		for _, host := range hosts {
			if only != nil && !containsStr(only, host) {
				keep = append(keep, host)
				continue
			}
			hs := r.host(host)
			if (!hs.failed || r.forceHandlers(ps)) && !hs.ended && containsStr(ps.allHosts, host) {
				active = append(active, host)
			}
		}
		if len(keep) > 0 {
			ps.notified[h] = keep
		} else {
			delete(ps.notified, h)
		}
		if len(active) == 0 {
			continue
		}
		saved := ps.hosts
		ps.hosts = active
		f := &frame{parent: ps.root, role: h.Role, handler: true}
		r.runTask(ps, f, h)
		ps.hosts = saved
	}
}

// announceHandlers shows, at -vv, the handlers a flush will run for host.
func (r *Runner) announceHandlers(ps *playState, host string) {
	if hs := r.host(host); hs.ended || (hs.failed && !r.forceHandlers(ps)) {
		return
	}
	for _, h := range r.playHandlers(ps) {
		if containsStr(ps.notified[h], host) {
			r.message(2, fmt.Sprintf("NOTIFIED HANDLER %s for %s", handlerName(h), host))
		}
	}
}

// notify records that host notified the handlers called name.
func (r *Runner) notify(ps *playState, name, host string) {
	add := func(h *playbook.Task) {
		if !containsStr(ps.notified[h], host) {
			ps.notified[h] = append(ps.notified[h], host)
			if ps.flushing {
				r.message(2, fmt.Sprintf("NOTIFIED HANDLER %s for %s", handlerName(h), host))
			}
		}
	}
	handlers := r.playHandlers(ps)
	found := false
	for i := len(handlers) - 1; i >= 0; i-- {
		h := handlers[i]
		if h.Name == "" {
			continue
		}
		if h.Name == name || (h.Role != nil && h.Role.Name()+" : "+h.Name == name) {
			add(h)
			found = true
			break
		}
	}
	seen := map[string]bool{}
	for _, h := range handlers {
		if !containsStr(h.Listen, name) {
			continue
		}
		if h.Name != "" && seen[h.Name] {
			continue
		}
		seen[h.Name] = true
		add(h)
		found = true
	}
	if found {
		if !ps.flushing {
			r.message(2, fmt.Sprintf("Notification for handler %s has been saved.", name))
		}
	} else {
		r.Display.Warning(fmt.Sprintf("The requested handler '%s' was not found in either the main handlers list nor in the listening handlers list", name))
	}
}

func (r *Runner) forceHandlers(ps *playState) bool {
	return value.Truthy(ps.play.ForceHandlers) || r.Opts.ForceHandlers
}

// playHandlers lists the play's handlers: roles' first, then the play's.
func (r *Runner) playHandlers(ps *playState) []*playbook.Task {
	return append(append([]*playbook.Task{}, ps.handlers...), flattenTasks(ps.play.Handlers)...)
}

// handlerName is a handler's name as ansible-core's get_name shows it.
func handlerName(h *playbook.Task) string {
	if h.Role != nil {
		return h.Role.Name() + " : " + h.Name
	}
	return h.Name
}
