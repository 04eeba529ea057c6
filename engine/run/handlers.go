package run

import (
	"errors"
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/diag"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// handlerState is what one batch knows about handlers, as ansible-core
// keeps it: the handler blocks (the play's roles' handlers, the play's
// own, then those of roles included while it runs) and their handlers in
// one list, the hosts each handler is notified for, and the notifications
// each host saved until its next flush_handlers.
type handlerState struct {
	blocks   [][]*playbook.Task
	list     []*playbook.Task
	notified map[*playbook.Task][]string
	saved    map[string][]string
	// names caches each handler's templated name; unusable marks those
	// whose name could not be templated.
	names    map[*playbook.Task]string
	unusable map[*playbook.Task]bool
}

func newHandlerState(static [][]*playbook.Task) *handlerState {
	hs := &handlerState{notified: map[*playbook.Task][]string{}, saved: map[string][]string{},
		names: map[*playbook.Task]string{}, unusable: map[*playbook.Task]bool{}}
	hs.add(static)
	return hs
}

// add appends handler blocks (an included role's).
func (hs *handlerState) add(blocks [][]*playbook.Task) {
	for _, b := range blocks {
		hs.blocks = append(hs.blocks, b)
		hs.list = append(hs.list, b...)
	}
}

// searchOrder is the order ansible-core searches handlers in: the last
// block first, each block's handlers in their order.
func (hs *handlerState) searchOrder() []*playbook.Task {
	out := make([]*playbook.Task, 0, len(hs.list))
	for i := len(hs.blocks) - 1; i >= 0; i-- {
		out = append(out, hs.blocks[i]...)
	}
	return out
}

// notifiedFor reports whether handler h is notified for host.
func (hs *handlerState) notifiedFor(h *playbook.Task, host string) bool {
	return containsStr(hs.notified[h], host)
}

// anyNotified reports whether any handler is notified for any host, or a
// host has a saved notification: otherwise the implicit flush is skipped.
func (hs *handlerState) anyNotified() bool {
	for _, l := range hs.notified {
		if len(l) > 0 {
			return true
		}
	}
	for _, l := range hs.saved {
		if len(l) > 0 {
			return true
		}
	}
	return false
}

// notifyHost marks h notified for host; it reports whether h was not
// already.
func (hs *handlerState) notifyHost(h *playbook.Task, host string) bool {
	if hs.notifiedFor(h, host) {
		return false
	}
	hs.notified[h] = append(hs.notified[h], host)
	return true
}

// removeHost takes host off h's notified hosts when h runs for it.
func (hs *handlerState) removeHost(h *playbook.Task, host string) {
	l := hs.notified[h]
	for i, x := range l {
		if x == host {
			hs.notified[h] = append(l[:i:i], l[i+1:]...)
			return
		}
	}
}

// ran takes the hosts a handler runs on off its notified hosts, as the
// linear strategy does when it queues the handler (all of them for a
// run_once handler).
func (hs *handlerState) ran(h *playbook.Task, hosts []string, runOnce bool) {
	if runOnce {
		delete(hs.notified, h)
		return
	}
	for _, host := range hosts {
		hs.removeHost(h, host)
	}
}

// notify handles the notifications of a changed result on host. Outside
// a flush the notification is saved for the host's next flush; a handler
// notifying one marks the handlers for the host at once. A notification
// no handler answers is an error (ansible-core 2.19's
// ERROR_ON_MISSING_HANDLER default), or a warning when that is off.
func (r *Runner) notify(ps *playState, f *frame, name, host string) error {
	found := r.searchHandlers(ps, name)
	if len(found) == 0 {
		msg := fmt.Sprintf("The requested handler '%s' was not found in either the main handlers list nor in the listening handlers list", name)
		if r.Opts.WarnOnMissingHandler {
			r.warn(diag.Warn(msg, nil))
			return nil
		}
		return errors.New(msg)
	}
	if f.handler {
		for _, h := range found {
			if ps.handlers.notifyHost(h, host) {
				r.Display.Message(2, fmt.Sprintf("NOTIFIED HANDLER %s for %s", h.GetName(), host))
			}
		}
		return nil
	}
	if !containsStr(ps.handlers.saved[host], name) {
		ps.handlers.saved[host] = append(ps.handlers.saved[host], name)
	}
	r.Display.Message(2, fmt.Sprintf("Notification for handler %s has been saved.", name))
	return nil
}

// searchHandlers finds the handlers a notification names, as ansible-core's
// search_handlers_by_notification: in search order, the first handler
// whose name (or "role : name") matches, then every handler listening to
// it, once per handler name.
func (r *Runner) searchHandlers(ps *playState, name string) []*playbook.Task {
	var out []*playbook.Task
	list := ps.handlers.searchOrder()
	for _, h := range list {
		hn, ok := r.handlerTemplatedName(ps, h)
		if !ok || hn == "" {
			continue
		}
		if hn == name || roleQualified(h, hn, name) {
			out = append(out, h)
			break
		}
	}
	seen := map[string]bool{}
	for _, h := range list {
		if !listensTo(h, name) {
			continue
		}
		if h.Name != "" && seen[h.Name] {
			continue
		}
		seen[h.Name] = true
		out = append(out, h)
	}
	return out
}

// listensTo reports whether handler h listens to topic; a role's handler
// also answers "role : topic".
func listensTo(h *playbook.Task, topic string) bool {
	for _, l := range h.Listen {
		if l == topic || roleQualified(h, l, topic) {
			return true
		}
	}
	return false
}

// roleQualified reports whether notification is "<role> : name" for
// handler h's role, with the role's short name or its collection-qualified
// one (ansible-core accepts both).
func roleQualified(h *playbook.Task, name, notification string) bool {
	if h.Role == nil {
		return false
	}
	return notification == h.Role.Role.Name+" : "+name || notification == h.Role.Name()+" : "+name
}

// handlerTemplatedName is a handler's name templated once with play-level
// variables (host variables are not available to handler names). A name
// that cannot be templated makes the handler unusable by name, with a
// warning when it has no listen topics either.
func (r *Runner) handlerTemplatedName(ps *playState, h *playbook.Task) (string, bool) {
	st := ps.handlers
	if n, ok := st.names[h]; ok {
		return n, true
	}
	if st.unusable[h] {
		return "", false
	}
	name := h.Name
	if template.HasMarkers(name) {
		v, err := r.Engine.Render(name, r.handlerScope(ps, h), template.Options{})
		if err != nil {
			st.unusable[h] = true
			if len(h.Listen) == 0 {
				r.warning(fmt.Sprintf("Handler '%s' is unusable because it has no listen topics and the name could not be templated "+
					"(host-specific variables are not supported in handler names). The error: %s", name, err))
			}
			return "", false
		}
		name = value.Str(v)
	}
	st.names[h] = name
	return name, true
}

// handlerScope is the scope a handler's name is templated in: the play's
// and the handler's role's variables, without any host's.
func (r *Runner) handlerScope(ps *playState, h *playbook.Task) *scope {
	s := &scope{static: &r.static}
	s.add(ps.roleDefs, true)
	var roles []*playbook.RoleInstance
	if h.Role != nil {
		roles = roleChain(h.Role)
	}
	for _, ri := range roles {
		s.add(ri.Defaults, true)
	}
	s.add(ps.vars, true)
	s.add(ps.varsFiles[""], true)
	s.add(ps.roleVars, true)
	for _, ri := range roles {
		s.add(ri.Vars, true)
	}
	s.add(h.Vars, true)
	s.add(r.Opts.ExtraVars, true)
	return s
}

// takeNotifications moves the notifications host saved onto the handlers
// they name, as a flush_handlers does for the host first.
func (r *Runner) takeNotifications(ps *playState, host string) {
	for _, name := range ps.handlers.saved[host] {
		for _, h := range r.searchHandlers(ps, name) {
			if ps.handlers.notifyHost(h, host) {
				r.Display.Message(2, fmt.Sprintf("NOTIFIED HANDLER %s for %s", h.GetName(), host))
			}
		}
	}
	delete(ps.handlers.saved, host)
}

// implicitFlush is the flush_handlers meta task ansible-core adds after
// each section of a play; it is tagged `always` and shows nothing itself.
func (r *Runner) implicitFlush(ps *playState, f *frame) {
	if ps.endPlay || r.abort != 0 || !TagsSelected([]string{"always"}, r.Opts.Tags, r.Opts.SkipTags) || !ps.handlers.anyNotified() {
		return
	}
	hosts := r.activeHosts(ps)
	for _, h := range hosts {
		r.takeNotifications(ps, h)
	}
	r.runHandlers(ps, f, hosts)
}

// runHandlers runs, in the handler list's order, each handler notified
// for some of hosts (the hosts whose flush_handlers ran), on those hosts.
// A handler notified during the flush runs in it when it comes later in
// the list, and waits for the next flush otherwise.
func (r *Runner) runHandlers(ps *playState, at *frame, hosts []string) {
	st := ps.handlers
	for i := 0; i < len(st.list); i++ {
		if ps.endPlay || r.abort != 0 || r.stopping() {
			return
		}
		h := st.list[i]
		var run []string
		for _, host := range hosts {
			hs := r.host(host)
			if st.notifiedFor(h, host) && !hs.halted && !hs.ended {
				run = append(run, host)
			}
		}
		if len(run) == 0 {
			continue
		}
		saved := ps.hosts
		ps.hosts = run
		f := &frame{parent: ps.root, role: h.Role, handler: true, flushedAt: at}
		r.runTask(ps, f, h)
		ps.hosts = saved
	}
}

// forceHandlers reports whether handlers run on hosts that failed
// (force_handlers on the play, or --force-handlers).
func (r *Runner) forceHandlers(ps *playState) bool {
	return value.Truthy(ps.play.ForceHandlers) || r.Opts.ForceHandlers
}

// roleHandlers lists a role's handler blocks: its dependencies', then its
// own (a handlers file is one block).
func roleHandlers(ri *playbook.RoleInstance) [][]*playbook.Task {
	var out [][]*playbook.Task
	for _, d := range ri.Deps {
		out = append(out, roleHandlers(d)...)
	}
	if own := flattenTasks(ri.Handlers); len(own) > 0 {
		out = append(out, own)
	}
	return out
}

// flattenTasks lists the tasks of items, blocks flattened.
func flattenTasks(items []playbook.Item) []*playbook.Task {
	var out []*playbook.Task
	for _, it := range items {
		switch x := it.(type) {
		case *playbook.Task:
			out = append(out, x)
		case *playbook.Block:
			out = append(out, flattenTasks(x.Block)...)
		}
	}
	return out
}
