package sdk

import (
	"io"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/cfzt/cfzt-runner/operator/promtext"
)

// defBuckets are the Prometheus client's default histogram buckets, which
// ansible-operator's reconcile histogram and user histograms use.
var defBuckets = prometheus.DefBuckets

// Metrics are ansible-operator's metrics under their names:
// ansible_operator_build_info, ansible_operator_reconcile_result{GVK,
// result} and the ansible_operator_reconciles{GVK} histogram, plus the
// metrics roles define with operator_sdk.util.osdk_metric, kept in a
// client_golang registry of their own. It is safe for concurrent use.
type Metrics struct {
	Version, Commit string
	// Now is the clock of set_to_current_time gauges.
	Now func() time.Time

	reg        *prometheus.Registry
	results    *prometheus.GaugeVec
	reconciles *prometheus.HistogramVec

	mu   sync.Mutex
	user map[string]*userMetric
}

// NewMetrics returns empty metrics for a binary version and commit.
func NewMetrics(version, commit string) *Metrics {
	m := &Metrics{Version: version, Commit: commit, Now: time.Now, reg: prometheus.NewRegistry(), user: map[string]*userMetric{},
		results: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "ansible_operator_reconcile_result",
			Help: "Gauge of reconciles and their results."}, []string{"GVK", "result"}),
		reconciles: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "ansible_operator_reconciles",
			Help: "How long in seconds a reconcile takes.", Buckets: defBuckets}, []string{"GVK"}),
	}
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "ansible_operator_build_info",
		Help: "Build information for the ansible-operator binary"}, []string{"commit", "version"})
	build.WithLabelValues(commit, version).Set(1)
	m.reg.MustRegister(build, m.results, m.reconciles)
	return m
}

// ReconcileResult counts one reconcile of a kind (its GVK string) that
// ended "succeeded" or "failed".
func (m *Metrics) ReconcileResult(gvk, result string) {
	m.results.WithLabelValues(gvk, result).Inc()
}

// ReconcileDuration observes how long a run of a kind's role or playbook
// took.
func (m *Metrics) ReconcileDuration(gvk string, d time.Duration) {
	m.reconciles.WithLabelValues(gvk).Observe(d.Seconds())
}

// ResultCount returns the reconcile_result gauge of a kind and result.
func (m *Metrics) ResultCount(gvk, result string) float64 {
	var out dto.Metric
	if err := m.results.WithLabelValues(gvk, result).Write(&out); err != nil {
		return 0
	}
	return out.GetGauge().GetValue()
}

// Gatherer is the registry of the metrics, which /metrics serves.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }

// WriteTo writes the metrics in the Prometheus text format, families in
// name order.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	return promtext.WriteRegistry(w, m.reg)
}
