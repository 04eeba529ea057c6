// Package promtext writes the Prometheus text exposition format (version
// 0.0.4): family headers and samples. The operator runtimes build their
// own metrics with it; Runtime adds the go_*, process_* and build-info
// series of the Prometheus client library (client_golang).
package promtext

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
)

// Label is one name="value" pair of a sample.
type Label struct{ Name, Value string }

// L builds labels from name, value pairs.
func L(kv ...string) []Label {
	out := make([]Label, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, Label{kv[i], kv[i+1]})
	}
	return out
}

// Header writes a family's # HELP and # TYPE lines.
func Header(b *strings.Builder, name, typ, help string) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n", name, helpEscaper.Replace(help), name, typ)
}

// Sample writes one sample line.
func Sample(b *strings.Builder, name string, labels []Label, v float64) {
	b.WriteString(name)
	if len(labels) > 0 {
		b.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(l.Name + `="` + labelEscaper.Replace(l.Value) + `"`)
		}
		b.WriteByte('}')
	}
	b.WriteByte(' ')
	b.WriteString(FormatFloat(v))
	b.WriteByte('\n')
}

// FormatFloat renders a sample value as Prometheus does (+Inf, -Inf, NaN,
// else the shortest representation).
func FormatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Histogram is a histogram's state: per-bucket counts (not cumulative)
// for the upper bounds Buckets, plus the sum and count of observations.
// With no buckets it is a summary without quantiles.
type Histogram struct {
	Buckets    []float64
	counts     []float64
	Sum, Count float64
}

// NewHistogram returns an empty histogram over buckets.
func NewHistogram(buckets []float64) *Histogram {
	return &Histogram{Buckets: buckets, counts: make([]float64, len(buckets))}
}

// Observe records one value.
func (h *Histogram) Observe(v float64) {
	h.Sum += v
	h.Count++
	for i, le := range h.Buckets {
		if v <= le {
			h.counts[i]++
			break
		}
	}
}

// Write writes the histogram's samples (cumulative buckets, +Inf, sum,
// count), or only sum and count when it has no buckets.
func (h *Histogram) Write(b *strings.Builder, name string, labels []Label) {
	if len(h.Buckets) > 0 {
		cum := 0.0
		for i, le := range h.Buckets {
			cum += h.counts[i]
			Sample(b, name+"_bucket", append(append([]Label{}, labels...), Label{"le", FormatFloat(le)}), cum)
		}
		Sample(b, name+"_bucket", append(append([]Label{}, labels...), Label{"le", "+Inf"}), h.Count)
	}
	Sample(b, name+"_sum", labels, h.Sum)
	Sample(b, name+"_count", labels, h.Count)
}
