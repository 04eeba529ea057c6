package operator

import (
	"io"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cfzt/cfzt-runner/operator/promtext"
)

// cycleBuckets are the upper bounds (seconds) of the cycle-duration
// histogram: playbook cycles take from a fraction of a second to minutes.
var cycleBuckets = []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}

// Metrics holds the runtime's counters in a client_golang registry of its
// own and writes them in the Prometheus text exposition format (version
// 0.0.4). It is safe for concurrent use.
type Metrics struct {
	reg         *prometheus.Registry
	cycles      *prometheus.CounterVec // by result
	taskResults *prometheus.CounterVec // by module, status
	kubeReqs    *prometheus.CounterVec // by code
	httpReqs    *prometheus.CounterVec // by code
	watchEvents *prometheus.CounterVec // by kind
	durations   prometheus.Histogram
	lastSuccess prometheus.Gauge
	leader      prometheus.Gauge
}

// NewMetrics returns zeroed metrics.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		cycles: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cfzt_cycles_total",
			Help: "Playbook cycles by result."}, []string{"result"}),
		durations: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "cfzt_cycle_duration_seconds",
			Help: "Duration of playbook cycles.", Buckets: cycleBuckets}),
		taskResults: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cfzt_task_results_total",
			Help: "Task results by module and status."}, []string{"module", "status"}),
		kubeReqs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cfzt_kubernetes_requests_total",
			Help: "Kubernetes API requests by HTTP status code (0: transport error)."}, []string{"code"}),
		httpReqs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cfzt_http_requests_total",
			Help: "HTTP requests of modules by status code (0: transport error)."}, []string{"code"}),
		watchEvents: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cfzt_watch_events_total",
			Help: "Informer events that asked for a cycle, by kind."}, []string{"kind"}),
		leader: prometheus.NewGauge(prometheus.GaugeOpts{Name: "cfzt_leader",
			Help: "1 when this replica holds the leader lease or runs without leader election."}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{Name: "cfzt_last_successful_cycle_timestamp_seconds",
			Help: "Unix time of the end of the last successful cycle (0: none yet)."}),
	}
	// Both results exist from the start, at 0.
	m.cycles.WithLabelValues("ok")
	m.cycles.WithLabelValues("failed")
	m.reg.MustRegister(m.cycles, m.durations, m.taskResults, m.kubeReqs, m.httpReqs, m.watchEvents, m.leader, m.lastSuccess)
	return m
}

// CycleDone records one finished cycle.
func (m *Metrics) CycleDone(ok bool, d time.Duration, end time.Time) {
	result := "failed"
	if ok {
		result = "ok"
		m.lastSuccess.Set(float64(end.UnixNano()) / 1e9)
	}
	m.cycles.WithLabelValues(result).Inc()
	m.durations.Observe(d.Seconds())
}

// TaskResult counts one task result.
func (m *Metrics) TaskResult(module, status string) {
	m.taskResults.WithLabelValues(module, status).Inc()
}

// Request counts one outbound request; kind is "kubernetes" or "http" and
// code 0 a transport error.
func (m *Metrics) Request(kind string, code int) {
	switch kind {
	case "kubernetes":
		m.kubeReqs.WithLabelValues(strconv.Itoa(code)).Inc()
	case "http":
		m.httpReqs.WithLabelValues(strconv.Itoa(code)).Inc()
	}
}

// WatchEvent counts one informer event that asked for a cycle.
func (m *Metrics) WatchEvent(kind string) {
	m.watchEvents.WithLabelValues(kind).Inc()
}

// SetLeader records whether this replica holds the lease.
func (m *Metrics) SetLeader(leading bool) {
	v := 0.0
	if leading {
		v = 1
	}
	m.leader.Set(v)
}

// Gatherer is the registry of the metrics, which /metrics serves.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }

// WriteTo writes every series in the text exposition format, families in
// name order (a family without series yet is left out).
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	return promtext.WriteRegistry(w, m.reg)
}
