package operator

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/lookup"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/builtin"
	"github.com/cfzt/cfzt-runner/modules/k8s"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestBackoff(t *testing.T) {
	poll := &Operator{Config: Config{Interval: time.Minute}}
	poll.defaults()
	watch := &Operator{Config: Config{Interval: time.Hour, Watch: true}}
	watch.defaults()
	cases := []struct {
		o         *Operator
		failures  int
		resync    time.Duration
		notBefore time.Duration
	}{
		{poll, 0, time.Minute, 0},
		{poll, 1, time.Minute, 0},
		{poll, 2, 2 * time.Minute, 0},
		{poll, 3, 4 * time.Minute, 0},
		{poll, 4, 5 * time.Minute, 0},
		{poll, 40, 5 * time.Minute, 0},
		{watch, 0, time.Hour, 0},
		{watch, 1, time.Second, time.Second},
		{watch, 2, 2 * time.Second, 2 * time.Second},
		{watch, 9, 256 * time.Second, 256 * time.Second},
		{watch, 10, 5 * time.Minute, 5 * time.Minute},
		{watch, 100, 5 * time.Minute, 5 * time.Minute},
	}
	for _, c := range cases {
		r, nb := c.o.nextWait(c.failures)
		require.Equal(t, c.resync, r, "watch=%v failures=%d", c.o.Watch, c.failures)
		require.Equal(t, c.notBefore, nb, "watch=%v failures=%d", c.o.Watch, c.failures)
	}
}

// A burst of notifications costs one request, sent within the maximum
// wait; notifications after it cost a second one.
func TestDebouncer(t *testing.T) {
	d := newDebouncer(50*time.Millisecond, 200*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go d.run(ctx)
	start := time.Now()
	for i := 0; i < 100; i++ {
		d.notify()
		time.Sleep(5 * time.Millisecond)
	}
	<-d.out
	require.Less(t, time.Since(start), 2*time.Second)
	// At most one more request follows the burst (its tail after the
	// 200ms cap), then nothing.
	extra := 0
	deadline := time.After(400 * time.Millisecond)
loop:
	for {
		select {
		case <-d.out:
			extra++
		case <-deadline:
			break loop
		}
	}
	require.LessOrEqual(t, extra, 3, "a 500ms burst with a 200ms cap fires at most a few times")
	d.notify()
	select {
	case <-d.out:
	case <-time.After(time.Second):
		t.Fatal("no request after a later change")
	}
}

func TestMetricsText(t *testing.T) {
	m := NewMetrics()
	m.CycleDone(true, 1500*time.Millisecond, time.Unix(1700000000, 0))
	m.CycleDone(false, 40*time.Second, time.Unix(1700000100, 0))
	m.TaskResult("k8s_info", "ok")
	m.TaskResult("k8s_info", "ok")
	m.TaskResult(`we"ird`, "failed")
	m.Request("kubernetes", 200)
	m.Request("http", 0)
	var b strings.Builder
	_, err := m.WriteTo(&b)
	require.NoError(t, err)
	text := b.String()
	for _, want := range []string{
		`cfzt_cycles_total{result="ok"} 1`,
		`cfzt_cycles_total{result="failed"} 1`,
		`cfzt_cycle_duration_seconds_bucket{le="2.5"} 1`,
		`cfzt_cycle_duration_seconds_bucket{le="30"} 1`,
		`cfzt_cycle_duration_seconds_bucket{le="60"} 2`,
		`cfzt_cycle_duration_seconds_bucket{le="+Inf"} 2`,
		`cfzt_cycle_duration_seconds_sum 41.5`,
		`cfzt_cycle_duration_seconds_count 2`,
		`cfzt_task_results_total{module="k8s_info",status="ok"} 2`,
		`cfzt_task_results_total{module="we\"ird",status="failed"} 1`,
		`cfzt_kubernetes_requests_total{code="200"} 1`,
		`cfzt_http_requests_total{code="0"} 1`,
		`cfzt_last_successful_cycle_timestamp_seconds 1.7e+09`,
		`cfzt_leader 0`,
		// The families keep their types since the port onto client_golang.
		"# TYPE cfzt_cycles_total counter",
		"# TYPE cfzt_cycle_duration_seconds histogram",
		"# TYPE cfzt_task_results_total counter",
		"# TYPE cfzt_kubernetes_requests_total counter",
		"# TYPE cfzt_http_requests_total counter",
		"# TYPE cfzt_leader gauge",
		"# TYPE cfzt_last_successful_cycle_timestamp_seconds gauge",
	} {
		require.Contains(t, text, want+"\n")
	}
	checkExposition(t, text)
	m.WatchEvent("HTTPRoute")
	m.SetLeader(true)
	b.Reset()
	_, err = m.WriteTo(&b)
	require.NoError(t, err)
	require.Contains(t, b.String(), "\n# TYPE cfzt_watch_events_total counter\ncfzt_watch_events_total{kind=\"HTTPRoute\"} 1\n")
	require.Contains(t, b.String(), "\ncfzt_leader 1\n")
}

var (
	sampleLine = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*"(,[a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*")*\})? ([-+0-9.eE]+|[-+]Inf|NaN)$`)
	typeLine   = regexp.MustCompile(`^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$`)
)

// checkExposition checks every line against the text format's grammar and
// that each sample belongs to a declared family.
func checkExposition(t *testing.T, text string) {
	t.Helper()
	families := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if m := typeLine.FindStringSubmatch(line); m != nil {
			families[m[1]] = m[2]
			continue
		}
		if strings.HasPrefix(line, "# HELP ") {
			continue
		}
		require.Regexp(t, sampleLine, line)
		name := line[:strings.IndexAny(line, "{ ")]
		base := name
		for _, suf := range []string{"_bucket", "_sum", "_count"} {
			if b, ok := strings.CutSuffix(name, suf); ok && (families[b] == "histogram" || families[b] == "summary") {
				base = b
			}
		}
		require.Contains(t, families, base, "sample %q has no # TYPE", line)
	}
}

func TestMatters(t *testing.T) {
	w := &watcher{statusKinds: map[string]bool{"CloudflareTask": true}}
	obj := func(rv string, spec, status any, mf any) *unstructured.Unstructured {
		o := map[string]any{"apiVersion": "v1", "kind": "X", "metadata": map[string]any{"name": "a", "resourceVersion": rv}, "spec": spec}
		if status != nil {
			o["status"] = status
		}
		if mf != nil {
			o["metadata"].(map[string]any)["managedFields"] = mf
		}
		return &unstructured.Unstructured{Object: o}
	}
	base := obj("1", map[string]any{"a": int64(1)}, nil, nil)
	require.False(t, w.matters("HTTPRoute", false, base, obj("1", map[string]any{"a": int64(1)}, nil, nil)), "resync")
	require.True(t, w.matters("HTTPRoute", false, base, obj("2", map[string]any{"a": int64(2)}, nil, nil)), "spec change")
	require.False(t, w.matters("HTTPRoute", false, base, obj("2", map[string]any{"a": int64(1)}, map[string]any{"p": "x"}, []any{"m"})), "status-only")
	require.True(t, w.matters("CloudflareTask", false, base, obj("2", map[string]any{"a": int64(1)}, map[string]any{"phase": "Completed"}, nil)), "status of a status kind")
	require.False(t, w.matters("CloudflareTask", false, base, obj("2", map[string]any{"a": int64(1)}, nil, []any{"m"})), "managedFields only")
	require.True(t, w.matters("Service", true, base, obj("2", map[string]any{"a": int64(1)}, map[string]any{"lb": "192.0.2.1"}, nil)), "status of an object watched by name")
	require.False(t, w.matters("Service", true, base, obj("1", map[string]any{"a": int64(1)}, map[string]any{"lb": "192.0.2.1"}, nil)), "resync of an object watched by name")
}

func TestScanKinds(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	write("pb.yml", `
- hosts: localhost
  gather_facts: false
  vars:
    tier: "{{ lookup('env', 'CFZT_TEST_TIER') | default('dyn', true) }}"
  roles: [lister]
  tasks:
    - kubernetes.core.k8s_info: {kind: ConfigMap, namespace: x}
    - kubernetes.core.k8s_info: {kind: Secret, namespace: "{{ ns }}"}
    - include_tasks: more.yml
    - include_role: {name: "{{ tier }}"}
    - include_role: {name: "{{ unknown_at_load }}"}
    - k8s_info: {api_version: "{{ v }}", kind: Ignored}
`)
	write("more.yml", `
- block:
    - kubernetes.core.k8s_info:
        api_version: gateway.networking.k8s.io/v1
        kind: HTTPRoute
`)
	write("roles/lister/tasks/main.yml", "- include_tasks: \"{{ f }}.yml\"\n")
	write("roles/lister/tasks/tenants.yml", "- k8s_info: {api_version: cfzt.cloudflare.com/v1alpha1, kind: CloudflareZeroTrustTenant}\n")
	write("roles/dyn/tasks/main.yml", "- k8s_info: {api_version: cfzt.cloudflare.com/v1alpha1, kind: CloudflareTask, namespace: ops}\n")
	write("roles/other/tasks/main.yml", "- k8s_info: {api_version: apps/v1, kind: Deployment}\n")
	reg, err := module.NewRegistry(builtin.Entries(), k8s.Entries())
	require.NoError(t, err)
	l := playbook.NewLoader(reg, nil)
	pb, err := l.LoadPlaybook(filepath.Join(dir, "pb.yml"))
	require.NoError(t, err)
	got := ScanKinds(l, pb, template.New(lookup.Libraries()...), value.NewDict(0))
	require.Equal(t, []Target{
		{GVK: schema.GroupVersionKind{Group: "cfzt.cloudflare.com", Version: "v1alpha1", Kind: "CloudflareTask"}, Namespace: "ops"},
		{GVK: schema.GroupVersionKind{Group: "cfzt.cloudflare.com", Version: "v1alpha1", Kind: "CloudflareZeroTrustTenant"}},
		{GVK: schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "HTTPRoute"}},
		{GVK: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Namespace: "x"},
	}, got)
}

// The recorder sees the rendered arguments of k8s_info calls.
func TestReadRecorder(t *testing.T) {
	r := NewReadRecorder()
	calls := 0
	m := r.Wrap(module.Func(func(*module.Request) (*value.Dict, error) { calls++; return module.Result(false), nil }))
	for _, args := range []*value.Dict{
		value.DictOf("api_version", "gateway.networking.k8s.io/v1", "kind", "HTTPRoute", "namespace", "apps"),
		value.DictOf("kind", "Secret"),
		value.DictOf("kind", "Secret"),
		value.DictOf("api_version", "v1"),
		value.DictOf("kind", "Service", "namespace", "apps", "name", "lb"),
	} {
		_, err := m.Run(&module.Request{Args: args})
		require.NoError(t, err)
	}
	require.Equal(t, 5, calls)
	require.Equal(t, []Target{
		{GVK: schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "HTTPRoute"}, Namespace: "apps"},
		{GVK: schema.GroupVersionKind{Version: "v1", Kind: "Secret"}},
		{GVK: schema.GroupVersionKind{Version: "v1", Kind: "Service"}, Namespace: "apps", Name: "lb"},
	}, r.Take())
	require.Empty(t, r.Take())
}
