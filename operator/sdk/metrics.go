package sdk

import (
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cfzt/cfzt-runner/internal/promtext"
)

// defBuckets are the Prometheus client's default histogram buckets, which
// ansible-operator's reconcile histogram and user histograms use.
var defBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// Metrics are ansible-operator's metrics under their names:
// ansible_operator_build_info, ansible_operator_reconcile_result{GVK,
// result} and the ansible_operator_reconciles{GVK} histogram, plus the
// metrics roles define with operator_sdk.util.osdk_metric. It is safe for
// concurrent use.
type Metrics struct {
	Version, Commit string
	// Now is the clock of set_to_current_time gauges.
	Now func() time.Time

	mu         sync.Mutex
	results    map[[2]string]float64
	reconciles map[string]*promtext.Histogram
	user       map[string]*userMetric
	userOrder  []string
}

// NewMetrics returns empty metrics for a binary version and commit.
func NewMetrics(version, commit string) *Metrics {
	return &Metrics{Version: version, Commit: commit, Now: time.Now, results: map[[2]string]float64{},
		reconciles: map[string]*promtext.Histogram{}, user: map[string]*userMetric{}}
}

// ReconcileResult counts one reconcile of a kind (its GVK string) that
// ended "succeeded" or "failed".
func (m *Metrics) ReconcileResult(gvk, result string) {
	m.mu.Lock()
	m.results[[2]string{gvk, result}]++
	m.mu.Unlock()
}

// ReconcileDuration observes how long a run of a kind's role or playbook
// took.
func (m *Metrics) ReconcileDuration(gvk string, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.reconciles[gvk]
	if h == nil {
		h = promtext.NewHistogram(defBuckets)
		m.reconciles[gvk] = h
	}
	h.Observe(d.Seconds())
}

// ResultCount returns the reconcile_result gauge of a kind and result.
func (m *Metrics) ResultCount(gvk, result string) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.results[[2]string{gvk, result}]
}

// WriteTo writes the metrics in the Prometheus text format.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	promtext.Header(&b, "ansible_operator_build_info", "gauge", "Build information for the ansible-operator binary")
	promtext.Sample(&b, "ansible_operator_build_info", promtext.L("commit", m.Commit, "version", m.Version), 1)
	promtext.Header(&b, "ansible_operator_reconcile_result", "gauge", "Gauge of reconciles and their results.")
	keys := make([][2]string, 0, len(m.results))
	for k := range m.results {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+"\x00"+keys[i][1] < keys[j][0]+"\x00"+keys[j][1] })
	for _, k := range keys {
		promtext.Sample(&b, "ansible_operator_reconcile_result", promtext.L("GVK", k[0], "result", k[1]), m.results[k])
	}
	promtext.Header(&b, "ansible_operator_reconciles", "histogram", "How long in seconds a reconcile takes.")
	gvks := make([]string, 0, len(m.reconciles))
	for g := range m.reconciles {
		gvks = append(gvks, g)
	}
	sort.Strings(gvks)
	for _, g := range gvks {
		m.reconciles[g].Write(&b, "ansible_operator_reconciles", promtext.L("GVK", g))
	}
	for _, name := range m.userOrder {
		m.user[name].write(&b)
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}
