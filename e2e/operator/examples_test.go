package operator

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Seed 000, Example 1: an enabled route with a hostname gets a tunnel rule
// to its backend and a proxied CNAME; the IDs are written back; then a
// steady-state cycle makes no Cloudflare call and queues nothing.
func TestExample1SimpleRoute(t *testing.T) {
	w := newWorld(t, "ex1")
	w.apply(route(w.ns, "simple-app", map[string]string{"enabled": "true", "hostname": "simple.example.com"}))

	w.run(kubeWorker)
	tasks := w.tasks()
	require.Len(t, tasks, 1)
	require.Equal(t, "cfzt-ex1.simple-app", tasks[0].GetName())
	// PITFALLS 1 and 12: every field written survives the CRD schema, typed.
	spec := tasks[0].Object["spec"].(map[string]any)
	require.Equal(t, w.sim.Zones["example.com"], spec["zoneId"])
	tls, _, _ := unstructured.NestedInt64(spec, "operations", "tunnelRoute", "originRequest", "tlsTimeout")
	require.EqualValues(t, 10, tls)
	for _, path := range [][]string{
		{"operations", "tunnelRoute", "originRequest", "noTLSVerify"},
		{"operations", "tunnelRoute", "originRequest", "httpHostHeader"},
		{"operations", "dnsRecord", "ipAddress"},
		{"operations", "dnsRecord", "ttl"},
		{"operations", "accessPolicy", "includeServiceToken"},
		{"existingIds", "hostnameRouteId"},
		{"existingIds", "accessPolicyIds"},
		{"credentialSecretRef", "key"},
		{"httprouteRef", "uid"},
	} {
		_, found, err := unstructured.NestedFieldNoCopy(spec, path...)
		require.NoError(t, err)
		require.True(t, found, "spec.%s was pruned", strings.Join(path, "."))
	}

	w.run(cloudflareWorker)
	w.converge()

	rule := w.ingress(w.sim.TunnelID, "simple.example.com")
	require.NotNil(t, rule, "no tunnel rule")
	require.Equal(t, "http://simple-app.ex1.svc.cluster.local:8080", rule["service"])
	recs := w.dnsRecords("simple.example.com")
	require.Len(t, recs, 1)
	require.Equal(t, "CNAME", recs[0].Type)
	require.Equal(t, w.sim.TunnelID+".cfargotunnel.com", recs[0].Content)
	require.True(t, recs[0].Proxied)

	ann := w.annotations(w.ns, "simple-app")
	require.Equal(t, w.sim.TunnelID, ann[prefix+"hostnameRouteId"])
	require.Equal(t, recs[0].ID, ann[prefix+"cnameRecordId"])
	require.NotEmpty(t, ann[prefix+"lastReconcile"])
	require.NotContains(t, ann, prefix+"accessAppId")

	st := w.stateCM(w.ns, "simple-app")
	require.NotNil(t, st)
	require.Len(t, st["annotation_hash"], 64)
	require.Equal(t, "simple.example.com", st["hostname"])
	require.Equal(t, w.sim.Zones["example.com"], st["zone_id"])
	require.Empty(t, w.tasks())

	// Steady state (PITFALLS 5 and 10): nothing queued, nothing called,
	// nothing written.
	route := w.get(routeGVR, w.ns, "simple-app")
	w.sim.ResetLog()
	for i := 0; i < 2; i++ {
		require.False(t, w.cycle(), "a steady-state cycle queued a task")
	}
	require.Empty(t, w.sim.Requests(), "a steady-state cycle called Cloudflare")
	require.Equal(t, route.GetResourceVersion(), w.get(routeGVR, w.ns, "simple-app").GetResourceVersion(), "the route was written again")
}

// Seed 000, Example 2: an Access application with an e-mail allow policy.
func TestExample2AccessEmails(t *testing.T) {
	w := newWorld(t, "ex2")
	w.apply(route(w.ns, "admin-panel", map[string]string{
		"enabled": "true", "hostname": "admin.example.com", "accessApp": "true",
		"allowEmails": "admin@example.com,manager@example.com", "sessionDuration": "8h",
	}))
	w.converge()

	apps := w.apps("admin.example.com")
	require.Len(t, apps, 1)
	require.Equal(t, "admin-panel", apps[0].Name)
	require.Equal(t, "8h", apps[0].SessionDuration)
	pols := w.appPolicies(apps[0].ID)
	require.Len(t, pols, 1)
	require.Equal(t, "allow", pols[0].Decision)
	require.Equal(t, []string{`email:{"email":"admin@example.com"}`, `email:{"email":"manager@example.com"}`}, includes(pols[0]))

	ann := w.annotations(w.ns, "admin-panel")
	require.Equal(t, apps[0].ID, ann[prefix+"accessAppId"])
	require.Equal(t, pols[0].ID, ann[prefix+"accessPolicyIds"])
	require.Equal(t, w.sim.TunnelID, ann[prefix+"hostnameRouteId"])
}

// Seed 000, Example 3: Access for a group plus a service token whose
// credentials end up only in a Secret in the route's namespace.
func TestExample3ServiceToken(t *testing.T) {
	w := newWorld(t, "ex3")
	w.apply(route(w.ns, "api-service", map[string]string{
		"enabled": "true", "hostname": "api.example.com", "accessApp": "true",
		"allowGroups": "Engineering", "serviceToken": "true",
	}))
	w.converge()

	apps := w.apps("api.example.com")
	require.Len(t, apps, 1)
	var groupRule bool
	for _, p := range w.appPolicies(apps[0].ID) {
		for _, inc := range includes(p) {
			groupRule = groupRule || inc == `group:{"id":"`+w.sim.Groups["Engineering"]+`"}`
		}
	}
	require.True(t, groupRule, "no policy includes the Engineering group by ID")
	toks := w.serviceTokens("api-service-service-token")
	require.Len(t, toks, 1)

	sec, err := h.Kube().CoreV1().Secrets(w.ns).Get(w.ctx, "api-service-cfzt-service-token", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, toks[0].ClientID, string(sec.Data["client_id"]))
	require.Len(t, sec.Data["client_secret"], 64)
	secret := string(sec.Data["client_secret"])
	require.Equal(t, "HTTPRoute", sec.OwnerReferences[0].Kind)

	ann := w.annotations(w.ns, "api-service")
	require.Equal(t, toks[0].ID, ann[prefix+"serviceTokenId"])
	require.Equal(t, "api-service-cfzt-service-token", ann[prefix+"serviceTokenSecretName"])

	// PITFALLS 7: the secret is nowhere else.
	left, err := h.Kube().CoreV1().Secrets(h.Namespace).List(w.ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=cfzt-operator"})
	require.NoError(t, err)
	for _, s := range left.Items {
		require.False(t, strings.HasPrefix(s.Name, "cfzt-ex3-"), "service-token Secret %s left in the operator namespace", s.Name)
	}
	for k, v := range w.stateCM(w.ns, "api-service") {
		require.NotContains(t, v, secret, "state ConfigMap key %s holds the client secret", k)
	}
	for k, v := range ann {
		require.NotContains(t, v, secret, "annotation %s holds the client secret", k)
	}
}

// Seed 000, Example 4: changing allowEmails updates the app and policy in
// place; no duplicate is created.
func TestExample4UpdateInPlace(t *testing.T) {
	w := newWorld(t, "ex4")
	ann := map[string]string{"enabled": "true", "hostname": "app.example.com", "accessApp": "true", "allowEmails": "user1@example.com"}
	w.apply(route(w.ns, "app", ann))
	w.converge()
	apps := w.apps("app.example.com")
	require.Len(t, apps, 1)
	pols := w.appPolicies(apps[0].ID)
	require.Len(t, pols, 1)
	hash := w.stateCM(w.ns, "app")["annotation_hash"]

	ann["allowEmails"] = "user1@example.com,user2@example.com"
	w.apply(route(w.ns, "app", ann))
	w.converge()

	after := w.apps("app.example.com")
	require.Len(t, after, 1)
	require.Equal(t, apps[0].ID, after[0].ID)
	afterPols := w.appPolicies(apps[0].ID)
	require.Len(t, afterPols, 1)
	require.Equal(t, pols[0].ID, afterPols[0].ID)
	require.Equal(t, []string{`email:{"email":"user1@example.com"}`, `email:{"email":"user2@example.com"}`}, includes(afterPols[0]))
	require.NotEqual(t, hash, w.stateCM(w.ns, "app")["annotation_hash"])
	require.Len(t, w.dnsRecords("app.example.com"), 1)
}
