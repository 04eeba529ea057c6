package sdk

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/operator/promtext"
)

// userMetric is a metric a role defined with osdk_metric: a counter, a
// gauge, a histogram (default buckets) or a summary (sum and count, no
// quantiles).
type userMetric struct {
	kind    string
	counter prometheus.Counter
	gauge   prometheus.Gauge
	obs     prometheus.Observer
}

// metricKinds are osdk_metric's metric arguments, in the order the kind is
// looked for.
var metricKinds = []string{"counter", "gauge", "histogram", "summary"}

// UserMetric applies one osdk_metric call: it defines the metric on first
// use (with description as its help) and applies the operation its
// argument dict names, as ansible-operator's metrics endpoint does:
// counter increment or add (never negative); gauge set, increment,
// decrement, add, subtract or set_to_current_time; histogram and summary
// observe. Exactly one of counter, gauge, histogram and summary is
// allowed; a metric keeps its first kind.
func (m *Metrics) UserMetric(name, description string, args *value.Dict) error {
	kind := ""
	var op *value.Dict
	for _, k := range metricKinds {
		v, ok := args.Get(k)
		if !ok || v == nil {
			continue
		}
		if kind != "" {
			return errors.New("only one metric can be processed at a time")
		}
		kind = k
		op, _ = v.(*value.Dict)
		if op == nil {
			op = value.NewDict(0)
		}
	}
	if kind == "" {
		return errors.New("a request should contain at least one metric")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.user[name]
	if u == nil {
		var err error
		if u, err = m.defineUser(name, description, kind); err != nil {
			return err
		}
		m.user[name] = u
	}
	if u.kind != kind {
		return fmt.Errorf("cannot change metric type of %s, which is a %s", name, u.kind)
	}
	return m.applyUser(u, op)
}

// defineUser registers a role's metric. A name that is not a valid
// Prometheus metric name, or that one of the families /metrics already
// serves uses (ansible_operator_*, go_*, process_*, cfzt_build_info), is
// refused, as ansible-operator's registry refuses it.
func (m *Metrics) defineUser(name, help, kind string) (*userMetric, error) {
	if !model.LegacyValidation.IsValidMetricName(name) {
		return nil, fmt.Errorf("invalid metric name %q", name)
	}
	if promtext.RuntimeFamily(name) {
		return nil, fmt.Errorf("metric %s is already registered", name)
	}
	u := &userMetric{kind: kind}
	var c prometheus.Collector
	switch kind {
	case "counter":
		u.counter = prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
		c = u.counter
	case "gauge":
		u.gauge = prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
		c = u.gauge
	case "histogram":
		h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: defBuckets})
		u.obs, c = h, h
	default:
		s := prometheus.NewSummary(prometheus.SummaryOpts{Name: name, Help: help})
		u.obs, c = s, s
	}
	if err := m.reg.Register(c); err != nil {
		return nil, fmt.Errorf("metric %s: %w", name, err)
	}
	return u, nil
}

func num(d *value.Dict, k string) float64 {
	switch n := d.Default(k, 0).(type) {
	case int:
		return float64(n)
	case float64:
		return n
	}
	return 0
}

func flag(d *value.Dict, k string) bool { return value.Truthy(d.Default(k, false)) }

// applyUser applies one operation; like ansible-operator, the first
// operation given in its order wins.
func (m *Metrics) applyUser(u *userMetric, op *value.Dict) error {
	switch u.kind {
	case "counter":
		if flag(op, "increment") {
			u.counter.Inc()
		} else if add := num(op, "add"); add != 0 {
			if add < 0 {
				return errors.New("counter metrics cannot decrease in value")
			}
			u.counter.Add(add)
		}
	case "gauge":
		switch {
		case flag(op, "increment"):
			u.gauge.Inc()
		case flag(op, "decrement"):
			u.gauge.Dec()
		case num(op, "add") != 0:
			u.gauge.Add(num(op, "add"))
		case num(op, "subtract") != 0:
			u.gauge.Sub(num(op, "subtract"))
		case num(op, "set") != 0:
			u.gauge.Set(num(op, "set"))
		case flag(op, "set_to_current_time"):
			u.gauge.Set(float64(m.Now().UnixNano()) / 1e9)
		}
	default:
		// Like the Prometheus client there, an observation without a
		// value observes 0.
		u.obs.Observe(num(op, "observe"))
	}
	return nil
}
