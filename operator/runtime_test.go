package operator

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const rolePlaybook = `
- hosts: localhost
  gather_facts: false
  roles: [behaviour]
`

func roleTasks(msg string) string {
	return "- name: say\n  debug:\n    msg: " + msg + "\n"
}

// Editing a role between cycles changes what the next cycle does, in the
// same process.
func TestRoleEditTakesEffectWithoutRestart(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pb.yml": rolePlaybook, "roles/behaviour/tasks/main.yml": roleTasks("behaviour-v1")})
	p := startRunner(t, "runner", dir, nil, "--interval", "0.2", "pb.yml")
	msg := func(m string) func(event) bool {
		return func(ev event) bool { return ev.Str("event") == "result" && ev.Str("msg") == m }
	}
	_, i := p.WaitFor(0, 30*time.Second, "behaviour-v1", msg("behaviour-v1"))
	writeFiles(t, dir, map[string]string{"roles/behaviour/tasks/main.yml": roleTasks("behaviour-v2")})
	_, j := p.WaitFor(i, 30*time.Second, "behaviour-v2", msg("behaviour-v2"))
	// A task added to the role file also appears.
	writeFiles(t, dir, map[string]string{"roles/behaviour/tasks/main.yml": roleTasks("behaviour-v2") + roleTasks("added-task")})
	p.WaitFor(j, 30*time.Second, "added-task", msg("added-task"))
	require.False(t, p.Exited(), "the runner exited")
	require.Greater(t, p.Count(cycleEnd("ok")), 2)
}

// A failing playbook never ends the loop; consecutive failures slow it
// down; fixing the playbook brings success back.
func TestFailedCyclesBackOffAndRecover(t *testing.T) {
	dir := t.TempDir()
	failing := "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - fail: {msg: broken}\n"
	writeFiles(t, dir, map[string]string{"pb.yml": failing})
	p := startRunner(t, "runner", dir, nil, "--interval", "0.1", "--backoff-max", "800ms", "pb.yml")
	p.WaitFor(0, 30*time.Second, "a failed cycle", cycleEnd("failed"))
	time.Sleep(3 * time.Second)
	failed := p.Count(cycleEnd("failed"))
	// Without backoff, 0.1s cycles would run about 30 times in 3s; with
	// waits of 0.1, 0.2, 0.4, 0.8, 0.8... it is about 6.
	require.GreaterOrEqual(t, failed, 3, "the loop goes on after failures")
	require.LessOrEqual(t, failed, 12, "failures back off")
	// Waits between failed cycles grow.
	var starts []time.Time
	for _, ev := range p.Events() {
		if ev.Str("event") == "cycle_start" {
			starts = append(starts, eventTime(t, ev))
		}
	}
	require.GreaterOrEqual(t, len(starts), 4)
	require.Greater(t, starts[3].Sub(starts[2]), starts[1].Sub(starts[0]))
	// A broken YAML file is a failed cycle too, not an exit.
	writeFiles(t, dir, map[string]string{"pb.yml": "- hosts: [\n"})
	p.WaitFor(0, 30*time.Second, "a load error", isEvent("error"))
	writeFiles(t, dir, map[string]string{"pb.yml": strings.Replace(failing, "fail: {msg: broken}", "debug: {msg: fixed}", 1)})
	p.WaitFor(0, 30*time.Second, "a successful cycle after the fix", cycleEnd("ok"))
}

const batchPlaybook = `
- hosts: localhost
  gather_facts: false
  tasks:
    - name: write batch
      kubernetes.core.k8s:
        state: present
        definition:
          apiVersion: v1
          kind: ConfigMap
          metadata: {name: "batch-{{ item }}", namespace: "{{ ns }}"}
          data: {n: "item-{{ item }}"}
      loop: [1, 2, 3, 4, 5]
      loop_control: {pause: 0.4}
    - name: after batch
      kubernetes.core.k8s:
        state: present
        definition:
          apiVersion: v1
          kind: ConfigMap
          metadata: {name: after, namespace: "{{ ns }}"}
`

// SIGTERM in the middle of a task lets that task finish (every item of
// its loop is written), starts no further task, and exits 0.
func TestSIGTERMFinishesCurrentTask(t *testing.T) {
	ns := "sigterm"
	createNamespace(t, ns)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pb.yml": batchPlaybook})
	p := startRunner(t, "runner", dir, nil, "--interval", "3600", "-e", "ns="+ns, "pb.yml")
	p.WaitFor(0, 30*time.Second, "the first batch item", func(ev event) bool {
		return ev.Str("event") == "result" && ev.Str("task") == "write batch" && ev.Str("item") == "1"
	})
	p.Signal(syscall.SIGTERM)
	sent := time.Now()
	require.Equal(t, 0, p.Exit(30*time.Second), "exit code")
	t.Logf("exited %s after SIGTERM", time.Since(sent).Round(time.Millisecond))
	for i := 1; i <= 5; i++ {
		require.Equal(t, map[string]string{"n": fmt.Sprint("item-", i)}, configMapData(t, ns, fmt.Sprintf("batch-%d", i)), "item %d", i)
	}
	require.Nil(t, configMapData(t, ns, "after"), "the next task must not start")
	// The JSON display reports a successful loop through its items only.
	require.Equal(t, 5, p.Count(func(ev event) bool {
		return ev.Str("event") == "result" && ev.Str("task") == "write batch" && ev["item"] != nil
	}),
		"the batch task reported every item")
	require.Equal(t, 1, p.Count(func(ev event) bool { return ev.Str("event") == "stopped" && ev["clean"] == true }))
	require.Equal(t, 1, p.Count(func(ev event) bool { return ev.Str("event") == "cycle_end" && ev.Str("result") == "stopped" }))
}

// A stop while waiting for the next cycle exits at once; one whose task
// outlives --grace is interrupted and exits 1.
func TestStopIdleAndGraceExpiry(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"idle.yml": "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - debug: {msg: hi}\n",
		"slow.yml": "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - pause: {seconds: 30}\n    - debug: {msg: never}\n",
	})
	idle := startRunner(t, "idle", dir, nil, "--interval", "3600", "idle.yml")
	idle.WaitFor(0, 30*time.Second, "a cycle", cycleEnd("ok"))
	idle.Signal(syscall.SIGINT)
	require.Equal(t, 0, idle.Exit(5*time.Second))

	slow := startRunner(t, "slow", dir, nil, "--interval", "3600", "--grace", "1s", "slow.yml")
	slow.WaitFor(0, 30*time.Second, "the cycle start", isEvent("cycle_start"))
	time.Sleep(300 * time.Millisecond)
	slow.Signal(syscall.SIGTERM)
	require.Equal(t, 1, slow.Exit(10*time.Second))
	require.Zero(t, slow.Count(func(ev event) bool { return ev.Str("msg") == "never" }))
}

const watchPlaybook = `
- hosts: localhost
  gather_facts: false
  tasks:
    - name: list inputs
      kubernetes.core.k8s_info:
        kind: ConfigMap
        namespace: "{{ ns }}"
        label_selectors: [app=input]
      register: inputs
    - name: record what was seen
      kubernetes.core.k8s:
        state: present
        definition:
          apiVersion: v1
          kind: ConfigMap
          metadata: {name: observed, namespace: "{{ ns }}-out"}
          data:
            names: "{{ inputs.resources | map(attribute='metadata.name') | sort | join(',') }}"
`

func inputConfigMap(ns, name, v string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": "input"}}, Data: map[string]string{"v": v}}
}

// startWatcher runs the watch playbook on ns with a one-hour interval and
// waits until its first cycle is done and it is idle.
func startWatcher(t *testing.T, ns string, extra ...string) *proc {
	createNamespace(t, ns, ns+"-out")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pb.yml": watchPlaybook})
	args := append([]string{"--watch", "--interval", "3600", "-e", "ns=" + ns}, extra...)
	p := startRunner(t, "watcher", dir, []string{"WATCH_NAMESPACES=" + ns}, append(args, "pb.yml")...)
	p.WaitFor(0, 30*time.Second, "the informer", func(ev event) bool {
		return ev.Str("event") == "watch_started" && ev.Str("kind") == "v1/ConfigMap"
	})
	p.WaitFor(0, 30*time.Second, "the first cycle", cycleEnd("ok"))
	return p
}

// A change to a watched kind starts a cycle at once, long before the
// interval (one hour), and the playbook sees it.
func TestWatchStartsCycleOnChange(t *testing.T) {
	ns := "watch-one"
	p := startWatcher(t, ns)
	before := len(p.Events())
	var latencies []time.Duration
	for i, name := range []string{"alpha", "beta", "gamma"} {
		t0 := time.Now()
		_, err := kube.CoreV1().ConfigMaps(ns).Create(context.Background(), inputConfigMap(ns, name, "1"), metav1.CreateOptions{})
		require.NoError(t, err)
		want := strings.Join([]string{"alpha", "beta", "gamma"}[:i+1], ",")
		t1 := waitConfigMap(t, ns+"-out", "observed", 30*time.Second, func(d map[string]string) bool { return d["names"] == want })
		latencies = append(latencies, t1.Sub(t0))
		time.Sleep(1500 * time.Millisecond) // let the follow-up settle
	}
	t.Logf("change-to-effect latencies: %v", latencies)
	for _, l := range latencies {
		require.Less(t, l, 20*time.Second, "well before the one-hour interval")
	}
	ev, _ := p.WaitFor(before, time.Second, "a watch-triggered cycle", func(ev event) bool {
		return ev.Str("event") == "cycle_start" && ev.Str("trigger") == "watch"
	})
	require.NotNil(t, ev)
	// A delete is a change too.
	t0 := time.Now()
	require.NoError(t, kube.CoreV1().ConfigMaps(ns).Delete(context.Background(), "beta", metav1.DeleteOptions{}))
	t1 := waitConfigMap(t, ns+"-out", "observed", 30*time.Second, func(d map[string]string) bool { return d["names"] == "alpha,gamma" })
	t.Logf("delete-to-effect latency: %v", t1.Sub(t0))
}

// A burst of 20 changes costs few cycles, and the last one sees them all.
func TestWatchBurstIsDebounced(t *testing.T) {
	ns := "watch-burst"
	p := startWatcher(t, ns)
	time.Sleep(1500 * time.Millisecond)
	cycles := func() int { return p.Count(isEvent("cycle_start")) }
	c0 := cycles()
	var names []string
	for i := 0; i < 20; i++ {
		name := fmt.Sprintf("in-%02d", i)
		names = append(names, name)
		_, err := kube.CoreV1().ConfigMaps(ns).Create(context.Background(), inputConfigMap(ns, name, "1"), metav1.CreateOptions{})
		require.NoError(t, err)
	}
	waitConfigMap(t, ns+"-out", "observed", 30*time.Second, func(d map[string]string) bool { return d["names"] == strings.Join(names, ",") })
	time.Sleep(3 * time.Second)
	n := cycles() - c0
	t.Logf("20 changes cost %d cycles", n)
	require.GreaterOrEqual(t, n, 1)
	require.LessOrEqual(t, n, 4)
	// Status-only and no-op updates do not start cycles.
	c1 := cycles()
	cm, err := kube.CoreV1().ConfigMaps(ns).Get(context.Background(), "in-00", metav1.GetOptions{})
	require.NoError(t, err)
	_, err = kube.CoreV1().ConfigMaps(ns).Update(context.Background(), cm, metav1.UpdateOptions{})
	require.NoError(t, err)
	time.Sleep(2 * time.Second)
	require.Equal(t, c1, cycles(), "a no-op update started a cycle")
}

const leaderPlaybook = `
- hosts: localhost
  gather_facts: false
  tasks:
    - name: act
      kubernetes.core.k8s:
        state: present
        definition:
          apiVersion: v1
          kind: ConfigMap
          metadata: {name: "acted-{{ lookup('env', 'POD_NAME') }}", namespace: "{{ ns }}"}
`

// Of two replicas with leader election only the Lease holder runs cycles;
// when it stops, the other takes over.
func TestLeaderElectionOnlyHolderActs(t *testing.T) {
	ns := "leader"
	createNamespace(t, ns)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pb.yml": leaderPlaybook})
	args := []string{"--interval", "0.3", "--leader-elect-lease-duration", "3s", "--leader-elect-renew-deadline", "2s",
		"--leader-elect-retry-period", "200ms", "--metrics-addr", "127.0.0.1:0", "-e", "ns=" + ns, "pb.yml"}
	env := func(pod string) []string {
		return []string{"REPLICAS=2", "OPERATOR_NAMESPACE=" + ns, "ROLE=kube_worker", "POD_NAME=" + pod}
	}
	a := startRunner(t, "replica-a", dir, env("replica-a"), args...)
	a.WaitFor(0, 30*time.Second, "leadership", isEvent("leading"))
	b := startRunner(t, "replica-b", dir, env("replica-b"), args...)
	b.WaitFor(0, 30*time.Second, "the leader's name", func(ev event) bool {
		return ev.Str("event") == "leader" && ev.Str("identity") == "replica-a"
	})
	time.Sleep(2 * time.Second)
	require.Zero(t, b.Count(isEvent("cycle_start")), "the follower ran a cycle")
	require.Greater(t, a.Count(cycleEnd("ok")), 2)
	require.NotNil(t, configMapData(t, ns, "acted-replica-a"))
	require.Nil(t, configMapData(t, ns, "acted-replica-b"))
	lease, err := kube.CoordinationV1().Leases(ns).Get(context.Background(), "cfzt-kube-worker", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "replica-a", *lease.Spec.HolderIdentity)
	// The follower is ready (its elector runs) and says it does not lead.
	metrics := scrape(t, b, "/metrics")
	require.Contains(t, metrics, "\ncfzt_leader 0\n")
	require.Equal(t, "ok\n", scrape(t, b, "/readyz"))

	a.Signal(syscall.SIGTERM)
	stop := time.Now()
	require.Equal(t, 0, a.Exit(30*time.Second))
	b.WaitFor(0, 30*time.Second, "leadership", isEvent("leading"))
	t.Logf("takeover %s after SIGTERM to the leader", time.Since(stop).Round(time.Millisecond))
	b.WaitFor(0, 30*time.Second, "a cycle", cycleEnd("ok"))
	require.NotNil(t, configMapData(t, ns, "acted-replica-b"))
	// Replica a ran no cycle after its stop completed.
	for _, ev := range a.Events() {
		if ev.Str("event") == "cycle_start" {
			require.True(t, eventTime(t, ev).Before(stop), "replica-a started a cycle after SIGTERM")
		}
	}
}

// scrape GETs a path of a runner's metrics server.
func scrape(t *testing.T, p *proc, path string) string {
	t.Helper()
	ev, _ := p.WaitFor(0, 30*time.Second, "the metrics server", isEvent("metrics_listening"))
	resp, err := http.Get("http://" + ev.Str("addr") + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", path, b)
	return string(b)
}

// /metrics serves every series the runtime promises, in the text format.
func TestMetricsEndpoint(t *testing.T) {
	ns := "metrics"
	createNamespace(t, ns)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"ok": true}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pb.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - kubernetes.core.k8s_info: {kind: ConfigMap, namespace: "{{ ns }}"}
    - kubernetes.core.k8s_info: {kind: ConfigMap, namespace: "{{ ns }}", name: absent}
    - ansible.builtin.uri: {url: "{{ base }}/ok"}
    - ansible.builtin.uri: {url: "{{ base }}/missing", status_code: 404}
    - ansible.builtin.uri: {url: "{{ base }}/missing"}
      ignore_errors: true
`})
	p := startRunner(t, "runner", dir, []string{"WATCH_NAMESPACES=" + ns}, "--watch", "--interval", "3600",
		"--metrics-addr", "127.0.0.1:0", "-e", "ns="+ns, "-e", "base="+srv.URL, "pb.yml")
	p.WaitFor(0, 30*time.Second, "a cycle", isEvent("cycle_end"))
	require.Equal(t, "ok\n", scrape(t, p, "/healthz"))
	require.Equal(t, "ok\n", scrape(t, p, "/readyz"))
	text := scrape(t, p, "/metrics")
	checkExposition(t, text)
	for _, want := range []string{
		`cfzt_cycles_total{result="ok"} 1`,
		`cfzt_cycles_total{result="failed"} 0`,
		`cfzt_cycle_duration_seconds_bucket{le="+Inf"} 1`,
		`cfzt_cycle_duration_seconds_count 1`,
		`cfzt_task_results_total{module="k8s_info",status="ok"} 2`,
		`cfzt_task_results_total{module="uri",status="ok"} 2`,
		`cfzt_task_results_total{module="uri",status="ignored"} 1`,
		`cfzt_http_requests_total{code="200"} 1`,
		`cfzt_http_requests_total{code="404"} 2`,
		`cfzt_kubernetes_requests_total{code="200"} `,
		`cfzt_kubernetes_requests_total{code="404"} `,
		`cfzt_last_successful_cycle_timestamp_seconds `,
		`cfzt_leader 1`,
		// The client library's Go and process collectors and the build
		// information.
		`go_goroutines `,
		`go_memstats_alloc_bytes `,
		`go_gc_duration_seconds_count `,
		`process_resident_memory_bytes `,
		`process_open_fds `,
		`process_start_time_seconds `,
		`cfzt_build_info{goversion="go`,
	} {
		require.Contains(t, text, "\n"+want, "in:\n%s", text)
	}
	require.Regexp(t, `(?m)^cfzt_build_info\{goversion="go[^"]+",revision="[^"]+",version="[^"]+"\} 1$`, text)
	require.NotContains(t, text, "cfzt_last_successful_cycle_timestamp_seconds 0\n")
}

// A leader whose Lease is taken over stops cycling and waits as a follower.
func TestLostLeaseStopsCycling(t *testing.T) {
	ns := "leader-lost"
	createNamespace(t, ns)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pb.yml": leaderPlaybook})
	p := startRunner(t, "replica", dir, []string{"POD_NAME=replica", "OPERATOR_NAMESPACE=" + ns},
		"--leader-elect", "--leader-elect-id", "lost-test", "--interval", "0.2", "--leader-elect-lease-duration", "3s",
		"--leader-elect-renew-deadline", "2s", "--leader-elect-retry-period", "200ms", "--metrics-addr", "127.0.0.1:0",
		"-e", "ns="+ns, "pb.yml")
	p.WaitFor(0, 30*time.Second, "leadership", isEvent("leading"))
	p.WaitFor(0, 30*time.Second, "a cycle", cycleEnd("ok"))
	// Another identity takes the Lease for a long time.
	leases := kube.CoordinationV1().Leases(ns)
	for {
		l, err := leases.Get(context.Background(), "lost-test", metav1.GetOptions{})
		require.NoError(t, err)
		intruder, d := "intruder", int32(3600)
		now := metav1.NewMicroTime(time.Now())
		l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, l.Spec.RenewTime, l.Spec.AcquireTime = &intruder, &d, &now, &now
		if _, err = leases.Update(context.Background(), l, metav1.UpdateOptions{}); err == nil {
			break
		}
	}
	lost, _ := p.WaitFor(0, 30*time.Second, "the lost lease", isEvent("lost_lease"))
	time.Sleep(1500 * time.Millisecond)
	for _, ev := range p.Events() {
		if ev.Str("event") == "cycle_start" {
			require.False(t, eventTime(t, ev).After(eventTime(t, lost)), "a cycle started after the lease was lost")
		}
	}
	require.Contains(t, scrape(t, p, "/metrics"), "\ncfzt_leader 0\n")
	p.Signal(syscall.SIGTERM)
	require.Equal(t, 0, p.Exit(10*time.Second))
}
