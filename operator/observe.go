package operator

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/urls"
	"k8s.io/client-go/tools/metrics"
)

var statusNames = map[run.Status]string{run.StatusOK: "ok", run.StatusChanged: "changed", run.StatusSkipped: "skipped", run.StatusFailed: "failed"}

var _ run.Observer = (*Metrics)(nil)

// Observe implements run.Observer: it counts task results by module and
// status (an ignored failure as "ignored"). The runner tells it of every
// result beside its display, so the display is the one it would be
// without metrics.
func (m *Metrics) Observe(ev *run.Event) {
	status := statusNames[ev.Status]
	if ev.Status == run.StatusFailed && ev.Ignored {
		status = "ignored"
	}
	m.TaskResult(ev.Task.Module, status)
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
// urls.Observe and every request of engine/urls (uri, get_url, the url lookup).
func ObserveRequests(m *Metrics) {
	sink.Store(m)
	installOnce.Do(func() {
		metrics.Register(metrics.RegisterOpts{RequestResult: clientGoResults{}})
	})
	urls.SetObserver(m.Request)
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
