package sdk

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/internal/promtext"
)

// userMetric is a metric a role defined with osdk_metric: a counter, a
// gauge, a histogram (default buckets) or a summary (sum and count).
type userMetric struct {
	name, help, kind string
	val              float64
	hist             *promtext.Histogram
}

func (u *userMetric) write(b *strings.Builder) {
	promtext.Header(b, u.name, u.kind, u.help)
	if u.hist != nil {
		u.hist.Write(b, u.name, nil)
		return
	}
	promtext.Sample(b, u.name, nil, u.val)
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
		u = &userMetric{name: name, help: description, kind: kind}
		switch kind {
		case "histogram":
			u.hist = promtext.NewHistogram(defBuckets)
		case "summary":
			u.hist = promtext.NewHistogram(nil)
		}
		m.user[name] = u
		m.userOrder = append(m.userOrder, name)
	}
	if u.kind != kind {
		return fmt.Errorf("cannot change metric type of %s, which is a %s", name, u.kind)
	}
	return m.applyUser(u, op)
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
			u.val++
		} else if add := num(op, "add"); add != 0 {
			if add < 0 {
				return errors.New("counter metrics cannot decrease in value")
			}
			u.val += add
		}
	case "gauge":
		switch {
		case flag(op, "increment"):
			u.val++
		case flag(op, "decrement"):
			u.val--
		case num(op, "add") != 0:
			u.val += num(op, "add")
		case num(op, "subtract") != 0:
			u.val -= num(op, "subtract")
		case num(op, "set") != 0:
			u.val = num(op, "set")
		case flag(op, "set_to_current_time"):
			u.val = float64(m.Now().UnixNano()) / 1e9
		}
	default:
		// Like the Prometheus client there, an observation without a
		// value observes 0.
		u.hist.Observe(num(op, "observe"))
	}
	return nil
}
