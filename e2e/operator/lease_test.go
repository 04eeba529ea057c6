package operator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
)

// taskStatus returns the status of the route's task (nil when none).
func (w *world) taskStatus(name string) map[string]any {
	w.t.Helper()
	o := w.get(taskGVR, h.Namespace, "cfzt-"+w.ns+"."+name)
	if o == nil {
		return nil
	}
	st, _, _ := unstructured.NestedMap(o.Object, "status")
	return st
}

// A cloudflare_worker killed in the middle of a task leaves it InProgress
// with a lease that its heartbeats no longer renew. Once the lease has
// expired, kube_worker puts the task back to Pending, keeping its attempt
// count; the next worker finishes it, and what the dead worker created is
// found and reused: no duplicate in Cloudflare.
func TestStuckTaskIsRequeuedAfterItsLease(t *testing.T) {
	w := newWorld(t, "stuck")
	w.apply(route(w.ns, "api", fullStack("api.example.com")))
	w.run(kubeWorker)
	require.Len(t, w.tasks(), 1)

	// The worker hangs on the Access application, after the tunnel rule,
	// the CNAME and the service token; it is killed there.
	require.NoError(t, w.sim.InjectFault(cfsim.Fault{LatencyMS: 60000, Method: "POST", PathPrefix: "/accounts/" + w.sim.AccountID + "/access/apps"}))
	env := map[string]string{"TASK_LEASE_SECONDS": "3", "POD_NAME": "doomed-worker"}
	for k, v := range w.env {
		env[k] = v
	}
	p, err := h.StartPlaybook(w.ctx, cloudflareWorker, env, "-e", `{"cf_api_retry_delays": [0, 0, 0]}`)
	require.NoError(t, err)
	deadline := time.Now().Add(60 * time.Second)
	for len(w.serviceTokens("api-service-token")) == 0 || len(w.dnsRecords("api.example.com")) == 0 {
		require.True(t, time.Now().Before(deadline), "the worker never got to the Access application:\n%s", p.Output())
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	p.Kill()
	w.sim.ClearFaults()
	st := w.taskStatus("api")
	require.Equal(t, "InProgress", st["phase"])
	require.Equal(t, "doomed-worker", st["workerPod"])
	require.EqualValues(t, 3, st["leaseSeconds"])
	require.NotEmpty(t, st["heartbeatAt"])

	// Within the lease the task is left alone.
	w.run(kubeWorker)
	require.Equal(t, "InProgress", w.taskStatus("api")["phase"])

	time.Sleep(4 * time.Second)
	out := w.run(kubeWorker, "kw_log_level=WARNING")
	st = w.taskStatus("api")
	require.Equal(t, "Pending", st["phase"], "%v", st)
	require.EqualValues(t, 1, st["attempts"], "the attempt count is kept")
	require.Contains(t, st["message"], "the lease of doomed-worker expired")
	require.Contains(t, out, "WARNING: re-queued cfzt-stuck.api (api.example.com): the lease of doomed-worker expired")
	task := w.get(taskGVR, h.Namespace, "cfzt-stuck.api")
	require.NotContains(t, task.GetAnnotations(), prefix+"claimed-by")

	w.run(cloudflareWorker, `{"cf_api_retry_delays": [0, 0, 0]}`)
	st = w.taskStatus("api")
	require.Equal(t, "Completed", st["phase"], "%v", st)
	require.EqualValues(t, 2, st["attempts"])
	w.converge()

	require.NotNil(t, w.ingress(w.sim.TunnelID, "api.example.com"))
	require.Len(t, w.dnsRecords("api.example.com"), 1)
	require.Len(t, w.apps("api.example.com"), 1)
	require.Len(t, w.serviceTokens("api-service-token"), 1)
	require.Len(t, w.appPolicies(w.apps("api.example.com")[0].ID), 2)
	sec, err := h.Kube().CoreV1().Secrets(w.ns).Get(w.ctx, "api-cfzt-service-token", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, w.serviceTokens("api-service-token")[0].ClientID, string(sec.Data["client_id"]))
	require.Equal(t, w.serviceTokens("api-service-token")[0].ID, w.annotations(w.ns, "api")[prefix+"serviceTokenId"])
}

// A worker whose lease expired while it was only slow finds out at its next
// heartbeat and leaves the task to its new owner instead of reporting it.
func TestWorkerThatLostItsClaimStops(t *testing.T) {
	w := newWorld(t, "lost")
	w.apply(route(w.ns, "web", map[string]string{"enabled": "true", "hostname": "web.example.com", "accessApp": "true"}))
	w.run(kubeWorker)
	require.NoError(t, w.sim.InjectFault(cfsim.Fault{LatencyMS: 5000, Count: 1, Method: "GET", PathPrefix: "/zones/" + w.sim.Zones["example.com"] + "/dns_records"}))
	env := map[string]string{"TASK_LEASE_SECONDS": "2", "POD_NAME": "slow-worker"}
	for k, v := range w.env {
		env[k] = v
	}
	p, err := h.StartPlaybook(w.ctx, cloudflareWorker, env)
	require.NoError(t, err)
	// Wait until the DNS call hangs (the fault is taken), then past the lease.
	deadline := time.Now().Add(30 * time.Second)
	for len(w.sim.Faults()) > 0 {
		require.True(t, time.Now().Before(deadline), p.Output())
		time.Sleep(50 * time.Millisecond)
	}
	require.Equal(t, "InProgress", w.taskStatus("web")["phase"])
	time.Sleep(3 * time.Second)
	w.run(kubeWorker) // the lease expired while the DNS call hangs
	require.Equal(t, "Pending", w.taskStatus("web")["phase"])
	require.Equal(t, 0, p.Wait(60*time.Second), p.Output())
	require.Contains(t, p.Output(), "the claim of cfzt-lost.web was lost")
	require.Equal(t, "Pending", w.taskStatus("web")["phase"], "the slow worker did not report the task")
	w.converge()
	require.Len(t, w.apps("web.example.com"), 1)
	require.Len(t, w.dnsRecords("web.example.com"), 1)
}
