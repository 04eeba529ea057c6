package sdk

import (
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestMetrics(t *testing.T) {
	m := NewMetrics("1.2.3", "abc")
	m.Now = func() time.Time { return time.Unix(1700000000, 0) }
	gvk := "cache.example.com/v1alpha1, Kind=Memcached"
	m.ReconcileResult(gvk, "succeeded")
	m.ReconcileResult(gvk, "succeeded")
	m.ReconcileDuration(gvk, 300*time.Millisecond)
	for _, tc := range []struct {
		name string
		args *value.Dict
		err  string
	}{
		{"c", value.DictOf("counter", value.DictOf("increment", true)), ""},
		{"c", value.DictOf("counter", value.DictOf("add", 2)), ""},
		{"c", value.DictOf("counter", value.DictOf("add", -1)), "counter metrics cannot decrease in value"},
		{"c", value.DictOf("gauge", value.NewDict(0)), "cannot change metric type of c, which is a counter"},
		{"g", value.DictOf("gauge", value.DictOf("set", 5)), ""},
		{"g", value.DictOf("gauge", value.DictOf("subtract", 7)), ""},
		{"t", value.DictOf("gauge", value.DictOf("set_to_current_time", true)), ""},
		{"h", value.DictOf("histogram", value.DictOf("observe", 2)), ""},
		{"s", value.DictOf("summary", value.NewDict(0)), ""},
		{"x", value.DictOf("gauge", value.NewDict(0), "counter", value.NewDict(0)), "only one metric can be processed at a time"},
		{"y", value.NewDict(0), "a request should contain at least one metric"},
	} {
		err := m.UserMetric(tc.name, "help of "+tc.name, tc.args)
		if tc.err == "" {
			require.NoError(t, err)
		} else {
			require.EqualError(t, err, tc.err)
		}
	}
	var b strings.Builder
	_, err := m.WriteTo(&b)
	require.NoError(t, err)
	out := b.String()
	for _, want := range []string{
		`ansible_operator_build_info{commit="abc",version="1.2.3"} 1`,
		`ansible_operator_reconcile_result{GVK="cache.example.com/v1alpha1, Kind=Memcached",result="succeeded"} 2`,
		`ansible_operator_reconciles_bucket{GVK="cache.example.com/v1alpha1, Kind=Memcached",le="0.5"} 1`,
		"# TYPE c counter\nc 3\n", "g -2\n", "t 1.7e+09\n", "h_sum 2\nh_count 1\n", "# TYPE s summary\ns_sum 0\ns_count 1\n",
	} {
		require.Contains(t, out, want)
	}
	require.Equal(t, 2.0, m.ResultCount(gvk, "succeeded"))
}

func TestParseLogLevel(t *testing.T) {
	for in, want := range map[string]LogLevel{"Tasks": LogTasks, "everything": LogEverything, "NOTHING": LogNothing, "": LogTasks} {
		got, err := ParseLogLevel(in)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	got, err := ParseLogLevel("verbose")
	require.Error(t, err)
	require.Equal(t, LogTasks, got)
}

// A role's osdk_metric cannot define a metric with an invalid name (which
// would corrupt the exposition) nor take over a family /metrics already
// serves: ansible-operator's own, the Go and process collectors' and the
// build information. Each is refused with an error and nothing changes.
func TestUserMetricCannotShadow(t *testing.T) {
	m := NewMetrics("1.2.3", "abc")
	for name, want := range map[string]string{
		"bad name":                          `invalid metric name "bad name"`,
		"x} 1\nansible_operator_build_info": "invalid metric name",
		"":                                  "invalid metric name",
		"go_goroutines":                     "metric go_goroutines is already registered",
		"process_resident_memory_bytes":     "already registered",
		"cfzt_build_info":                   "already registered",
		"ansible_operator_build_info":       "metric ansible_operator_build_info:",
		"ansible_operator_reconciles":       "metric ansible_operator_reconciles:",
	} {
		err := m.UserMetric(name, "help", value.DictOf("gauge", value.DictOf("set", 5)))
		require.ErrorContains(t, err, want, "%q", name)
	}
	var b strings.Builder
	_, err := m.WriteTo(&b)
	require.NoError(t, err)
	require.NotContains(t, b.String(), " 5\n")
	require.Contains(t, b.String(), `ansible_operator_build_info{commit="abc",version="1.2.3"} 1`+"\n")
	// The refused names stay refused, and a valid one still works.
	require.Error(t, m.UserMetric("go_goroutines", "help", value.DictOf("counter", value.DictOf("increment", true))))
	require.NoError(t, m.UserMetric("ok_metric", "help", value.DictOf("gauge", value.DictOf("set", 5))))
}
