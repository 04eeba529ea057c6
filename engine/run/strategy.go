package run

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// This file is the linear strategy's bookkeeping around the tasks: serial
// batches, host order, and the failure accounting ansible-core does after
// every step (any_errors_fatal, max_fail_percentage) and after every batch.

// unexpected is an error ansible-core does not anticipate and reports as
// "Unexpected Exception, this is probably a bug" with exit code 250 (such
// as a serial value that is not a number), caused by Python's message.
// cfzt-runner shows it without ansible-core's Python traceback.
func unexpected(format string, a ...any) *diag.Diagnostic {
	return &diag.Diagnostic{Summary: "Unexpected Exception, this is probably a bug", Cause: fmt.Errorf(format, a...),
		Code: diag.ExitUnexpected}
}

// pythonMessage is the Python exception message behind an unexpected
// error, or err itself.
func pythonMessage(err error) error {
	if d := diag.Fatal(err); d != nil && d.Code == diag.ExitUnexpected {
		return d.Cause
	}
	return err
}

// orderHosts sorts a play's hosts by its `order` keyword, as ansible-core's
// InventoryManager.get_hosts does.
func orderHosts(hosts []string, order any) ([]string, error) {
	out := append([]string(nil), hosts...)
	switch o := value.Str(order); {
	case order == nil || o == "inventory":
	case o == "sorted":
		sort.Strings(out)
	case o == "reverse_sorted":
		sort.Sort(sort.Reverse(sort.StringSlice(out)))
	case o == "reverse_inventory":
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	case o == "shuffle":
		rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	default:
		return nil, &diag.Diagnostic{Summary: "Invalid 'order' specified for inventory hosts: " + o, Code: diag.ExitOptions}
	}
	return out, nil
}

// serialBatches splits a play's hosts into the batches its `serial`
// keyword asks for (a number, a percentage or a list of both, the last
// entry repeating), as PlaybookExecutor._get_serialized_batches does.
func serialBatches(serial any, hosts []string) ([][]string, error) {
	sizes, ok := serial.([]any)
	if !ok {
		sizes = []any{serial}
	}
	if serial == nil || len(sizes) == 0 {
		sizes = []any{-1}
	}
	var batches [][]string
	rest := hosts
	for i := 0; len(rest) > 0; {
		n, err := pctToInt(sizes[i], len(hosts))
		if err != nil {
			return nil, err
		}
		if n <= 0 || n >= len(rest) {
			batches = append(batches, rest)
			break
		}
		batches = append(batches, rest[:n])
		rest = rest[n:]
		if i < len(sizes)-1 {
			i++
		}
	}
	return batches, nil
}

// pctToInt is ansible-core's pct_to_int: "x%" of total (at least one),
// or the value as an integer the way Python's int() converts it.
func pctToInt(v any, total int) (int, error) {
	if s, ok := v.(string); ok && strings.HasSuffix(s, "%") {
		p, err := pyInt(strings.TrimSuffix(s, "%"))
		if err != nil {
			return 0, err
		}
		if n := int(float64(p) / 100 * float64(total)); n != 0 {
			return n, nil
		}
		return 1, nil
	}
	return pyInt(v)
}

// pyInt converts a value the way Python's int() does, with its error
// wording.
func pyInt(v any) (int, error) {
	if n, ok := value.AsInt(v); ok {
		return n, nil
	}
	switch x := v.(type) {
	case float64:
		return int(math.Trunc(x)), nil
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(strings.ReplaceAll(x, "_", "")))
		if err != nil || strings.TrimSpace(x) == "" {
			return 0, unexpected("invalid literal for int() with base 10: %s", value.Repr(x))
		}
		return n, nil
	}
	return 0, unexpected("int() argument must be a string, a bytes-like object or a real number, not '%s'", pyTypeName(v))
}

// pyTypeName is the class name Python reports for a value loaded from a
// playbook.
func pyTypeName(v any) string {
	switch v.(type) {
	case *value.Dict:
		return "_AnsibleTaggedDict"
	case []any:
		return "_AnsibleTaggedList"
	case nil:
		return "NoneType"
	}
	return value.TypeName(v)
}

// playBatches templates the play's serial and order and splits hosts into
// batches.
func (r *Runner) playBatches(ps *playState, sc *scope, hosts []string) ([][]string, error) {
	order, err := r.renderPlayKeyword(ps.play.Order, sc)
	if err != nil {
		return nil, err
	}
	ordered, err := orderHosts(hosts, order)
	if err != nil {
		return nil, err
	}
	serial, err := r.renderPlayKeyword(ps.play.Serial, sc)
	if err != nil {
		return nil, err
	}
	return serialBatches(serial, ordered)
}

// renderPlayKeyword renders a play keyword with play-level variables.
func (r *Runner) renderPlayKeyword(v any, sc *scope) (any, error) {
	if v == nil {
		return nil, nil
	}
	return r.Engine.RenderValue(v, sc, template.Options{})
}

// runBatches runs a play batch after batch. A batch whose hosts all
// failed, or that exceeded max_fail_percentage, ends the playbook; meta:
// end_play ends the play only.
func (r *Runner) runBatches(ps *playState, batches [][]string) (code int, stopPlaybook bool) {
	for _, h := range ps.allHosts {
		r.host(h).removed = r.failedHosts[h]
	}
	for i, batch := range batches {
		if i > 0 {
			r.Display.PlayStart(ps.name)
		}
		before := len(r.failedHosts)
		code = r.runBatch(ps, batch)
		switch {
		case r.abort != 0 || r.stopping():
			return code, true
		case ps.playEnded:
			return code, false
		case ps.breakPlay:
			return code, true
		case len(r.failedHosts)-before == len(batch):
			return code, true
		}
	}
	return code, false
}

// runBatch runs the play on one batch of hosts, as one TaskQueueManager
// run of ansible-core: hosts that failed earlier in the playbook take no
// part, handlers and role runs start afresh, and at the end every failed
// host joins the playbook's failed hosts.
func (r *Runner) runBatch(ps *playState, batch []string) int {
	ps.startBatch(batch)
	for _, h := range batch {
		hs := r.host(h)
		hs.ended, hs.endRole, hs.escalated, hs.skipRescue = false, nil, false, false
		prior := r.failedHosts[h]
		hs.failed, hs.halted, hs.removed = prior, prior, prior
		if hs.unreachable {
			hs.halted, hs.removed = true, true
		}
	}
	r.failedHosts = map[string]bool{}
	if err := r.inventoryVaultError(batch); err != nil {
		r.fatal(err)
		return r.abort
	}
	root := &frame{kw: &ps.play.Keywords, play: true}
	ps.root = root
	r.gatherFacts(ps)
	if !r.reloadVarsFiles(ps) {
		return r.abort
	}
	r.runSection(ps, root, func(f *frame) { r.runItems(ps, f, ps.play.PreTasks) })
	r.runSection(ps, root, func(f *frame) {
		for _, ri := range ps.play.Roles {
			if ps.endPlay || r.abort != 0 || r.stopping() {
				return
			}
			r.runRole(ps, f, ri)
		}
		r.runItems(ps, f, ps.play.Tasks)
	})
	r.runSection(ps, root, func(f *frame) { r.runItems(ps, f, ps.play.PostTasks) })
	r.result = 0
	unreachable := false
	for name, hs := range r.hosts {
		if hs.failed {
			r.failedHosts[name] = true
			r.result = 2
		}
		unreachable = unreachable || hs.unreachable
	}
	if unreachable {
		// ansible-core's RUN_UNREACHABLE_HOSTS wins over failed hosts.
		r.result = 4
	}
	return r.result
}

// startBatch resets what one batch of a play does not share with the
// previous one.
func (ps *playState) startBatch(batch []string) {
	ps.batch = batch
	ps.hosts = append([]string(nil), batch...)
	ps.endPlay = false
	ps.handlers = newHandlerState(ps.staticHandlers)
}

// runSection runs one section of the play (pre_tasks, roles and tasks,
// post_tasks) and the flush_handlers ansible-core adds after it. With
// force_handlers the section is a block whose always is that flush, so
// that a host that fails in the section still runs its handlers.
func (r *Runner) runSection(ps *playState, root *frame, body func(f *frame)) {
	if ps.endPlay || r.abort != 0 || r.stopping() {
		return
	}
	if !r.forceHandlers(ps) {
		body(root)
		r.implicitFlush(ps, root)
		return
	}
	r.runParts(ps, root, &playbook.Block{}, blockParts{
		body:      body,
		always:    func(f *frame) { r.implicitFlush(ps, f) },
		hasAlways: true,
	})
}

// step is one lockstep step of the linear strategy: a task on the hosts
// that run it.
type step struct {
	// results counts the results of the step; failed lists the hosts whose
	// result failed (not ignored).
	results int
	failed  []string
	// fatal is set when the task is any_errors_fatal or run_once (and not
	// ignore_errors) for some host.
	fatal bool
	// checked is set once endStep has run.
	checked bool
}

// add records the result of one host.
func (st *step) add(host string, failed bool) {
	st.results++
	if failed {
		st.failed = append(st.failed, host)
	}
}

// endStep makes the checks the linear strategy makes after each step: a
// failure in an any_errors_fatal task fails every host of the batch, and
// more failed hosts than max_fail_percentage allows end the batch and the
// play at once.
func (r *Runner) endStep(ps *playState, st *step) {
	if st.checked || r.abort != 0 {
		return
	}
	st.checked = true
	if st.fatal && len(st.failed) > 0 {
		for _, h := range ps.batch {
			if !containsStr(st.failed, h) {
				r.failHost(h)
			}
		}
	}
	if pct, ok := r.maxFailPercentage(ps); ok && st.results > 0 && float64(len(r.failedHosts))/float64(len(ps.batch)) > pct/100 {
		for _, h := range ps.batch {
			if !containsStr(st.failed, h) {
				r.failHost(h)
			}
		}
		r.Display.NoHostsRemaining()
		ps.breakPlay = true
	}
	if ps.breakPlay && len(r.failedHosts) >= len(ps.batch) {
		r.Display.NoHostsRemaining()
		ps.endPlay = true
	}
}

// failHost fails a host that did not fail itself (any_errors_fatal,
// max_fail_percentage): it leaves what it was running for its block's
// rescue or always, without a counter of its own. A host that was
// already failing is failed out of the section it was headed for as
// well, as PlayIterator.mark_host_failed does to a host marked twice.
func (r *Runner) failHost(h string) {
	hs := r.host(h)
	if hs.halted {
		hs.escalated = true
	}
	hs.failed, hs.halted, hs.removed = true, true, true
	r.failedHosts[h] = true
}

// maxFailPercentage is the play's max_fail_percentage, if set.
func (r *Runner) maxFailPercentage(ps *playState) (float64, bool) {
	v := ps.play.MaxFailPercentage
	if v == nil {
		return 0, false
	}
	if s, ok := v.(string); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.ReplaceAll(s, "%", "")), 64)
		return f, err == nil
	}
	return value.AsFloat(v)
}

// stepFatal reports whether a failure of t on this host fails the whole
// batch: any_errors_fatal or run_once, unless errors are ignored.
func (tr *taskRun) stepFatal() bool {
	aef := tr.boolOf(tr.f.keyword(tr.t, "any_errors_fatal", func(k *playbook.Keywords) any { return k.AnyErrorsFatal }))
	return (aef || tr.runOnce()) && !tr.ignoreErrors()
}

// throttle validates the task's throttle keyword. cfzt-runner runs one
// host at a time, so any valid throttle is already honoured.
func (tr *taskRun) throttle() error {
	v := tr.f.keyword(tr.t, "throttle", func(k *playbook.Keywords) any { return k.Throttle })
	if v == nil {
		return nil
	}
	rv := v
	if s, ok := v.(string); ok {
		out, err := tr.r.Engine.Render(s, tr.sc, tr.opt)
		if err != nil {
			return err
		}
		rv = out
	}
	if _, err := pyInt(rv); err != nil {
		p := tr.throttlePos()
		return &diag.Diagnostic{Summary: "Failed to convert the throttle value to an integer.", Origin: &p, Cause: pythonMessage(err)}
	}
	return nil
}

// throttlePos is where the task's (or its nearest block's) throttle was
// written.
func (tr *taskRun) throttlePos() value.Pos {
	if tr.t.Set["throttle"] {
		return tr.t.ThrottlePos
	}
	for x := tr.f; x != nil; x = x.parent {
		if x.kw != nil && x.kw.Set["throttle"] {
			return x.kw.ThrottlePos
		}
	}
	return tr.t.Pos
}

// playHostLists are the ansible_play_hosts_all, ansible_play_hosts and
// ansible_play_batch magic variables: the play's hosts, those not failed
// or ended, and those of them in the running batch.
func (r *Runner) playHostLists(ps *playState) (all, active, batch []any) {
	all = make([]any, 0, len(ps.allHosts))
	active = make([]any, 0, len(ps.allHosts))
	batch = make([]any, 0, len(ps.batch))
	for _, h := range ps.allHosts {
		all = append(all, h)
		if !r.host(h).removed {
			active = append(active, h)
		}
	}
	for _, h := range ps.batch {
		if !r.host(h).removed {
			batch = append(batch, h)
		}
	}
	return all, active, batch
}
