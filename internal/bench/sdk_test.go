package bench

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSizesFrom(t *testing.T) {
	for _, c := range []struct {
		spec string
		want []int
	}{
		{"", []int{1, 100, 1000}},
		{"5", []int{5}},
		{" 10, 0, x,20 ", []int{10, 20}},
	} {
		t.Setenv("BENCH_TEST_SIZES", c.spec)
		require.Equal(t, c.want, sizesFrom("BENCH_TEST_SIZES", "1,100,1000"), c.spec)
	}
}

func TestSDKResyncCount(t *testing.T) {
	for _, c := range []struct {
		max     string
		n, want int
	}{
		{"", 1, 10},
		{"", 100, 100},
		{"", 1000, 200},
		{"50", 100, 50},
		{"5", 100, 10},
	} {
		t.Setenv("BENCH_SDK_RESYNC_MAX", c.max)
		require.Equal(t, c.want, sdkResyncCount(c.n), "max %q, n %d", c.max, c.n)
	}
}

func TestSucceededReconciles(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       int
	}{
		{"counted per result and kind", `# TYPE ansible_operator_reconcile_result gauge
ansible_operator_reconcile_result{GVK="/v1, Kind=Secret",result="succeeded"} 7
ansible_operator_reconcile_result{GVK="cache.example.com/v1alpha1, Kind=Memcached",result="failed"} 2
ansible_operator_reconcile_result{GVK="cache.example.com/v1alpha1, Kind=Memcached",result="succeeded"} 42
`, 42},
		{"no reconcile yet", "ansible_operator_build_info{} 1\n", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				require.Equal(t, "/metrics", r.URL.Path)
				fmt.Fprint(w, c.body)
			}))
			defer srv.Close()
			n, err := succeededReconciles(strings.TrimPrefix(srv.URL, "http://"))
			require.NoError(t, err)
			require.Equal(t, c.want, n)
		})
	}
}

func TestMarkdownNamesRuntimesAndSharesNotes(t *testing.T) {
	b := &Bench{Runners: []*Runner{{Name: "ansible-playbook"}, {Name: "cfzt-runner"}}}
	sc := &Scenario{ID: 7, Title: "SDK", Runtimes: [2]string{"ansible-operator", "cfzt-runner operator"}}
	sample := func(d time.Duration) map[string][]Sample {
		return map[string][]Sample{"first": {{Wall: d, RSSKB: 1024}}}
	}
	results := []*Result{
		{Case: "N = 1", Phases: []string{"first"}, Notes: []string{"shared", "only one"},
			Samples: map[string]map[string][]Sample{"ansible-playbook": sample(10 * time.Second), "cfzt-runner": sample(100 * time.Millisecond)}},
		{Case: "N = 100", Phases: []string{"first"}, Notes: []string{"shared"},
			Samples: map[string]map[string][]Sample{"cfzt-runner": sample(time.Second)}},
	}
	md := b.Markdown(sc, results, nil)
	for _, want := range []string{
		"| case | ansible-operator wall, median (min–max) | cfzt-runner operator wall, median (min–max) |",
		"| N = 1 — first | 10.0 s (10.0 s–10.0 s) | 100 ms (100 ms–100 ms) | 100× |",
		"| N = 100 — first | not run | 1.00 s (1.00 s–1.00 s) |",
		"- shared\n", "- N = 1: only one\n",
	} {
		require.Contains(t, md, want)
	}
	require.NotContains(t, md, "N = 100: shared")
}

func TestGzipSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "zeros")
	require.NoError(t, os.WriteFile(path, make([]byte, 1<<20), 0o644))
	raw, gz, err := gzipSize(path)
	require.NoError(t, err)
	require.EqualValues(t, 1<<20, raw)
	require.Less(t, gz, raw/100, "a megabyte of zeros compresses to a few KB")
}
