package cloudflare

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/cfzt/cfzt-runner/internal/e2e"
)

// fullSpec sets every spec field of docs/cloudflaretask.md to a non-default
// value.
func fullSpec() map[string]any {
	return map[string]any{
		"action":              "reconcile",
		"hostname":            "every.example.com",
		"accountId":           e2e.AccountID,
		"tunnelId":            "6f1a8a3c-2b7d-4c1e-9a55-0d1c2b3a4f5e",
		"zoneId":              "0123456789abcdef0123456789abcdef",
		"logLevel":            "DEBUG",
		"credentialSecretRef": map[string]any{"name": "tok", "namespace": "apps", "key": "api-token"},
		"httprouteRef":        map[string]any{"name": "web", "namespace": "apps", "uid": "5b0d1f0e-1111-4222-8333-444455556666"},
		"tenantRef":           map[string]any{"name": "acme", "namespace": "apps"},
		"operations": map[string]any{
			"tunnelRoute": map[string]any{
				"enabled": true,
				"service": "https://web.apps.svc.cluster.local:443",
				"originRequest": map[string]any{
					"noTLSVerify": true, "originServerName": "web.internal", "caPool": "/ca.pem",
					"tlsTimeout": int64(30), "http2Origin": true, "matchSNIToHost": true, "httpHostHeader": "web.internal",
				},
			},
			"cnameDns":  map[string]any{"enabled": true, "proxied": false},
			"dnsRecord": map[string]any{"enabled": true, "ipAddress": "192.0.2.9", "proxied": true, "ttl": int64(600)},
			"accessApp": map[string]any{
				"enabled": true, "name": "Every", "sessionDuration": "30m",
				"autoRedirectToIdentity": true, "skipInterstitial": true, "appLauncherVisible": false,
				"serviceAuth401Redirect": true, "httpOnlyCookieAttribute": false, "sameSiteCookieAttribute": "lax",
				"enableBindingCookie": true, "customDenyMessage": "go away", "customDenyUrl": "https://example.com/d",
				"customNonIdentityDenyUrl": "https://example.com/n", "logoUrl": "https://example.com/l.png",
				"allowedIdps": []any{"idp-1", "idp-2"},
			},
			"accessPolicy": map[string]any{
				"enabled": true, "name": "p", "serviceAuthName": "p-service-auth", "decision": "allow",
				"allowEmails": []any{"a@example.com"}, "allowEmailDomains": []any{"example.org"},
				"allowGroups": []any{"Admins"}, "allowEveryone": true, "includeServiceToken": true,
				"policyNames": []any{"Staff"},
			},
			"serviceToken": map[string]any{"enabled": true, "name": "robot", "duration": "8760h"},
		},
		"existingIds": map[string]any{
			"hostnameRouteId": "6f1a8a3c-2b7d-4c1e-9a55-0d1c2b3a4f5e", "cnameRecordId": "c1", "dnsRecordId": "d1",
			"dnsRecordIp": "192.0.2.8", "accessAppId": "a1", "accessPolicyIds": []any{"p1", "p2"},
			"serviceTokenId": "t1", "serviceTokenSecretName": "web-cfzt-service-token",
		},
	}
}

func fullStatus() map[string]any {
	return map[string]any{
		"phase": "Completed", "message": "done", "workerPod": "cloudflare-worker-0", "attempts": int64(2),
		"startedAt": "2026-01-02T03:04:05Z", "completedAt": "2026-01-02T03:04:06Z",
		"heartbeatAt": "2026-01-02T03:04:06Z", "leaseSeconds": int64(300),
		"result": map[string]any{
			"zoneId": "z", "tunnelId": "t", "hostnameRouteId": "t", "cnameRecordId": "c", "dnsRecordId": "d",
			"dnsRecordIp": "192.0.2.8", "accessAppId": "a", "accessPolicyIds": []any{"p1"},
			"serviceTokenId": "s", "serviceTokenClientId": "cid.access",
			"serviceTokenSecretRef": map[string]any{"name": "x-service-token", "namespace": "cloudflare-zero-trust"},
			"deleted":               true,
			"changes":               []any{"created CNAME c", "deleted service token s0"},
		},
	}
}

// TestCRDKeepsEveryField writes every field of the contract (spec as
// kube_worker, status through /status as the operator) and reads each back:
// nothing is pruned (PITFALLS 1) and types are enforced (PITFALLS 12).
func TestCRDKeepsEveryField(t *testing.T) {
	e := newEnv(t)
	e.createTask("cfzt-crd-every", fullSpec())
	got := e.task("cfzt-crd-every")
	require.Equal(t, fullSpec(), got.Object["spec"])

	// The operator (not admin) writes status through the subresource.
	op, err := dynamic.NewForConfig(h.Cluster.OperatorConfig)
	require.NoError(t, err)
	tasks := op.Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace)
	body, err := json.Marshal(map[string]any{"status": fullStatus()})
	require.NoError(t, err)
	_, err = tasks.Patch(e.ctx, "cfzt-crd-every", types.MergePatchType, body, metav1.PatchOptions{}, "status")
	require.NoError(t, err)
	got = e.task("cfzt-crd-every")
	require.Equal(t, fullStatus(), got.Object["status"])
	require.Equal(t, fullSpec(), got.Object["spec"], "a status write leaves spec alone")

	// A plain update cannot change status (status subresource).
	got.Object["status"] = map[string]any{"phase": "Pending"}
	_, err = h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace).Update(e.ctx, got, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.Equal(t, "Completed", e.status("cfzt-crd-every")["phase"])

	// Typed fields: strings where integers or booleans belong are refused.
	for _, bad := range []struct {
		path  []string
		value any
	}{
		{[]string{"operations", "tunnelRoute", "originRequest", "tlsTimeout"}, "10"},
		{[]string{"operations", "dnsRecord", "ttl"}, "300"},
		{[]string{"operations", "cnameDns", "proxied"}, "true"},
		{[]string{"action"}, "recreate"},
	} {
		spec := fullSpec()
		require.NoError(t, unstructured.SetNestedField(spec, bad.value, bad.path...))
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "cfzt.cloudflare.com/v1alpha1", "kind": "CloudflareTask",
			"metadata": map[string]any{"name": "cfzt-crd-bad", "namespace": h.Namespace},
			"spec":     spec,
		}}
		_, err := h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace).Create(e.ctx, obj, metav1.CreateOptions{})
		require.Error(t, err, "%v = %#v", bad.path, bad.value)
	}
}

func TestCRDNamesAndColumns(t *testing.T) {
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	crd, err := h.Dynamic().Resource(crds).Get(t.Context(), "cloudflaretasks.cfzt.cloudflare.com", metav1.GetOptions{})
	require.NoError(t, err)
	short, _, _ := unstructured.NestedStringSlice(crd.Object, "spec", "names", "shortNames")
	require.Contains(t, short, "cftask")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	require.Len(t, versions, 1)
	v := versions[0].(map[string]any)
	_, hasStatus, _ := unstructured.NestedMap(v, "subresources", "status")
	require.True(t, hasStatus)
	var cols []string
	for _, c := range v["additionalPrinterColumns"].([]any) {
		col := c.(map[string]any)
		if col["priority"] == nil {
			cols = append(cols, col["name"].(string))
		}
	}
	require.Equal(t, []string{"Phase", "Hostname", "Age"}, cols)
}

// TestCRDWideShowsTheMessage: `kubectl get cftask -o wide` shows the
// task's status.message (Cloudflare's error, for a failed task), as
// docs/install.md says: the apiserver's table for the kind has a Message
// column of priority 1 (shown by -o wide only) filled from the status.
func TestCRDWideShowsTheMessage(t *testing.T) {
	e := newEnv(t)
	e.createTask("cfzt-crd-wide", fullSpec())
	op, err := dynamic.NewForConfig(h.Cluster.OperatorConfig)
	require.NoError(t, err)
	body, err := json.Marshal(map[string]any{"status": map[string]any{"phase": "Failed", "message": "Cloudflare API error 10000: Authentication error"}})
	require.NoError(t, err)
	_, err = op.Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace).Patch(e.ctx, "cfzt-crd-wide", types.MergePatchType, body, metav1.PatchOptions{}, "status")
	require.NoError(t, err)

	cfg := rest.CopyConfig(h.Cluster.AdminConfig)
	cfg.AcceptContentTypes = "application/json;as=Table;v=v1;g=meta.k8s.io"
	cfg.GroupVersion = &schema.GroupVersion{Group: e2e.CloudflareTaskGVR.Group, Version: e2e.CloudflareTaskGVR.Version}
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientFor(cfg)
	require.NoError(t, err)
	raw, err := rc.Get().Namespace(h.Namespace).Resource(e2e.CloudflareTaskGVR.Resource).Name("cfzt-crd-wide").SetHeader("Accept", cfg.AcceptContentTypes).DoRaw(e.ctx)
	require.NoError(t, err)
	var table metav1.Table
	require.NoError(t, json.Unmarshal(raw, &table))
	col := -1
	for i, c := range table.ColumnDefinitions {
		if c.Name == "Message" {
			col = i
			require.Equal(t, int32(1), c.Priority, "shown by -o wide, not by default")
		}
	}
	require.NotEqual(t, -1, col, "a Message column: %s", raw)
	require.Len(t, table.Rows, 1)
	require.Equal(t, "Cloudflare API error 10000: Authentication error", table.Rows[0].Cells[col])
}
