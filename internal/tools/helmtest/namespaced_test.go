package helmtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	authv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// namespacedValues is the narrow install: Roles in apps and team-a only.
func namespacedValues() map[string]any {
	return map[string]any{
		"fullnameOverride": "cfzt-narrow",
		"serviceAccount":   map[string]any{"create": true, "name": "cfzt-narrow"},
		"watchNamespaces":  []any{"apps", "team-a"},
		"rbac":             map[string]any{"create": true, "namespaced": true},
	}
}

// rbac.namespaced renders no ClusterRole or ClusterRoleBinding: the
// ClusterRole's rules become a Role in each watched namespace, bound to the
// operator's ServiceAccount. The plain-manifest variant,
// deploy/rbac-namespaced/served.yaml, has the same rules. Without
// watchNamespaces the chart refuses to render.
func TestRenderNamespacedRBAC(t *testing.T) {
	r, err := Render(ChartDir(root), "narrow", "cfzt-custom", namespacedValues())
	require.NoError(t, err)
	require.Nil(t, r.Find("ClusterRole", "cfzt-narrow"))
	require.Nil(t, r.Find("ClusterRoleBinding", "cfzt-narrow"))
	for _, o := range r.Objects {
		require.NotContains(t, []string{"ClusterRole", "ClusterRoleBinding"}, o.GetKind(), o.GetName())
	}
	want := jsonOf(t, deployRBAC(t, "ClusterRole").Object["rules"])
	served := 0
	for _, o := range r.Objects {
		if o.GetName() != "cfzt-narrow-served" {
			continue
		}
		require.Contains(t, []string{"apps", "team-a"}, o.GetNamespace())
		switch o.GetKind() {
		case "Role":
			served++
			require.Equal(t, want, jsonOf(t, o.Object["rules"]), "Role in %s", o.GetNamespace())
		case "RoleBinding":
			require.Equal(t, `[{"kind":"ServiceAccount","name":"cfzt-narrow","namespace":"cfzt-custom"}]`, jsonOf(t, o.Object["subjects"]))
			require.Equal(t, "cfzt-narrow-served", nested(t, o.Object, "roleRef", "name"))
		}
	}
	require.Equal(t, 2, served)
	// The operator namespace keeps its Role; the manager serves exactly
	// the namespaces it has Roles in.
	require.NotNil(t, r.Find("Role", "cfzt-narrow"))
	c := nested(t, r.Find("Deployment", "cfzt-narrow").Object, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
	require.Equal(t, "apps,team-a", envMap(c)["WATCH_NAMESPACES"])

	vals := namespacedValues()
	delete(vals, "watchNamespaces")
	_, err = Render(ChartDir(root), "narrow", "cfzt-custom", vals)
	require.ErrorContains(t, err, "rbac.namespaced needs watchNamespaces")

	// The plain manifests' namespaced Role has the ClusterRole's rules.
	data, err := os.ReadFile(filepath.Join(root, "deploy", "rbac-namespaced", "served.yaml"))
	require.NoError(t, err)
	objs, err := Decode(string(data))
	require.NoError(t, err)
	kinds := map[string]bool{}
	for _, o := range objs {
		kinds[o.GetKind()] = true
		if o.GetKind() == "Role" {
			require.Equal(t, want, jsonOf(t, o.Object["rules"]), "deploy/rbac-namespaced/served.yaml")
		}
	}
	require.Equal(t, map[string]bool{"Role": true, "RoleBinding": true}, kinds)
}

// Installed for real, the namespaced RBAC lets the operator's
// ServiceAccount do its work in the served namespaces and nothing in the
// others: no Secret, route or tenant of namespace "elsewhere", nothing
// cluster-wide.
func TestInstallNamespacedRBAC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := Render(ChartDir(root), "narrow", "cfzt-custom", namespacedValues())
	require.NoError(t, err)
	for _, obj := range r.Objects {
		switch obj.GetKind() {
		case "ServiceAccount", "Role", "RoleBinding":
			_, err := applyObject(ctx, cluster, obj, false)
			require.NoError(t, err, "%s/%s", obj.GetKind(), obj.GetName())
		}
	}
	admin, err := kubernetes.NewForConfig(cluster.AdminConfig)
	require.NoError(t, err)
	may := func(ra authv1.ResourceAttributes) bool {
		t.Helper()
		res, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authv1.SubjectAccessReview{Spec: authv1.SubjectAccessReviewSpec{
			User:               "system:serviceaccount:cfzt-custom:cfzt-narrow",
			Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:cfzt-custom", "system:authenticated"},
			ResourceAttributes: &ra,
		}}, metav1.CreateOptions{})
		require.NoError(t, err)
		return res.Status.Allowed
	}
	for _, ns := range []string{"apps", "team-a"} {
		for _, ra := range []authv1.ResourceAttributes{
			{Verb: "list", Group: "gateway.networking.k8s.io", Resource: "httproutes", Namespace: ns},
			{Verb: "watch", Group: "gateway.networking.k8s.io", Resource: "httproutes", Namespace: ns},
			{Verb: "patch", Group: "gateway.networking.k8s.io", Resource: "httproutes", Namespace: ns},
			{Verb: "list", Group: "cfzt.cloudflare.com", Resource: "cloudflarezerotrusttenants", Namespace: ns},
			{Verb: "patch", Group: "cfzt.cloudflare.com", Resource: "cloudflarezerotrusttenants", Subresource: "status", Namespace: ns},
			{Verb: "get", Resource: "secrets", Name: "cloudflare-api-token", Namespace: ns},
			{Verb: "watch", Resource: "services", Name: "ingress", Namespace: ns},
			{Verb: "create", Group: "events.k8s.io", Resource: "events", Namespace: ns},
		} {
			require.True(t, may(ra), "may not %s %s/%s in %s", ra.Verb, ra.Group, ra.Resource, ns)
		}
	}
	for _, ra := range []authv1.ResourceAttributes{
		{Verb: "create", Group: "cfzt.cloudflare.com", Resource: "cloudflaretasks", Namespace: "cfzt-custom"},
		{Verb: "watch", Group: "apps", Resource: "deployments", Name: "cloudflare-zero-trust-kube-worker", Namespace: "cfzt-custom"},
	} {
		require.True(t, may(ra), "may not %s %s in the operator namespace", ra.Verb, ra.Resource)
	}
	for _, ra := range []authv1.ResourceAttributes{
		{Verb: "get", Resource: "secrets", Name: "cloudflare-api-token", Namespace: "elsewhere"},
		{Verb: "get", Resource: "secrets", Name: "cloudflare-api-token"},
		{Verb: "list", Resource: "secrets", Namespace: "apps"},
		{Verb: "list", Group: "gateway.networking.k8s.io", Resource: "httproutes"},
		{Verb: "list", Group: "gateway.networking.k8s.io", Resource: "httproutes", Namespace: "elsewhere"},
		{Verb: "list", Group: "cfzt.cloudflare.com", Resource: "cloudflarezerotrusttenants", Namespace: "elsewhere"},
		{Verb: "delete", Resource: "secrets", Name: "x", Namespace: "elsewhere"},
		{Verb: "list", Group: "apps", Resource: "deployments", Namespace: "cfzt-custom"},
	} {
		require.False(t, may(ra), "may %s %s/%s %q in %q", ra.Verb, ra.Group, ra.Resource, ra.Name, ra.Namespace)
	}
}
