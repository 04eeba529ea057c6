package watch

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cfzt/cfzt-runner/internal/e2e"
)

// The LoadBalancer Service that a DNS-only template names is watched by
// name: when its ingress IP appears (a status-only update), the A record
// reaches Cloudflare long before the one-hour interval, through a
// watch-triggered kube_worker cycle. Only that Service is watched, not the
// namespace's others.
func TestWatchLoadBalancerIPReachesDNS(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sim := e2e.StartSim(t)
	ns := "watch-lb"
	require.NoError(t, h.CreateCredentialSecret(ctx, ns, "cf-token", sim.Token))
	require.NoError(t, h.Cluster.ApplyYAML(ctx, fmt.Sprintf(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustTenant
metadata: {name: acme, namespace: %[1]s}
spec:
  accountId: %[2]s
  tunnelId: %[3]s
  credentialRef: {name: cf-token}
---
apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustTemplate
metadata: {name: default, namespace: %[1]s}
spec:
  dnsOnly:
    enabled: true
    ingressServiceRef: {name: ingress}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: shop
  namespace: %[1]s
  annotations:
    cfzt.cloudflare.com/enabled: "true"
    cfzt.cloudflare.com/hostname: shop.example.com
spec:
  parentRefs: [{name: gw}]
  rules:
    - backendRefs: [{name: shop, port: 8080}]
`, ns, sim.AccountID, sim.TunnelID)))
	svcs := h.Kube().CoreV1().Services(ns)
	for _, name := range []string{"ingress", "unrelated"} {
		_, err := svcs.Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
	}

	env := map[string]string{"WATCH_NAMESPACES": ns, "CLOUDFLARE_API_BASE": sim.Base}
	kw := start(t, "kube_worker", env, "cfzt-kube-worker")
	cw := start(t, "cloudflare_worker", env, "cfzt-cloudflare-worker")
	kw.WaitFor(0, 90*time.Second, "a first cycle", func(ev event) bool { return ev["event"] == "cycle_end" })
	kw.WaitFor(0, 60*time.Second, "the watch of Service ingress", func(ev event) bool {
		return ev["event"] == "watch_started" && ev["kind"] == "v1/Service" && ev["name"] == "ingress" && ev["namespace"] == ns
	})
	require.Zero(t, kw.Count(func(ev event) bool {
		return ev["event"] == "watch_started" && ev["kind"] == "v1/Service" && ev["name"] != "ingress"
	}), "a Service the roles do not read is watched")
	require.Empty(t, dnsRecords(sim, "shop.example.com"), "no IP yet, no record")
	time.Sleep(2 * time.Second) // let the follow-up cycles of the first writes finish

	// The IP appears: a status-only update of the watched Service.
	before := len(kw.Events())
	svc, err := svcs.Get(ctx, "ingress", metav1.GetOptions{})
	require.NoError(t, err)
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.44"}}
	_, err = svcs.UpdateStatus(ctx, svc, metav1.UpdateOptions{})
	require.NoError(t, err)
	kw.WaitFor(before, 30*time.Second, "a watch-triggered cycle", func(ev event) bool {
		return ev["event"] == "cycle_start" && ev["trigger"] == "watch"
	})
	deadline := time.Now().Add(90 * time.Second)
	for {
		recs := dnsRecords(sim, "shop.example.com")
		if len(recs) == 1 && recs[0] == "192.0.2.44" {
			break
		}
		require.True(t, time.Now().Before(deadline), "no A record 192.0.2.44 for shop.example.com (interval 3600s): %v", recs)
		time.Sleep(50 * time.Millisecond)
	}
	require.Equal(t, 0, kw.Count(func(ev event) bool { return ev["event"] == "watch_forbidden" && ev["kind"] == "v1/Service" }))
	_ = cw
}

// dnsRecords returns the contents of the simulator's records named name.
func dnsRecords(sim *e2e.Sim, name string) []string {
	var out []string
	for _, r := range sim.State().DNSRecords {
		if r.Object.Name == name {
			out = append(out, r.Object.Content)
		}
	}
	return out
}
