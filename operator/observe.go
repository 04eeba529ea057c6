package operator

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/modules"
	"k8s.io/client-go/tools/metrics"
)

// CountingDisplay passes every event to the wrapped display and counts task
// results by module and status. It forwards the optional display methods
// the executor looks for (run.Messenger, run.NoHostsDisplay) with the
// executor's own fallbacks, so wrapping changes no output.
type CountingDisplay struct {
	run.Display
	Metrics *Metrics
}

// Message implements run.Messenger.
func (d *CountingDisplay) Message(level int, msg string) {
	if m, ok := d.Display.(run.Messenger); ok {
		m.Message(level, msg)
	}
}

// NoHostsMatched implements run.NoHostsDisplay.
func (d *CountingDisplay) NoHostsMatched() {
	if nh, ok := d.Display.(run.NoHostsDisplay); ok {
		nh.NoHostsMatched()
		return
	}
	d.Display.Warning("skipping: no hosts matched")
}

var statusNames = map[run.Status]string{run.StatusOK: "ok", run.StatusChanged: "changed", run.StatusSkipped: "skipped", run.StatusFailed: "failed"}

// Result implements run.Display.
func (d *CountingDisplay) Result(ev *run.Event) {
	status := statusNames[ev.Status]
	if ev.Status == run.StatusFailed && ev.Ignored {
		status = "ignored"
	}
	d.Metrics.TaskResult(ev.Task.Module, status)
	d.Display.Result(ev)
}

// sink is where client-go's request hook reports; client-go accepts one
// registration per process, so the hook is installed once and the sink
// swapped.
var (
	sink        atomic.Pointer[Metrics]
	installOnce sync.Once
)

// ObserveRequests makes m count the process's outbound requests: every
// request made through client-go (the modules' and the runtime's own:
// informers, Lease) by its HTTP status code, and what modules report through
// modules.ObserveRequest.
func ObserveRequests(m *Metrics) {
	sink.Store(m)
	installOnce.Do(func() {
		metrics.Register(metrics.RegisterOpts{RequestResult: clientGoResults{}})
	})
	modules.SetRequestObserver(m.Request)
}

type clientGoResults struct{}

// Increment implements metrics.ResultMetric; code is the HTTP status, or
// "<error>" for a transport error.
func (clientGoResults) Increment(_ context.Context, code, _, _ string) {
	m := sink.Load()
	if m == nil {
		return
	}
	n, err := strconv.Atoi(code)
	if err != nil {
		n = 0
	}
	m.Request("kubernetes", n)
}
