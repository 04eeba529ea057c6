package chaos

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
	"github.com/cfzt/cfzt-runner/internal/e2e"
)

// A cloudflare_worker is SIGKILLed in the middle of a task of a 50-route
// reconcile, four times, each time followed by a new worker: tasks it held
// stay InProgress until their lease expires, then go back to Pending and
// the next worker finishes them, reusing what the dead one created. Each
// kill waits until the worker holds a task (Cloudflare answers slowly
// meanwhile, so that it is still holding it when the signal lands), and
// the test requires that kube_worker re-queued at least one task of a
// killed worker because its lease expired.
func TestKilledCloudflareWorkers(t *testing.T) {
	w := newWorld(t, "chaos-kill")
	w.addRoutes(50)
	kw := w.start("kube_worker")
	cw := w.start("cloudflare_worker")
	require.NoError(t, w.sim.InjectFault(cfsim.Fault{LatencyMS: 150}))
	var killed []string
	for kill := 0; kill < 4; kill++ {
		pod := w.podName(w.pods)
		time.Sleep(w.between(100*time.Millisecond, 1500*time.Millisecond))
		task := w.waitHolding(pod, 60*time.Second)
		cw.Kill()
		t.Logf("killed %s while it held %s", pod, task)
		killed = append(killed, pod)
		cw = w.start("cloudflare_worker")
	}
	w.sim.ClearFaults()
	w.waitConverged(100 * time.Second)
	w.requireEndState()
	var requeued int
	for _, line := range strings.Split(kw.Output(), "\n") {
		if !strings.Contains(line, "WARNING: re-queued ") {
			continue
		}
		for _, pod := range killed {
			if strings.Contains(line, "the lease of "+pod+" expired") {
				requeued++
			}
		}
	}
	require.Positive(t, requeued, "no task of a killed worker was re-queued after its lease expired:\n%s", kw.Output())
	t.Logf("%d tasks of killed workers were re-queued after their lease expired", requeued)
}

// The kube-apiserver is killed in the middle of a cycle and comes back on
// the same address with the same data: the workers' calls fail meanwhile,
// their informers reconnect, and everything converges. The restart is made
// to land during a cycle, and the test checks that it did: the
// cloudflare_worker is held on a slow Cloudflare call (the first Access
// application create) when the apiserver goes away, and that call ends
// after the apiserver went down.
func TestAPIServerRestartedMidCycle(t *testing.T) {
	w := newWorld(t, "chaos-apiserver")
	w.addRoutes(24)
	const slow = 4000 // ms
	apps := "/accounts/" + w.sim.AccountID + "/access/apps"
	require.NoError(t, w.sim.InjectFault(cfsim.Fault{LatencyMS: slow, Count: 1, Method: "POST", PathPrefix: apps}))
	w.start("kube_worker")
	w.start("cloudflare_worker")
	deadline := time.Now().Add(60 * time.Second)
	for len(w.sim.Faults()) > 0 { // the slow call has started
		require.True(t, time.Now().Before(deadline), "no task reached the Access application")
		time.Sleep(20 * time.Millisecond)
	}
	task := w.inProgressRoute()
	down := time.Now()
	require.NoError(t, h.Cluster.Restart(w.between(200*time.Millisecond, 1500*time.Millisecond)))
	t.Logf("the apiserver was away for %s while the task of %s was held on a Cloudflare call", time.Since(down).Round(time.Millisecond), task)
	w.waitConverged(100 * time.Second)
	w.requireEndState()

	var held []cfsim.RequestRecord
	for _, r := range w.sim.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, apps) && r.DurationMS >= slow {
			held = append(held, r)
		}
	}
	require.Len(t, held, 1, "the slow call")
	require.True(t, held[0].Time.After(down), "the restart did not land during the cycle: the held call ended at %s, before the apiserver went down at %s", held[0].Time, down)
}

// Cloudflare answers 429 and 5xx in bursts and drops connections while the
// routes reconcile, some of them after applying the request (the answer of
// a committed create is lost): calls are retried, creates are looked up
// before they are sent again, tasks that still fail are retried after
// their backoff, and nothing is created twice.
func TestCloudflareFaultBursts(t *testing.T) {
	w := newWorld(t, "chaos-faults")
	w.addRoutes(24)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(w.between(100*time.Millisecond, 400*time.Millisecond)):
			}
			var f cfsim.Fault
			switch w.rng.Intn(6) {
			case 0:
				f = cfsim.Fault{Status: 429, Count: 1 + w.rng.Intn(3), RetryAfter: 1}
			case 1:
				f = cfsim.Fault{Status: []int{500, 502, 503}[w.rng.Intn(3)], Count: 1 + w.rng.Intn(3)}
			case 2:
				// Applied, then the answer lost: the ambiguous failure.
				f = cfsim.Fault{Status: []int{502, 504}[w.rng.Intn(2)], Count: 1 + w.rng.Intn(2), Apply: true}
			case 3:
				f = cfsim.Fault{Drop: 1 + w.rng.Intn(2), Apply: true}
			default:
				f = cfsim.Fault{Drop: 1 + w.rng.Intn(2)}
			}
			if i > 40 {
				return // a bounded storm: about 10 s of faults
			}
			_ = w.sim.InjectFault(f)
		}
	}()
	w.start("kube_worker")
	w.start("cloudflare_worker")
	<-done
	close(stop)
	w.sim.ClearFaults()
	w.waitConverged(100 * time.Second)
	w.requireEndState()
	var faulted int
	for _, r := range w.sim.Requests() {
		if r.Fault != "" {
			faulted++
		}
	}
	require.Positive(t, faulted, "no fault was served")
	t.Logf("%d requests were faulted", faulted)
}

// Two kube_workers and two cloudflare_workers run at once, through the
// first reconcile and then through a round of deletions and changes: each
// task runs once at a time, and the end state is the same as with one.
func TestTwoOfEachWorker(t *testing.T) {
	w := newWorld(t, "chaos-double")
	w.addRoutes(24)
	for i := 0; i < 2; i++ {
		w.start("kube_worker")
		w.start("cloudflare_worker")
	}
	w.waitConverged(100 * time.Second)
	w.requireEndState()

	// Delete a few routes and turn plain ones into Access-protected ones.
	for _, i := range w.rng.Perm(24)[:8] {
		name := fmt.Sprintf("r%02d", i)
		if w.routes[name] == plainRoute {
			w.routes[name] = accessRoute
			require.NoError(t, h.Cluster.ApplyYAML(w.ctx, routeYAML(w.ns, name, map[string]string{
				"enabled": "true", "hostname": hostname(name), "accessApp": "true", "allowEmails": "ops@example.com"})))
			continue
		}
		w.deleteRoute(name)
	}
	w.waitConverged(100 * time.Second)
	w.requireEndState()
}

// A route is deleted while its task runs (the worker is held on a slow
// Cloudflare call): the result is not written to the gone route, and a
// delete task removes what the first task created.
func TestRouteDeletedWhileItsTaskRuns(t *testing.T) {
	w := newWorld(t, "chaos-delete")
	w.addRoutes(6)
	require.NoError(t, w.sim.InjectFault(cfsim.Fault{LatencyMS: 3000, Count: 1, Method: "POST",
		PathPrefix: "/accounts/" + w.sim.AccountID + "/access/apps"}))
	w.start("kube_worker")
	w.start("cloudflare_worker")
	deadline := time.Now().Add(60 * time.Second)
	for len(w.sim.Faults()) > 0 { // the slow call has started
		require.True(t, time.Now().Before(deadline), "no task reached the Access application")
		time.Sleep(50 * time.Millisecond)
	}
	victim := w.inProgressRoute()
	t.Logf("deleting %s while its task runs", victim)
	w.deleteRoute(victim)
	w.waitConverged(100 * time.Second)
	w.requireEndState()
}

// podName is the POD_NAME of the n-th process that start started.
func (w *world) podName(n int) string {
	return fmt.Sprintf("cloudflare-worker-%d", n)
}

// waitHolding waits until a task of the namespace is InProgress with pod
// as its worker, and returns its name.
func (w *world) waitHolding(pod string, timeout time.Duration) string {
	w.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		tasks, err := h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace).List(w.ctx,
			metav1.ListOptions{LabelSelector: prefix + "route-namespace=" + w.ns})
		if err == nil {
			for _, task := range tasks.Items {
				phase, _, _ := unstructured.NestedString(task.Object, "status", "phase")
				worker, _, _ := unstructured.NestedString(task.Object, "status", "workerPod")
				if phase == "InProgress" && worker == pod {
					return task.GetName()
				}
			}
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("%s never held a task within %s", pod, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
