package operator

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
)

// The sample resources are valid against the shipped CRDs (server-side dry
// run), and invalid input is refused by the CRD validation.
func TestSamplesValidate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	files, err := filepath.Glob(filepath.Join(h.Root, "deploy", "samples", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	n := 0
	for _, f := range files {
		for _, obj := range readObjects(t, f) {
			gvr := map[string]schema.GroupVersionResource{
				"CloudflareZeroTrustTenant":         tenantGVR,
				"CloudflareZeroTrustTemplate":       templateGVR,
				"CloudflareZeroTrustOperatorConfig": configGVR,
				"HTTPRoute":                         routeGVR,
			}[obj.GetKind()]
			require.NotEmpty(t, gvr.Resource, "%s: unexpected kind %s", f, obj.GetKind())
			require.NoError(t, h.EnsureNamespace(ctx, obj.GetNamespace()))
			_, err := h.Dynamic().Resource(gvr).Namespace(obj.GetNamespace()).Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			require.NoError(t, err, "%s: %s/%s", f, obj.GetKind(), obj.GetName())
			n++
		}
	}
	require.GreaterOrEqual(t, n, 8)

	bad := []string{
		`{"accountId": "not-hex", "credentialRef": {"name": "x"}}`,
		`{"accountId": "0123456789abcdef0123456789abcdef"}`,
		`{"accountId": "0123456789abcdef0123456789abcdef", "credentialRef": {"name": "x"}, "logLevel": "LOUD"}`,
		`{"accountId": "0123456789abcdef0123456789abcdef", "credentialRef": {"name": "x"}, "defaults": {"sessionDuration": "a day"}}`,
	}
	for _, spec := range bad {
		obj := &unstructured.Unstructured{}
		require.NoError(t, obj.UnmarshalJSON([]byte(`{"apiVersion": "cfzt.cloudflare.com/v1alpha1", "kind": "CloudflareZeroTrustTenant",
			"metadata": {"name": "bad", "namespace": "apps"}, "spec": `+spec+`}`)))
		_, err := h.Dynamic().Resource(tenantGVR).Namespace("apps").Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		require.Error(t, err, spec)
	}
}

func readObjects(t *testing.T, file string) []*unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var out []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			require.NoError(t, err, file)
		}
		if len(obj.Object) > 0 {
			out = append(out, obj)
		}
	}
}

// The shipped RBAC grants the operator what the tiers use and nothing
// broader: no Secret listing outside its namespace, no other Deployments,
// no writes to tenants or templates.
func TestRBACLeastPrivilege(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	op, err := kubernetes.NewForConfig(h.Cluster.OperatorConfig)
	require.NoError(t, err)
	can := func(verb, group, resource, ns, name string) bool {
		r, err := op.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authzv1.SelfSubjectAccessReview{
			Spec: authzv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authzv1.ResourceAttributes{
				Verb: verb, Group: group, Resource: resource, Namespace: ns, Name: name,
			}},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
		return r.Status.Allowed
	}
	opNS := h.Namespace
	for _, ok := range [][5]string{
		{"list", "gateway.networking.k8s.io", "httproutes", "", ""},
		{"patch", "gateway.networking.k8s.io", "httproutes", "apps", "web"},
		{"list", "cfzt.cloudflare.com", "cloudflarezerotrusttenants", "", ""},
		{"patch", "cfzt.cloudflare.com", "cloudflarezerotrusttenants/status", "apps", "acme"},
		{"get", "", "secrets", "apps", "cf-token"},
		{"create", "", "secrets", "apps", ""},
		{"create", "cfzt.cloudflare.com", "cloudflaretasks", opNS, ""},
		{"patch", "cfzt.cloudflare.com", "cloudflaretasks/status", opNS, "x"},
		{"delete", "", "configmaps", opNS, "x"},
		{"list", "", "secrets", opNS, ""},
		{"patch", "apps", "deployments", opNS, "cloudflare-zero-trust-operator"},
		{"update", "apps", "deployments", opNS, "cloudflare-zero-trust-kube-worker"},
		{"get", "", "services", "ingress", "lb"},
		// Watches by name (a metadata.name field selector).
		{"watch", "", "services", "ingress", "lb"},
		{"watch", "apps", "deployments", opNS, "cloudflare-zero-trust-kube-worker"},
	} {
		require.True(t, can(ok[0], ok[1], ok[2], ok[3], ok[4]), "operator cannot %v", ok)
	}
	for _, no := range [][5]string{
		{"list", "", "secrets", "apps", ""},
		{"list", "", "secrets", "", ""},
		{"get", "apps", "deployments", opNS, "something-else"},
		{"patch", "apps", "deployments", "apps", "web"},
		{"create", "cfzt.cloudflare.com", "cloudflaretasks", "apps", ""},
		{"update", "cfzt.cloudflare.com", "cloudflarezerotrusttenants", "apps", "acme"},
		{"patch", "cfzt.cloudflare.com", "cloudflarezerotrusttemplates", "apps", "t"},
		{"delete", "gateway.networking.k8s.io", "httproutes", "apps", "web"},
		{"create", "", "configmaps", "apps", ""},
		{"list", "", "pods", opNS, ""},
		{"list", "apps", "deployments", opNS, ""},
		{"watch", "", "secrets", "apps", "cf-token"},
	} {
		require.False(t, can(no[0], no[1], no[2], no[3], no[4]), "operator can %v", no)
	}
}
