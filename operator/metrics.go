package operator

import (
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cfzt/cfzt-runner/internal/promtext"
)

// cycleBuckets are the upper bounds (seconds) of the cycle-duration
// histogram: playbook cycles take from a fraction of a second to minutes.
var cycleBuckets = []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}

// Metrics holds the runtime's counters and writes them in the Prometheus
// text exposition format (version 0.0.4). It is safe for concurrent use.
type Metrics struct {
	mu          sync.Mutex
	cycles      map[string]float64 // by result
	taskResults map[[2]string]float64
	kubeReqs    map[string]float64 // by code
	httpReqs    map[string]float64
	watchEvents map[string]float64 // by kind
	durations   *promtext.Histogram
	lastSuccess time.Time
	leader      float64
}

// NewMetrics returns zeroed metrics.
func NewMetrics() *Metrics {
	return &Metrics{
		cycles:      map[string]float64{"ok": 0, "failed": 0},
		taskResults: map[[2]string]float64{},
		kubeReqs:    map[string]float64{},
		httpReqs:    map[string]float64{},
		watchEvents: map[string]float64{},
		durations:   promtext.NewHistogram(cycleBuckets),
	}
}

// CycleDone records one finished cycle.
func (m *Metrics) CycleDone(ok bool, d time.Duration, end time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	result := "failed"
	if ok {
		result = "ok"
		m.lastSuccess = end
	}
	m.cycles[result]++
	m.durations.Observe(d.Seconds())
}

// TaskResult counts one task result.
func (m *Metrics) TaskResult(module, status string) {
	m.mu.Lock()
	m.taskResults[[2]string{module, status}]++
	m.mu.Unlock()
}

// Request counts one outbound request; kind is "kubernetes" or "http" and
// code 0 a transport error.
func (m *Metrics) Request(kind string, code int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch kind {
	case "kubernetes":
		m.kubeReqs[strconv.Itoa(code)]++
	case "http":
		m.httpReqs[strconv.Itoa(code)]++
	}
}

// WatchEvent counts one informer event that asked for a cycle.
func (m *Metrics) WatchEvent(kind string) {
	m.mu.Lock()
	m.watchEvents[kind]++
	m.mu.Unlock()
}

// SetLeader records whether this replica holds the lease.
func (m *Metrics) SetLeader(leading bool) {
	m.mu.Lock()
	m.leader = 0
	if leading {
		m.leader = 1
	}
	m.mu.Unlock()
}

// WriteTo writes every series in the text exposition format.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	header(&b, "cfzt_cycles_total", "counter", "Playbook cycles by result.")
	for _, r := range sortedKeys(m.cycles) {
		sample(&b, "cfzt_cycles_total", [][2]string{{"result", r}}, m.cycles[r])
	}
	header(&b, "cfzt_cycle_duration_seconds", "histogram", "Duration of playbook cycles.")
	m.durations.Write(&b, "cfzt_cycle_duration_seconds", nil)
	header(&b, "cfzt_task_results_total", "counter", "Task results by module and status.")
	keys := make([][2]string, 0, len(m.taskResults))
	for k := range m.taskResults {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		sample(&b, "cfzt_task_results_total", [][2]string{{"module", k[0]}, {"status", k[1]}}, m.taskResults[k])
	}
	header(&b, "cfzt_kubernetes_requests_total", "counter", "Kubernetes API requests by HTTP status code (0: transport error).")
	for _, c := range sortedKeys(m.kubeReqs) {
		sample(&b, "cfzt_kubernetes_requests_total", [][2]string{{"code", c}}, m.kubeReqs[c])
	}
	header(&b, "cfzt_http_requests_total", "counter", "HTTP requests of modules by status code (0: transport error).")
	for _, c := range sortedKeys(m.httpReqs) {
		sample(&b, "cfzt_http_requests_total", [][2]string{{"code", c}}, m.httpReqs[c])
	}
	header(&b, "cfzt_watch_events_total", "counter", "Informer events that asked for a cycle, by kind.")
	for _, k := range sortedKeys(m.watchEvents) {
		sample(&b, "cfzt_watch_events_total", [][2]string{{"kind", k}}, m.watchEvents[k])
	}
	header(&b, "cfzt_leader", "gauge", "1 when this replica holds the leader lease or runs without leader election.")
	sample(&b, "cfzt_leader", nil, m.leader)
	header(&b, "cfzt_last_successful_cycle_timestamp_seconds", "gauge", "Unix time of the end of the last successful cycle (0: none yet).")
	last := 0.0
	if !m.lastSuccess.IsZero() {
		last = float64(m.lastSuccess.UnixNano()) / 1e9
	}
	sample(&b, "cfzt_last_successful_cycle_timestamp_seconds", nil, last)
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

func header(b *strings.Builder, name, typ, help string) { promtext.Header(b, name, typ, help) }

func sample(b *strings.Builder, name string, labels [][2]string, v float64) {
	l := make([]promtext.Label, len(labels))
	for i, x := range labels {
		l[i] = promtext.Label{Name: x[0], Value: x[1]}
	}
	promtext.Sample(b, name, l, v)
}

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
