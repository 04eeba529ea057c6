package operator

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func fullStack(host string) map[string]string {
	return map[string]string{"enabled": "true", "hostname": host, "accessApp": "true",
		"allowEmails": "ops@example.com", "serviceToken": "true"}
}

// Deleting a route deletes its tunnel rule, CNAME, Access app and policy,
// service token and token Secret, then its state ConfigMap (PITFALLS 4).
func TestRouteDeletion(t *testing.T) {
	w := newWorld(t, "del")
	w.apply(route(w.ns, "gone", fullStack("gone.example.com")),
		route(w.ns, "stays", map[string]string{"enabled": "true", "hostname": "stays.example.com"}))
	w.converge()
	require.NotNil(t, w.ingress(w.sim.TunnelID, "gone.example.com"))
	require.Len(t, w.serviceTokens("gone-service-token"), 1)
	require.Equal(t, 2, w.stateCMs())

	w.deleteRoute(w.ns, "gone")
	w.converge()
	w.requireCloudflareClean("gone.example.com", "gone-service-token")
	require.Nil(t, w.stateCM(w.ns, "gone"))
	_, err := h.Kube().CoreV1().Secrets(w.ns).Get(w.ctx, "gone-cfzt-service-token", metav1.GetOptions{})
	require.True(t, err != nil, "the token Secret is left")
	require.NotNil(t, w.ingress(w.sim.TunnelID, "stays.example.com"), "the other route lost its rule")
	require.Equal(t, 1, w.stateCMs())
	require.Empty(t, w.tasks())
}

// Turning enabled off (and removing it) cleans up like a deletion and
// removes the operator's annotations; turning it on again recreates.
func TestRouteDisabled(t *testing.T) {
	w := newWorld(t, "disabled")
	w.apply(route(w.ns, "app", fullStack("off.example.com")))
	w.converge()
	require.Len(t, w.apps("off.example.com"), 1)

	w.patchAnnotations(w.ns, "app", map[string]any{"enabled": "false"})
	w.converge()
	w.requireCloudflareClean("off.example.com", "app-service-token")
	require.Nil(t, w.stateCM(w.ns, "app"))
	ann := w.annotations(w.ns, "app")
	for _, k := range []string{"hostnameRouteId", "cnameRecordId", "accessAppId", "accessPolicyIds", "serviceTokenId", "serviceTokenSecretName", "lastReconcile"} {
		require.NotContains(t, ann, prefix+k)
	}

	w.patchAnnotations(w.ns, "app", map[string]any{"enabled": "true"})
	w.converge()
	require.Len(t, w.apps("off.example.com"), 1)
	require.Len(t, w.serviceTokens("app-service-token"), 1)

	w.patchAnnotations(w.ns, "app", map[string]any{"enabled": nil})
	w.converge()
	w.requireCloudflareClean("off.example.com", "app-service-token")
	require.Equal(t, 0, w.stateCMs())
}

// A task queued before its route was deleted still runs; collecting it
// must not write to a route that is gone, and what it created is then
// deleted (PITFALLS 9).
func TestRouteDeletedWhileQueued(t *testing.T) {
	w := newWorld(t, "race")
	w.apply(route(w.ns, "r", map[string]string{"enabled": "true", "hostname": "race.example.com", "accessApp": "true"}))
	w.run(kubeWorker)
	require.Len(t, w.tasks(), 1)
	w.deleteRoute(w.ns, "r")
	// Recreate a route of the same name: a different UID must not receive
	// the old task's results either.
	w.apply(route(w.ns, "r", map[string]string{"enabled": "false", "hostname": "race.example.com"}))
	w.run(cloudflareWorker)
	require.Len(t, w.apps("race.example.com"), 1)

	w.converge()
	w.requireCloudflareClean("race.example.com", "")
	require.Nil(t, w.stateCM(w.ns, "r"))
	require.NotContains(t, w.annotations(w.ns, "r"), prefix+"accessAppId")
}

// Changing the hostname deletes what was made for the old one first.
func TestHostnameChange(t *testing.T) {
	w := newWorld(t, "move")
	ann := map[string]string{"enabled": "true", "hostname": "old.example.com", "accessApp": "true"}
	w.apply(route(w.ns, "r", ann))
	w.converge()
	ann["hostname"] = "new.example.co.uk"
	w.apply(route(w.ns, "r", ann))
	w.converge()
	w.requireCloudflareClean("old.example.com", "")
	require.NotNil(t, w.ingress(w.sim.TunnelID, "new.example.co.uk"))
	require.Len(t, w.apps("new.example.co.uk"), 1)
	recs := w.dnsRecords("new.example.co.uk")
	require.Len(t, recs, 1)
	// PITFALLS 3: the co.uk zone, not example.com's.
	require.Equal(t, w.sim.Zones["example.co.uk"], w.stateCM(w.ns, "r")["zone_id"])
}

// Orphans: a state ConfigMap whose route is gone and which records nothing,
// a queued task nobody refers to, and a leftover service-token Secret.
func TestOrphanCleanup(t *testing.T) {
	w := newWorld(t, "orphans")
	w.apply(`apiVersion: v1
kind: ConfigMap
metadata:
  name: cfzt-orphans.ghost
  namespace: `+h.Namespace+`
  labels: {app.kubernetes.io/component: state-tracker, cfzt.cloudflare.com/route-namespace: orphans}
data:
  httproute_namespace: orphans
  httproute_name: ghost
  cloudflare_ids: '{}'`,
		`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareTask
metadata:
  name: cfzt-orphans-phantom
  namespace: `+h.Namespace+`
  labels: {cfzt.cloudflare.com/route-namespace: orphans}
spec:
  action: reconcile
  hostname: phantom.example.com
  accountId: `+w.sim.AccountID+`
  httprouteRef: {name: phantom, namespace: orphans, uid: 00000000-0000-4000-8000-000000000000}`,
		`apiVersion: v1
kind: Secret
metadata:
  name: cfzt-orphans-phantom-service-token
  namespace: `+h.Namespace+`
  labels: {app.kubernetes.io/managed-by: cfzt-operator}
stringData: {client_id: "x", client_secret: "y"}`)
	// An unrelated task of another (unwatched) namespace must survive.
	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareTask
metadata:
  name: cfzt-elsewhere-x
  namespace: ` + h.Namespace + `
spec:
  action: reconcile
  hostname: x.example.com
  accountId: ` + w.sim.AccountID + `
  httprouteRef: {name: x, namespace: elsewhere, uid: 00000000-0000-4000-8000-000000000001}`)
	t.Cleanup(func() {
		_ = w.res(taskGVR, h.Namespace).Delete(w.ctx, "cfzt-elsewhere-x", metav1.DeleteOptions{})
	})

	w.run(kubeWorker, "kw_orphan_secret_age_seconds=0")
	require.Nil(t, w.stateCM(w.ns, "ghost"))
	require.Nil(t, w.get(taskGVR, h.Namespace, "cfzt-orphans-phantom"))
	require.NotNil(t, w.get(taskGVR, h.Namespace, "cfzt-elsewhere-x"))
	_, err := h.Kube().CoreV1().Secrets(h.Namespace).Get(w.ctx, "cfzt-orphans-phantom-service-token", metav1.GetOptions{})
	require.True(t, err != nil, "the orphaned service-token Secret is left")
}

// A route name long enough to need the shortened state/task name.
func TestLongRouteName(t *testing.T) {
	w := newWorld(t, "long")
	name := "a-very-long-route-name-that-goes-on-and-on-beyond-the-limit-of-labels"
	w.apply(route(w.ns, name, map[string]string{"enabled": "true", "hostname": "long.example.com"}))
	w.run(kubeWorker)
	tasks := w.tasks()
	require.Len(t, tasks, 1)
	n := tasks[0].GetName()
	require.LessOrEqual(t, len(n), 63)
	require.True(t, strings.HasPrefix(n, "cfzt-long.a-very-long-route-name"), n)
	w.run(cloudflareWorker)
	w.converge()
	cms, err := h.Kube().CoreV1().ConfigMaps(h.Namespace).Get(w.ctx, n, metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, name, cms.Data["httproute_name"])
	w.deleteRoute(w.ns, name)
	w.converge()
	w.requireCloudflareClean("long.example.com", "")
	require.Equal(t, 0, w.stateCMs())
}

// A Failed task is reported on its tenant, retried after its backoff, and
// converges once Cloudflare answers again.
func TestFailedTaskRetried(t *testing.T) {
	w := newWorld(t, "retry")
	w.apply(route(w.ns, "r", map[string]string{"enabled": "true", "hostname": "retry.example.com"}))
	w.run(kubeWorker)
	require.NoError(t, w.sim.InjectFault(cfsimFault(503, 20)))
	w.run(cloudflareWorker, `{"cf_api_retry_delays": [0, 0, 0]}`)
	tasks := w.tasks()
	require.Len(t, tasks, 1)
	phase, _, _ := unstructured.NestedString(tasks[0].Object, "status", "phase")
	require.Equal(t, "Failed", phase)

	// Within the backoff the task stays Failed, and the tenant says why.
	w.run(kubeWorker)
	phase, _, _ = unstructured.NestedString(w.tasks()[0].Object, "status", "phase")
	require.Equal(t, "Failed", phase)
	_, ready := w.tenantStatus(w.ns, tenantName)
	require.Equal(t, "False", ready["status"])
	require.Equal(t, "CloudflareAPIError", ready["reason"])
	require.Contains(t, ready["message"], "503")

	w.sim.ClearFaults()
	w.converge("kw_retry_base_seconds=0")
	require.NotNil(t, w.ingress(w.sim.TunnelID, "retry.example.com"))
	w.run(kubeWorker)
	_, ready = w.tenantStatus(w.ns, tenantName)
	require.Equal(t, "ReconcileSuccess", ready["reason"])
}

// RESYNC_INTERVAL_SECONDS forces a reconcile that repairs drift made on the
// Cloudflare side.
func TestResyncRepairsDrift(t *testing.T) {
	w := newWorld(t, "resync")
	w.apply(route(w.ns, "r", map[string]string{"enabled": "true", "hostname": "resync.example.com"}))
	w.converge()
	recs := w.dnsRecords("resync.example.com")
	require.Len(t, recs, 1)
	deleteDNSRecord(t, w, w.sim.Zones["example.com"], recs[0].ID)
	require.Empty(t, w.dnsRecords("resync.example.com"))

	w.converge() // within the interval: nothing to do
	require.Empty(t, w.dnsRecords("resync.example.com"))

	w.env["RESYNC_INTERVAL_SECONDS"] = "1"
	sleepSeconds(2)
	require.True(t, w.cycle(), "the resync queued nothing")
	delete(w.env, "RESYNC_INTERVAL_SECONDS")
	w.converge()
	require.Len(t, w.dnsRecords("resync.example.com"), 1)
}
