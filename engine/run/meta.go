package run

import (
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// runMeta implements meta actions as ansible-core's linear strategy does:
// per host (with a banner each time) for noop, end_host, end_role and
// flush_handlers, once for the others. A skipped meta task is shown but
// not counted.
func (r *Runner) runMeta(ps *playState, f *frame, t *playbook.Task, hosts []string) {
	action := value.Str(t.Args.Default("_raw_params", ""))
	targets := hosts
	switch action {
	case "noop", "reset_connection", "end_host", "role_complete", "flush_handlers", "end_role":
	default:
		targets = hosts[:1]
	}
	var flush []string
	for _, h := range targets {
		hs := r.host(h)
		tr := r.newTaskRun(ps, f, t, hs)
		r.Display.TaskStart(tr.name, t, f.handler)
		if res := tr.checkConds(tr.sc); res != nil {
			if isFailed(res) {
				tr.process(res, nil)
				continue
			}
			reason := action + " conditional evaluated to False"
			msg := action
			switch action {
			case "flush_handlers":
				reason += ", not running handlers for " + h
			case "clear_facts":
				reason += ", not clearing facts and fact cache for " + h
			case "clear_host_errors":
				reason += ", not clearing host error state for " + h
			case "end_batch":
				reason += ", continuing current batch"
			case "end_play":
				reason += ", continuing play"
			case "end_host":
				reason += ", continuing execution for " + h
				msg = "end_host conditional evaluated to false, continuing execution for " + h
			case "end_role":
				reason += "continuing role " + f.role.Name() + " for " + h
			}
			r.message(2, "META: "+reason)
			r.Display.Result(&Event{Host: h, Task: t, Name: tr.name, Status: StatusSkipped, NoLog: tr.noLog,
				Result: value.DictOf("msg", msg, "skipped", true, "skip_reason", reason)})
			continue
		}
		msg := action
		switch action {
		case "flush_handlers":
			flush = append(flush, h)
			r.announceHandlers(ps, h)
			msg = "triggered running handlers for " + h
		case "end_play":
			ps.endPlay = true
			msg = "ending play"
		case "end_batch":
			ps.endPlay = true
			msg = "ending batch"
		case "end_host":
			hs.ended = true
			msg = "ending play for " + h
		case "clear_host_errors":
			for _, x := range ps.allHosts {
				r.host(x).failed = false
			}
			msg = "cleared host errors"
		case "clear_facts":
			for _, x := range ps.allHosts {
				r.host(x).facts = value.NewDict(8)
			}
			msg = "facts cleared"
		case "end_role":
			if f.role != nil {
				hs.endRole = f.role
			}
			// ansible-core reports this one at debug level only.
			continue
		case "refresh_inventory":
			msg = "inventory successfully refreshed"
		case "reset_connection":
			msg = "no connection, nothing to reset"
		case "noop", "role_complete":
		default:
			p := t.Pos
			r.Display.Error(&ChainError{Msg: "invalid meta action requested: " + action, Origin: &p})
			hs.failed = true
			r.stat(h).Failed++
			continue
		}
		r.message(2, "META: "+msg)
	}
	if len(flush) > 0 {
		r.flushHandlers(ps, flush...)
	}
}
