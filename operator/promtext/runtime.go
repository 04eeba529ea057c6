package promtext

import (
	"io"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
)

// Version is the binary's version in cfzt_build_info; the command sets it
// at start.
var Version = "unknown"

var (
	runtimeOnce sync.Once
	runtimeReg  *prometheus.Registry
)

// Runtime returns the process-wide series every Prometheus client exposes:
// go_* (the Go runtime: goroutines, GC, memory) and process_* (CPU time,
// resident memory, open file descriptors, start time) from the
// client_golang collectors, and cfzt_build_info{version,goversion,revision}
// 1. They are written in the text format, after the operator's own
// families.
func Runtime() io.WriterTo {
	runtimeOnce.Do(func() { runtimeReg = newRuntimeRegistry(Version) })
	return runtimeWriter{runtimeReg}
}

// newRuntimeRegistry registers the Go and process collectors and the
// build information of version.
func newRuntimeRegistry(version string) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "cfzt_build_info",
		Help: "A metric with a constant '1' value labelled by the version, Go version and VCS revision cfzt-runner was built from.",
	}, []string{"version", "goversion", "revision"})
	build.WithLabelValues(version, runtime.Version(), revision()).Set(1)
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		build,
	)
	return reg
}

// RuntimeGatherer is the registry of Runtime's series, for promhttp.
func RuntimeGatherer() prometheus.Gatherer {
	Runtime()
	return runtimeReg
}

// RuntimeFamily reports whether Runtime serves a family named name, so that
// a metric a role defines cannot shadow it.
func RuntimeFamily(name string) bool {
	Runtime()
	families, _ := runtimeReg.Gather()
	for _, mf := range families {
		if mf.GetName() == name {
			return true
		}
	}
	return false
}

type runtimeWriter struct{ reg *prometheus.Registry }

// WriteTo gathers the registry and writes its families in the text format.
func (r runtimeWriter) WriteTo(w io.Writer) (int64, error) { return WriteRegistry(w, r.reg) }

// WriteRegistry gathers a client_golang registry and writes its families
// in the text format (version 0.0.4), in name order.
func WriteRegistry(w io.Writer, reg prometheus.Gatherer) (int64, error) {
	families, err := reg.Gather()
	var total int64
	for _, mf := range families {
		n, werr := expfmt.MetricFamilyToText(w, mf)
		total += int64(n)
		if werr != nil {
			return total, werr
		}
	}
	return total, err
}

// revision is the VCS revision the binary was built from (go build stamps
// it from the checkout), "unknown" when it was not stamped.
func revision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
