package operator

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DNS-only with a template's static IP: an A record, no tunnel rule, no
// CNAME; the IP is written back.
func TestDNSOnlyStaticIP(t *testing.T) {
	w := newWorld(t, "dns-static")
	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustTemplate
metadata: {name: dns, namespace: dns-static}
spec:
  dnsOnly: {enabled: true, staticIp: 198.51.100.7, ttl: 300}`,
		route(w.ns, "legacy", map[string]string{"enabled": "true", "hostname": "legacy.example.com", "template": "dns"}))
	w.converge()

	recs := w.dnsRecords("legacy.example.com")
	require.Len(t, recs, 1)
	require.Equal(t, "A", recs[0].Type)
	require.Equal(t, "198.51.100.7", recs[0].Content)
	require.Equal(t, 300, recs[0].TTL)
	require.Nil(t, w.ingress(w.sim.TunnelID, "legacy.example.com"))
	ann := w.annotations(w.ns, "legacy")
	require.Equal(t, recs[0].ID, ann[prefix+"dnsRecordId"])
	require.Equal(t, "198.51.100.7", ann[prefix+"dnsRecordIp"])

	// The dnsIp annotation wins over the template.
	w.patchAnnotations(w.ns, "legacy", map[string]any{"dnsIp": "198.51.100.8"})
	w.converge()
	recs = w.dnsRecords("legacy.example.com")
	require.Len(t, recs, 1)
	require.Equal(t, "198.51.100.8", recs[0].Content)
}

// DNS-only from a LoadBalancer Service: a clear error while the Service has
// no ingress IP, the A record once it has one, and an update when it moves.
func TestDNSOnlyLoadBalancer(t *testing.T) {
	w := newWorld(t, "dns-lb")
	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustTemplate
metadata: {name: default, namespace: dns-lb}
spec:
  dnsOnly:
    enabled: true
    ingressServiceRef: {name: ingress}`,
		route(w.ns, "shop", map[string]string{"enabled": "true", "hostname": "shop.example.com"}))

	w.converge()
	require.Empty(t, w.dnsRecords("shop.example.com"))
	st, ready := w.tenantStatus(w.ns, tenantName)
	require.Contains(t, errorsOf(st), "Service dns-lb/ingress not found")
	// A route whose configuration cannot work makes the tenant not Ready,
	// with the documented InvalidRoute reason.
	require.Equal(t, "False", ready["status"])
	require.Equal(t, "InvalidRoute", ready["reason"])
	require.Contains(t, ready["message"], "Service dns-lb/ingress not found")

	svcs := h.Kube().CoreV1().Services(w.ns)
	svc, err := svcs.Create(w.ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "ingress"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	w.converge()
	st, _ = w.tenantStatus(w.ns, tenantName)
	require.Contains(t, errorsOf(st), "Service dns-lb/ingress has no LoadBalancer ingress IP yet")

	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.44"}}
	svc, err = svcs.UpdateStatus(w.ctx, svc, metav1.UpdateOptions{})
	require.NoError(t, err)
	w.converge()
	recs := w.dnsRecords("shop.example.com")
	require.Len(t, recs, 1)
	require.Equal(t, "192.0.2.44", recs[0].Content)
	st, _ = w.tenantStatus(w.ns, tenantName)
	require.Empty(t, st["errors"])

	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.45"}}
	_, err = svcs.UpdateStatus(w.ctx, svc, metav1.UpdateOptions{})
	require.NoError(t, err)
	w.converge()
	recs = w.dnsRecords("shop.example.com")
	require.Len(t, recs, 1)
	require.Equal(t, "192.0.2.45", recs[0].Content)
}

// A template's settings, an annotation overriding one of them, and a
// template edit that re-reconciles only the route still taking it.
func TestTemplateOverrideAndEdit(t *testing.T) {
	w := newWorld(t, "tpl")
	tpl := func(session string) string {
		return `apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustTemplate
metadata: {name: internal, namespace: tpl}
spec:
  accessApplication: {enabled: true, sessionDuration: ` + session + `, allowEmailDomains: [example.com]}
  originService:
    url: https://backend.tpl.svc.cluster.local:8443
    originTLS: {noTLSVerify: true, tlsTimeout: 30}`
	}
	w.apply(tpl("12h"),
		route(w.ns, "a", map[string]string{"enabled": "true", "hostname": "a.example.com", "template": "internal"}),
		route(w.ns, "b", map[string]string{"enabled": "true", "hostname": "b.example.com", "template": "internal",
			"access.sessionDuration": "2h", "tls-timeout": "5"}))
	w.converge()

	require.Equal(t, "12h", w.apps("a.example.com")[0].SessionDuration)
	require.Equal(t, "2h", w.apps("b.example.com")[0].SessionDuration)
	ruleA := w.ingress(w.sim.TunnelID, "a.example.com")
	require.Equal(t, "https://backend.tpl.svc.cluster.local:8443", ruleA["service"])
	origin := ruleA["originRequest"].(map[string]any)
	require.Equal(t, true, origin["noTLSVerify"])
	require.EqualValues(t, 30, origin["tlsTimeout"])
	require.EqualValues(t, 5, w.ingress(w.sim.TunnelID, "b.example.com")["originRequest"].(map[string]any)["tlsTimeout"])
	hashB := w.stateCM(w.ns, "b")["annotation_hash"]

	// b overrides the edited setting, so its merged settings do not change
	// and it is not re-queued.
	w.apply(tpl("6h"))
	w.run(kubeWorker)
	names := w.taskNames()
	require.Len(t, names, 1, "%v", names)
	require.Contains(t, names[0], "cfzt-tpl.a=")
	w.run(cloudflareWorker)
	w.converge()
	require.Equal(t, "6h", w.apps("a.example.com")[0].SessionDuration)
	require.Equal(t, "2h", w.apps("b.example.com")[0].SessionDuration)
	require.Len(t, w.apps("a.example.com"), 1)
	require.Equal(t, hashB, w.stateCM(w.ns, "b")["annotation_hash"])

	// A setting b does not override reaches it.
	w.apply(strings.Replace(tpl("6h"), "tlsTimeout: 30", "tlsTimeout: 30, http2Origin: true", 1))
	w.converge()
	require.Equal(t, true, w.ingress(w.sim.TunnelID, "b.example.com")["originRequest"].(map[string]any)["http2Origin"])
}

// Tenant spec.defaults apply below templates and annotations.
func TestTenantDefaults(t *testing.T) {
	w := newWorld(t, "defaults")
	w.apply(w.tenantYAML(w.ns, tenantName, `  logLevel: DEBUG
  defaults:
    sessionDuration: 3h
    originService: http://fallback.defaults.svc:9000
    accessApplication: {enabled: true, allowEmails: [ops@example.com]}`),
		route(w.ns, "r", map[string]string{"enabled": "true", "hostname": "r.example.com"}))
	out := w.run(kubeWorker)
	tasks := w.tasks()
	require.Len(t, tasks, 1)
	spec := tasks[0].Object["spec"].(map[string]any)
	require.Equal(t, "DEBUG", spec["logLevel"])
	// The tenant's DEBUG level shows the queued task's spec.
	require.Contains(t, out, `Queued reconcile of defaults/r (r.example.com): new route - spec: {`)
	w.run(cloudflareWorker)
	w.converge()
	apps := w.apps("r.example.com")
	require.Len(t, apps, 1)
	require.Equal(t, "3h", apps[0].SessionDuration)
	require.Equal(t, "http://fallback.defaults.svc:9000", w.ingress(w.sim.TunnelID, "r.example.com")["service"])
}

// errorsOf renders a tenant status's errors list for Contains checks.
func errorsOf(status map[string]any) string {
	b, _ := json.Marshal(status["errors"])
	return string(b)
}
