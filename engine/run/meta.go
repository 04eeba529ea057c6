package run

import (
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/inventory"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// perHostMeta are the meta actions the linear strategy runs for every
// host; it runs the others once, for the first host, on behalf of all.
var perHostMeta = map[string]bool{
	"noop": true, "reset_connection": true, "end_host": true, "role_complete": true, "flush_handlers": true, "end_role": true,
}

// metaIgnoresWhen are the meta actions that do not evaluate `when` (with
// a warning when one is given).
var metaIgnoresWhen = map[string]bool{"noop": true, "refresh_inventory": true, "reset_connection": true}

// metaSkipReasons are what follows "<action> conditional evaluated to
// False" when a meta task's condition is false, with {host} and {role}
// to fill in. (The missing separator of end_role is ansible-core's.)
var metaSkipReasons = map[string]string{
	"flush_handlers":    ", not running handlers for {host}",
	"clear_facts":       ", not clearing facts and fact cache for {host}",
	"clear_host_errors": ", not clearing host error state for {host}",
	"end_batch":         ", continuing current batch",
	"end_play":          ", continuing play",
	"end_host":          ", continuing execution for {host}",
	"end_role":          "continuing role {role} for {host}",
}

// metaRun is one meta task on one host.
type metaRun struct {
	tr     *taskRun
	action string
	// msg is the result's msg and, unless quiet, the "META:" line of -vv.
	msg   string
	quiet bool
}

// runMeta implements meta actions as ansible-core's linear strategy does
// (StrategyBase._execute_meta): a banner each time the meta runs, a
// "META:" line at -vv, a skipped line when its condition is false, and
// no counters.
func (r *Runner) runMeta(ps *playState, f *frame, t *playbook.Task, hosts []string) {
	action := value.Str(t.Args.Default("_raw_params", ""))
	targets := hosts
	if !perHostMeta[action] {
		targets = hosts[:1]
	}
	if f.handler {
		ps.handlers.ran(t, targets, !perHostMeta[action])
	}
	var flush []string
	for _, h := range targets {
		tr := r.newTaskRun(ps, f, t, r.host(h))
		r.Display.TaskStart(tr.name, t, f.handler)
		if metaIgnoresWhen[action] && len(f.conds(t)) > 0 {
			r.warning(action + " task does not support when conditional")
		}
		m := &metaRun{tr: tr, action: action, msg: action}
		if !metaIgnoresWhen[action] && action != "role_complete" {
			ok, err := tr.evalConds(f.conds(t), tr.sc)
			if err != nil {
				// StrategyBase._execute_meta does not catch it: the run ends.
				r.fatal(err)
				return
			}
			if !ok {
				r.metaSkipped(m, f)
				continue
			}
		}
		if err := r.metaAction(ps, f, m); err != nil {
			r.fatal(err)
			return
		}
		if action == "flush_handlers" {
			flush = append(flush, h)
		}
		if !m.quiet {
			r.Display.Message(2, "META: "+m.msg)
		}
	}
	if len(flush) > 0 {
		r.runHandlers(ps, f, flush)
	}
}

// metaSkipped shows a meta task whose condition is false.
func (r *Runner) metaSkipped(m *metaRun, f *frame) {
	h := m.tr.host.name
	roleName := ""
	if f.role != nil {
		roleName = f.role.Name()
	}
	reason := m.action + " conditional evaluated to False"
	if extra, ok := metaSkipReasons[m.action]; ok {
		reason += strings.NewReplacer("{host}", h, "{role}", roleName).Replace(extra)
	}
	msg := m.action
	if m.action == "end_host" {
		msg = "end_host conditional evaluated to false, continuing execution for " + h
	}
	r.Display.Message(2, "META: "+reason)
	r.report(&Event{Host: h, Task: m.tr.t, Name: m.tr.name, Status: StatusSkipped, NoLog: m.tr.noLog,
		Result: value.DictOf("msg", msg, "skipped", true, "skip_reason", reason)})
}

// metaAction carries out a meta action whose condition held.
func (r *Runner) metaAction(ps *playState, f *frame, m *metaRun) error {
	h := m.tr.host.name
	switch m.action {
	case "noop", "role_complete":
	case "flush_handlers":
		r.takeNotifications(ps, h)
		if f.handler {
			return fmt.Errorf("flush_handlers cannot be used as a handler")
		}
		m.msg = "triggered running handlers for " + h
	case "refresh_inventory":
		r.refreshInventory(ps)
		m.msg = "inventory successfully refreshed"
	case "reset_connection":
		m.msg = "reset connection"
	case "clear_facts":
		// The fact cache holds gathered facts; set_fact's (non-cacheable)
		// facts and registered results are not in it.
		for _, x := range ps.batch {
			r.clearFacts(x)
		}
		m.msg = "facts cleared"
	case "clear_host_errors":
		for _, x := range ps.batch {
			r.host(x).failed = false
			delete(r.failedHosts, x)
		}
		m.msg = "cleared host errors"
	case "end_batch", "end_play":
		for _, x := range ps.batch {
			r.endHost(x)
		}
		ps.endPlay = true
		ps.playEnded = m.action == "end_play"
		m.msg = map[string]string{"end_batch": "ending batch", "end_play": "ending play"}[m.action]
	case "end_host":
		r.endHost(h)
		m.msg = "ending play for " + h
	case "end_role":
		if f.role != nil {
			m.tr.host.endRole = f.role
		}
		// ansible-core names the implicit role_complete task it stops at,
		// which it reports at debug level only.
		m.quiet = true
	default:
		p := m.tr.t.Pos
		return &diag.Diagnostic{Summary: "invalid meta action requested: " + m.action, Origin: &p}
	}
	return nil
}

// endHost ends the play for a host (PlayIterator.end_host).
func (r *Runner) endHost(h string) {
	hs := r.host(h)
	hs.ended, hs.removed = true, true
}

// refreshInventory re-reads the inventory sources (meta:
// refresh_inventory): run-time hosts and groups are added again, and the
// play goes on with those of its hosts the sources still have.
func (r *Runner) refreshInventory(ps *playState) {
	if r.ReloadInventory == nil {
		return
	}
	inv := r.ReloadInventory()
	inv.AddVarsDir(ps.pb.Dir)
	inv.SetWarn(r.warning)
	inv.ReplayDynamic(r.Inventory)
	r.Inventory = inv
	known := map[string]bool{}
	for _, h := range inv.Hosts() {
		known[h] = true
	}
	for _, h := range ps.allHosts {
		switch {
		case known[h]:
		case inventory.IsLocalhost(h):
			// The implicit localhost exists once a pattern names it.
			_, _ = inv.Match(h)
		default:
			r.endHost(h)
		}
	}
}
