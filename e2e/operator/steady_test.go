package operator

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// After convergence, steady-state cycles of both workers make no Cloudflare
// call, queue no task, and write nothing to routes, state ConfigMaps or the
// tenant (PITFALLS 5).
func TestSteadyState(t *testing.T) {
	w := newWorld(t, "steady")
	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustTemplate
metadata: {name: default, namespace: steady}
spec:
  accessApplication: {enabled: true, allowEmailDomains: [example.com]}`,
		route(w.ns, "plain", map[string]string{"enabled": "true", "hostname": "plain.example.com", "access.enabled": "false"}),
		route(w.ns, "access", map[string]string{"enabled": "true", "hostname": "access.example.com"}),
		route(w.ns, "token", fullStack("token.example.co.uk")),
		route(w.ns, "dns", map[string]string{"enabled": "true", "hostname": "dns.example.com", "dnsOnly.enabled": "true", "dnsIp": "192.0.2.1"}),
		route(w.ns, "ignored", map[string]string{"hostname": "ignored.example.com"}))
	w.converge()
	require.Len(t, w.apps("access.example.com"), 1)
	require.Empty(t, w.apps("plain.example.com"))

	versions := func() map[string]string {
		out := map[string]string{}
		for _, n := range []string{"plain", "access", "token", "dns", "ignored"} {
			out["route/"+n] = w.get(routeGVR, w.ns, n).GetResourceVersion()
		}
		cms, err := h.Kube().CoreV1().ConfigMaps(h.Namespace).List(w.ctx, metav1.ListOptions{LabelSelector: prefix + "route-namespace=steady"})
		require.NoError(t, err)
		require.Len(t, cms.Items, 4)
		for _, c := range cms.Items {
			out["cm/"+c.Name] = c.ResourceVersion
		}
		out["tenant"] = w.get(tenantGVR, w.ns, tenantName).GetResourceVersion()
		return out
	}
	// One more cycle lets the tenant status settle on "4 in sync".
	w.cycle()
	before := versions()
	w.sim.ResetLog()
	for i := 0; i < 3; i++ {
		out := w.run(kubeWorker)
		require.Contains(t, out, "4 route(s): 4 in sync, 0 to reconcile, 0 waiting, 0 in error; 0 to delete, 0 state ConfigMap(s) to remove")
		require.Empty(t, w.tasks())
		w.run(cloudflareWorker)
	}
	require.Empty(t, w.sim.Requests(), "steady-state cycles called Cloudflare")
	require.Equal(t, before, versions(), "steady-state cycles wrote to Kubernetes")
}

// Zone IDs are resolved once and then known (PITFALLS 10), and a zone
// never leaks from one route to the next in the same cycle (PITFALLS 3).
func TestZoneLookupCachedAndNotLeaked(t *testing.T) {
	w := newWorld(t, "zones")
	w.apply(route(w.ns, "uk", map[string]string{"enabled": "true", "hostname": "shop.example.co.uk"}),
		route(w.ns, "com", map[string]string{"enabled": "true", "hostname": "shop.example.com"}),
		route(w.ns, "nowhere", map[string]string{"enabled": "true", "hostname": "shop.example.org"}))
	w.run(kubeWorker)
	zones := map[string]string{}
	for _, task := range w.tasks() {
		spec := task.Object["spec"].(map[string]any)
		zones[spec["hostname"].(string)] = spec["zoneId"].(string)
	}
	require.Equal(t, map[string]string{
		"shop.example.co.uk": w.sim.Zones["example.co.uk"],
		"shop.example.com":   w.sim.Zones["example.com"],
	}, zones)
	st, _ := w.tenantStatus(w.ns, tenantName)
	require.Contains(t, errorsOf(st), "no Cloudflare zone of account "+w.sim.AccountID+" holds shop.example.org")
	w.converge()

	// A new route in a known zone is queued without any Cloudflare call.
	w.sim.ResetLog()
	w.apply(route(w.ns, "more", map[string]string{"enabled": "true", "hostname": "more.example.co.uk"}))
	w.run(kubeWorker)
	for _, r := range w.sim.Requests() {
		require.False(t, strings.HasPrefix(r.Path, "/client/v4/zones"), "kube_worker looked a known zone up: %s %s", r.Method, r.Path)
	}
	tasks := w.tasks()
	require.Len(t, tasks, 1)
	require.Equal(t, w.sim.Zones["example.co.uk"], tasks[0].Object["spec"].(map[string]any)["zoneId"])
	w.converge()
	require.Len(t, w.dnsRecords("more.example.co.uk"), 1)
}
