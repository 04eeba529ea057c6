package chaos

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
)

// A cloudflare_worker is SIGKILLed at random moments of a 50-route
// reconcile, each time followed by a new worker: tasks it held stay
// InProgress until their lease expires, then go back to Pending and the
// next worker finishes them, reusing what the dead one created.
func TestKilledCloudflareWorkers(t *testing.T) {
	w := newWorld(t, "chaos-kill")
	w.addRoutes(50)
	kw := w.start("kube_worker")
	cw := w.start("cloudflare_worker")
	for kill := 0; kill < 4; kill++ {
		time.Sleep(w.between(300*time.Millisecond, 2500*time.Millisecond))
		cw.Kill()
		cw = w.start("cloudflare_worker")
	}
	w.waitConverged(100 * time.Second)
	w.requireEndState()
	t.Logf("%d tasks were re-queued after their worker's lease expired", strings.Count(kw.Output(), "WARNING: re-queued "))
}

// The kube-apiserver is killed in the middle of a cycle and comes back on
// the same address with the same data: the workers' calls fail meanwhile,
// their informers reconnect, and everything converges.
func TestAPIServerRestartedMidCycle(t *testing.T) {
	w := newWorld(t, "chaos-apiserver")
	w.addRoutes(24)
	w.start("kube_worker")
	w.start("cloudflare_worker")
	time.Sleep(w.between(800*time.Millisecond, 2500*time.Millisecond))
	require.NoError(t, h.Cluster.Restart(w.between(200*time.Millisecond, 1500*time.Millisecond)))
	w.waitConverged(100 * time.Second)
	w.requireEndState()
}

// Cloudflare answers 429 and 5xx in bursts and drops connections while the
// routes reconcile: calls are retried, tasks that still fail are retried
// after their backoff, and nothing is created twice.
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
			switch w.rng.Intn(4) {
			case 0:
				f = cfsim.Fault{Status: 429, Count: 1 + w.rng.Intn(3), RetryAfter: 1}
			case 1:
				f = cfsim.Fault{Status: []int{500, 502, 503}[w.rng.Intn(3)], Count: 1 + w.rng.Intn(3)}
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
