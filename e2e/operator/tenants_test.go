package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
	"github.com/cfzt/cfzt-runner/internal/e2e"
)

// createTunnel creates a second tunnel in the simulator's account.
func createTunnel(t *testing.T, w *world, name string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"name": name, "config_src": "cloudflare"})
	req, err := http.NewRequestWithContext(w.ctx, http.MethodPost, w.sim.Base+"/accounts/"+w.sim.AccountID+"/cfd_tunnel", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+w.sim.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out struct {
		Result struct {
			ID string `json:"id"`
		} `json:"result"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.NotEmpty(t, out.Result.ID)
	return out.Result.ID
}

// Two tenants in one namespace: the tenant annotation picks one; a route
// without it is an error that names both, and does not stop the others.
func TestTwoTenantsOneNamespace(t *testing.T) {
	w := newWorld(t, "two")
	second := createTunnel(t, w, "second")
	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustTenant
metadata: {name: beta, namespace: two}
spec:
  accountId: `+w.sim.AccountID+`
  tunnelId: `+second+`
  credentialRef: {name: `+credSecret+`}`,
		route(w.ns, "ra", map[string]string{"enabled": "true", "hostname": "ra.example.com", "tenant": tenantName}),
		route(w.ns, "rb", map[string]string{"enabled": "true", "hostname": "rb.example.com", "tenant": "beta"}),
		route(w.ns, "rx", map[string]string{"enabled": "true", "hostname": "rx.example.com"}),
		route(w.ns, "rz", map[string]string{"enabled": "true", "hostname": "rz.example.com", "tenant": "nobody"}))
	w.converge()

	require.NotNil(t, w.ingress(w.sim.TunnelID, "ra.example.com"))
	require.Nil(t, w.ingress(second, "ra.example.com"))
	require.NotNil(t, w.ingress(second, "rb.example.com"))
	require.Nil(t, w.ingress(w.sim.TunnelID, "rb.example.com"))
	require.Equal(t, "beta", w.stateCM(w.ns, "rb")["tenant_name"])
	require.Nil(t, w.stateCM(w.ns, "rx"))
	require.Empty(t, w.dnsRecords("rx.example.com"))

	st, _ := w.tenantStatus(w.ns, "beta")
	require.EqualValues(t, 1, st["summary"].(map[string]any)["managedRoutes"])
	// The ambiguous route belongs to no tenant: the run log says why.
	out := w.run(kubeWorker)
	require.Contains(t, out, "2 tenants in namespace two (acme, beta): set annotation cfzt.cloudflare.com/tenant to choose one")
	require.Contains(t, out, `tenant \"nobody\" (annotation cfzt.cloudflare.com/tenant) not found in namespace two`)
}

// WATCH_NAMESPACES limits the operator to the listed namespaces.
func TestWatchNamespaces(t *testing.T) {
	w := newWorld(t, "watched")
	require.NoError(t, h.CreateCredentialSecret(w.ctx, "unwatched", credSecret, w.sim.Token))
	w.apply(w.tenantYAML("unwatched", tenantName, ""),
		route(w.ns, "in", map[string]string{"enabled": "true", "hostname": "in.example.com"}),
		route("unwatched", "out", map[string]string{"enabled": "true", "hostname": "out.example.com"}))
	w.converge()
	require.NotNil(t, w.ingress(w.sim.TunnelID, "in.example.com"))
	require.Nil(t, w.ingress(w.sim.TunnelID, "out.example.com"))
	require.Nil(t, w.stateCM("unwatched", "out"))
	st, _ := w.tenantStatus("unwatched", tenantName)
	require.Nil(t, st, "a tenant outside WATCH_NAMESPACES got a status")

	w.watch("unwatched")
	w.converge()
	require.NotNil(t, w.ingress(w.sim.TunnelID, "out.example.com"))

	// Without WATCH_NAMESPACES every namespace is listed: both routes are in
	// sync. (Other tests' routes are seen too; their leftovers are removed.)
	t.Cleanup(func() { cleanOperatorNamespace(t, w) })
	out, code := w.runCode(kubeWorker, map[string]string{"WATCH_NAMESPACES": ""})
	require.Equal(t, 0, code, out)
	for _, ns := range []string{w.ns, "unwatched"} {
		st, _ := w.tenantStatus(ns, tenantName)
		require.EqualValues(t, 1, st["summary"].(map[string]any)["syncedRoutes"], ns)
	}
}

// cleanOperatorNamespace removes every task, state ConfigMap and the
// zone-miss memory after a run that watched all namespaces.
func cleanOperatorNamespace(t *testing.T, w *world) {
	ctx := context.Background()
	_ = h.Dynamic().Resource(taskGVR).Namespace(h.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	_ = h.Kube().CoreV1().ConfigMaps(h.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{LabelSelector: "app.kubernetes.io/component in (state-tracker,zone-misses)"})
}

// Tenant status after convergence: observedGeneration, lastSyncTime,
// summary counts and the Ready condition.
func TestTenantStatus(t *testing.T) {
	w := newWorld(t, "status")
	w.apply(route(w.ns, "a", map[string]string{"enabled": "true", "hostname": "a.example.com"}),
		route(w.ns, "b", fullStack("b.example.com")),
		route(w.ns, "c", map[string]string{"enabled": "true", "hostname": "c.example.com", "dnsOnly.enabled": "true", "dnsIp": "192.0.2.9"}))
	w.converge()
	st, ready := w.tenantStatus(w.ns, tenantName)
	require.NotNil(t, ready)
	require.Equal(t, "True", ready["status"])
	require.Equal(t, "ReconcileSuccess", ready["reason"])
	require.Equal(t, "3 route(s): 3 in sync, 0 in progress", ready["message"])
	require.NotEmpty(t, ready["lastTransitionTime"])
	require.EqualValues(t, 1, st["observedGeneration"])
	require.NotEmpty(t, st["lastSyncTime"])
	sum := st["summary"].(map[string]any)
	require.EqualValues(t, 3, sum["managedRoutes"])
	require.EqualValues(t, 3, sum["syncedRoutes"])
	require.EqualValues(t, 2, sum["hostnameRoutes"])
	require.EqualValues(t, 1, sum["dnsRecords"])
	require.EqualValues(t, 1, sum["accessApplications"])
	require.EqualValues(t, 2, sum["accessPolicies"], "the allow policy and the service token's Service Auth policy")
	require.EqualValues(t, 1, sum["serviceTokens"])
	require.EqualValues(t, 0, sum["failedRoutes"])

	// The credential Secret disappears: CredentialNotFound, nothing queued.
	require.NoError(t, h.Kube().CoreV1().Secrets(w.ns).Delete(w.ctx, credSecret, metav1.DeleteOptions{}))
	w.patchAnnotations(w.ns, "a", map[string]any{"no-tls-verify": "true"})
	require.False(t, w.cycle())
	_, ready = w.tenantStatus(w.ns, tenantName)
	require.Equal(t, "False", ready["status"])
	require.Equal(t, "CredentialNotFound", ready["reason"])
	require.Equal(t, "credential Secret status/cf-token not found", ready["message"])

	require.NoError(t, h.CreateCredentialSecret(w.ctx, w.ns, credSecret, w.sim.Token))
	w.converge()
	_, ready = w.tenantStatus(w.ns, tenantName)
	require.Equal(t, "ReconcileSuccess", ready["reason"])
	require.Equal(t, true, w.ingress(w.sim.TunnelID, "a.example.com")["originRequest"].(map[string]any)["noTLSVerify"])
}

// Bad input, each with a clear message, while the good route converges:
// a missing template, an invalid annotation value, a missing hostname, a
// tenant without its credential Secret, and a tenant whose token Cloudflare
// refuses (403).
func TestBadInput(t *testing.T) {
	main, other := "cfzt-e2e-bad-main-token", "cfzt-e2e-bad-other-token"
	w := newWorld(t, "bad", cfsim.WithSeed(withExtraAccount(e2e.DefaultSeed(main), other)))
	w.sim.Token = main
	require.NoError(t, h.CreateCredentialSecret(w.ctx, w.ns, credSecret, main))
	w.apply(route(w.ns, "good", map[string]string{"enabled": "true", "hostname": "good.example.com"}),
		route(w.ns, "no-template", map[string]string{"enabled": "true", "hostname": "nt.example.com", "template": "missing"}),
		route(w.ns, "bad-value", map[string]string{"enabled": "true", "hostname": "bv.example.com", "tls-timeout": "soon", "access.enabled": "yes"}),
		route(w.ns, "no-host", map[string]string{"enabled": "true"}))

	// A tenant whose Secret does not exist.
	require.NoError(t, h.EnsureNamespace(w.ctx, "bad-cred"))
	w.watch("bad-cred")
	w.apply(w.tenantYAML("bad-cred", tenantName, ""), route("bad-cred", "r", map[string]string{"enabled": "true", "hostname": "cred.example.com"}))

	// A tenant whose token belongs to another account: Cloudflare says 403.
	w.watch("forbidden")
	require.NoError(t, h.CreateCredentialSecret(w.ctx, "forbidden", credSecret, other))
	w.apply(w.tenantYAML("forbidden", tenantName, "  zoneId: "+w.sim.Zones["example.com"]+"\n"),
		route("forbidden", "r", map[string]string{"enabled": "true", "hostname": "forbidden.example.com"}))

	for i := 0; i < 3; i++ {
		w.cycle()
	}
	require.NotNil(t, w.ingress(w.sim.TunnelID, "good.example.com"), "the good route did not converge")
	require.Len(t, w.dnsRecords("good.example.com"), 1)
	for _, host := range []string{"nt.example.com", "bv.example.com", "cred.example.com", "forbidden.example.com"} {
		require.Nil(t, w.ingress(w.sim.TunnelID, host), host)
	}

	st, ready := w.tenantStatus(w.ns, tenantName)
	require.Equal(t, "False", ready["status"])
	require.Equal(t, "TemplateNotFound", ready["reason"])
	require.Equal(t, `bad/no-template: CloudflareZeroTrustTemplate "missing" not found in namespace bad`, ready["message"])
	errs := errorsOf(st)
	require.Contains(t, errs, `annotation cfzt.cloudflare.com/tls-timeout: \"soon\" is not an integer from 1 to 300`)
	require.Contains(t, errs, `annotation cfzt.cloudflare.com/access.enabled: \"yes\" is not a boolean (\"true\" or \"false\")`)
	require.Contains(t, errs, `"reason":"MissingHostname"`)
	require.Contains(t, errs, `bad/no-host: annotation cfzt.cloudflare.com/hostname is missing`)
	require.EqualValues(t, 3, st["summary"].(map[string]any)["failedRoutes"])

	_, ready = w.tenantStatus("bad-cred", tenantName)
	require.Equal(t, "CredentialNotFound", ready["reason"])
	require.Equal(t, "credential Secret bad-cred/cf-token not found", ready["message"])

	_, ready = w.tenantStatus("forbidden", tenantName)
	require.Equal(t, "False", ready["status"])
	require.Equal(t, "CloudflareAPIError", ready["reason"])
	require.Contains(t, ready["message"], "403")

	// Fixing the template heals that route only.
	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustTemplate
metadata: {name: missing, namespace: bad}
spec: {}`)
	w.cycle()
	w.cycle()
	require.NotNil(t, w.ingress(w.sim.TunnelID, "nt.example.com"))
}

// withExtraAccount adds an account with its own token and no zones.
func withExtraAccount(seed cfsim.Seed, token string) cfsim.Seed {
	seed.Accounts = append(seed.Accounts, cfsim.SeedAccount{ID: "ffffffffffffffffffffffffffffffff", Name: "other", Tokens: []string{token}})
	return seed
}
