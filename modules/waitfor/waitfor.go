// Package waitfor is ansible.builtin.wait_for: wait until a TCP port
// accepts connections (optionally until it sends a string), stops
// accepting them or has no more active connections, or until a file exists
// (optionally containing a string) or is gone; or simply sleep.
package waitfor

import (
	"context"
	"fmt"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Entries returns ansible.builtin.wait_for.
func Entries() []module.Entry {
	return []module.Entry{{FQCN: "ansible.builtin.wait_for", Module: New(SystemClock{})}}
}

// connectionStates maps the active_connection_states names to the state
// codes of /proc/net/tcp.
var connectionStates = map[string]string{
	"ESTABLISHED": "01", "SYN_SENT": "02", "SYN_RECV": "03", "FIN_WAIT1": "04", "FIN_WAIT2": "05", "TIME_WAIT": "06",
}

var spec = argspec.Spec{Options: []argspec.Option{
	{Name: "host", Type: argspec.Str, Default: "127.0.0.1"},
	{Name: "timeout", Type: argspec.Int, Default: 300},
	{Name: "connect_timeout", Type: argspec.Int, Default: 5},
	{Name: "delay", Type: argspec.Int, Default: 0},
	{Name: "port", Type: argspec.Int},
	{Name: "active_connection_states", Type: argspec.List, Elements: argspec.Str,
		Default: []any{"ESTABLISHED", "FIN_WAIT1", "FIN_WAIT2", "SYN_RECV", "SYN_SENT", "TIME_WAIT"}},
	{Name: "path", Type: argspec.Path},
	{Name: "search_regex", Type: argspec.Str},
	{Name: "state", Type: argspec.Str, Default: "started", Choices: []any{"absent", "drained", "present", "started", "stopped"}},
	{Name: "exclude_hosts", Type: argspec.List, Elements: argspec.Str},
	{Name: "sleep", Type: argspec.Int, Default: 1},
	{Name: "msg", Type: argspec.Str},
}}

// Clock is the time source and the sleeper of a wait.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx is done, whichever is first.
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now implements Clock.
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep implements Clock.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Module is wait_for with its clock.
type Module struct{ clock Clock }

// New returns wait_for using clock.
func New(clock Clock) *Module { return &Module{clock: clock} }

// wait is one validated wait_for invocation.
type wait struct {
	ctx   context.Context
	clock Clock
	p     argspec.Params
	re    *py.Regexp
	start time.Time
	end   time.Time
	// groups and named are the search_regex match's groups.
	groups []any
	named  *value.Dict
}

// Run implements module.Module.
func (m *Module) Run(req *module.Request) (*value.Dict, error) {
	v := spec.Validate(req.Args)
	if fail := v.Failure(req.Action); fail != nil {
		return fail, nil
	}
	if req.Check {
		return value.DictOf("changed", false, "skipped", true,
			"msg", "remote module ("+req.Action+") does not support check mode"), nil
	}
	w := &wait{ctx: req.Ctx, clock: m.clock, p: v.P(), groups: []any{}, named: value.NewDict(0)}
	if fail := w.checkParams(); fail != nil {
		return fail, nil
	}
	w.start = w.clock.Now()
	w.end = w.start.Add(time.Duration(w.p.Int("timeout")) * time.Second)
	if delay := w.p.Int("delay"); delay != 0 {
		if err := w.clock.Sleep(w.ctx, time.Duration(delay)*time.Second); err != nil {
			return nil, err
		}
	}
	res, err := w.run()
	if err != nil || res != nil {
		return res, err
	}
	return w.success(), nil
}

// checkParams compiles search_regex and rejects combinations that make no
// sense, before any waiting.
func (w *wait) checkParams() *value.Dict {
	p := w.p
	if p.IsSet("search_regex") {
		re, err := compileSearch(p.Str("search_regex"))
		if err != nil {
			return module.Failed("Invalid regular expression: " + err.Error())
		}
		w.re = re
	}
	state := p.Str("state")
	switch {
	case p.Int("port") != 0 && p.Str("path") != "":
		return failedAfter("port and path parameter can not both be passed to wait_for", 0)
	case p.Str("path") != "" && state == "stopped":
		return failedAfter("state=stopped should only be used for checking a port in the wait_for module", 0)
	case p.Str("path") != "" && state == "drained":
		return failedAfter("state=drained should only be used for checking a port in the wait_for module", 0)
	case p.IsSet("exclude_hosts") && state != "drained":
		return failedAfter("exclude_hosts should only be with state=drained", 0)
	}
	for _, s := range p.Strs("active_connection_states") {
		if _, ok := connectionStates[s]; !ok {
			return failedAfter("unknown active_connection_state ("+s+") defined", 0)
		}
	}
	return nil
}

// run waits for the condition; a nil result means it was met.
func (w *wait) run() (*value.Dict, error) {
	port, path, state := w.p.Int("port"), w.p.Str("path"), w.p.Str("state")
	switch {
	case port == 0 && path == "" && state != "drained":
		return nil, w.clock.Sleep(w.ctx, time.Duration(w.p.Int("timeout"))*time.Second)
	case state == "absent" || state == "stopped":
		return w.until(w.gone, w.timeoutGone)
	case state == "started" || state == "present":
		return w.until(w.present, w.timeoutPresent)
	default:
		return w.drained()
	}
}

// until checks met until it reports true, sleeping between checks, and
// returns timedOut's failure when the timeout passes first. A check may
// fail the task at once by returning a result.
func (w *wait) until(met func() (bool, *value.Dict, error), timedOut func() *value.Dict) (*value.Dict, error) {
	for w.clock.Now().Before(w.end) {
		ok, fail, err := met()
		if err != nil || fail != nil {
			return fail, err
		}
		if ok {
			return nil, nil
		}
		if err := w.clock.Sleep(w.ctx, time.Duration(w.p.Int("sleep"))*time.Second); err != nil {
			return nil, err
		}
	}
	return timedOut(), nil
}

// elapsed is timedelta.seconds of the time since the start: whole seconds.
func (w *wait) elapsed() int {
	return int(w.clock.Now().Sub(w.start)/time.Second) % 86400
}

// failure is fail_json with the elapsed time; a msg argument replaces the
// module's own message.
func (w *wait) failure(msg string) *value.Dict {
	if custom := w.p.Str("msg"); custom != "" {
		msg = custom
	}
	return failedAfter(msg, w.elapsed())
}

func failedAfter(msg string, elapsed int) *value.Dict {
	res := module.Failed(msg)
	res.Set("elapsed", elapsed)
	return res
}

func (w *wait) timeoutGone() *value.Dict {
	if w.p.Int("port") != 0 {
		return w.failure(fmt.Sprintf("Timeout when waiting for %s:%d to stop.", w.p.Str("host"), w.p.Int("port")))
	}
	return w.failure(fmt.Sprintf("Timeout when waiting for %s to be absent.", w.p.Str("path")))
}

func (w *wait) timeoutPresent() *value.Dict {
	host, port, path, re := w.p.Str("host"), w.p.Int("port"), w.p.Str("path"), w.p.Str("search_regex")
	switch {
	case port != 0 && re != "":
		return w.failure(fmt.Sprintf("Timeout when waiting for search string %s in %s:%d", re, host, port))
	case port != 0:
		return w.failure(fmt.Sprintf("Timeout when waiting for %s:%d", host, port))
	case re != "":
		return w.failure(fmt.Sprintf("Timeout when waiting for search string %s in %s", re, path))
	}
	return w.failure("Timeout when waiting for file " + path)
}

// success is exit_json's result, with the file's attributes when path
// names one that exists (add_path_info, whose `state` replaces wait_for's).
func (w *wait) success() *value.Dict {
	res := value.DictOf("changed", false, "state", w.p.Str("state"), "port", w.p.Default("port", nil),
		"search_regex", w.p.Default("search_regex", nil), "match_groups", w.groups, "match_groupdict", w.named,
		"path", w.p.Default("path", nil), "elapsed", w.elapsed())
	if path := w.p.Str("path"); path != "" {
		addPathInfo(res, path)
	}
	return res
}

// compileSearch compiles a Python pattern in multi-line mode. RE2 rejects
// lookaround and backreferences, which Python accepts.
func compileSearch(pattern string) (*py.Regexp, error) {
	return py.CompileRegex(pattern, false, true)
}

// recordMatch keeps the groups of the match of w.re at loc in data.
func (w *wait) recordMatch(data []byte, loc []int) {
	names := w.re.SubexpNames()
	for i := 1; i*2 < len(loc); i++ {
		var g any
		if loc[2*i] >= 0 {
			g = string(data[loc[2*i]:loc[2*i+1]])
		}
		w.groups = append(w.groups, g)
		if names[i] != "" {
			w.named.Set(names[i], g)
		}
	}
}
