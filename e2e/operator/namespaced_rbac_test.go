package operator

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// narrowRBAC is the namespaced install for ServiceAccount sa: deploy/rbac's
// ServiceAccount, Role and RoleBinding in the operator namespace, and
// deploy/rbac-namespaced/served.yaml in namespace served; nothing
// cluster-wide. Names are changed so that it does not share the shipped
// (cluster-wide) binding of the harness's own operator identity.
func narrowRBAC(t *testing.T, sa, served string) []string {
	t.Helper()
	read := func(parts ...string) string {
		b, err := os.ReadFile(filepath.Join(append([]string{h.Root, "deploy"}, parts...)...))
		require.NoError(t, err)
		s := strings.ReplaceAll(string(b), "namespace: cloudflare-zero-trust\n", "namespace: "+h.Namespace+"\n")
		return s
	}
	metaName := regexp.MustCompile(`(?m)^  name: cloudflare-zero-trust-operator$`)
	subjectName := regexp.MustCompile(`(?m)^    name: cloudflare-zero-trust-operator$`)
	accountDoc := read("rbac", "serviceaccount.yaml")
	account := metaName.ReplaceAllString(accountDoc, "  name: "+sa)
	role := metaName.ReplaceAllString(read("rbac", "role.yaml"), "  name: "+sa)
	binding := strings.ReplaceAll(read("rbac", "rolebinding.yaml"), "name: cloudflare-zero-trust-operator\n", "name: "+sa+"\n")
	servedDoc := read("rbac-namespaced", "served.yaml")
	require.Contains(t, servedDoc, "namespace: apps\n")
	servedDoc = strings.ReplaceAll(servedDoc, "namespace: apps\n", "namespace: "+served+"\n")
	servedDoc = strings.ReplaceAll(servedDoc, "cloudflare-zero-trust-operator-served", sa+"-served")
	servedDoc = subjectName.ReplaceAllString(servedDoc, "    name: "+sa)
	for _, doc := range []string{account, role, binding, servedDoc} {
		require.NotContains(t, doc, "kind: ClusterRole")
	}
	return []string{account, role, binding, servedDoc}
}

// The operator works under the namespaced RBAC (deploy/rbac-namespaced):
// as a ServiceAccount with Roles only in the operator namespace and in the
// namespace it serves, a route with an Access application and a service
// token (whose Secret it writes into the route's namespace) reaches
// Cloudflare and is cleaned up again. A namespace it was not granted is
// refused by the apiserver, and the cycle stops with an error naming it
// instead of planning on partial data.
func TestNamespacedRBACServesItsNamespaces(t *testing.T) {
	w := newWorld(t, "narrow")
	const sa = "cfzt-narrow"
	w.apply(narrowRBAC(t, sa, w.ns)...)
	t.Cleanup(func() {
		rbac := h.Kube().RbacV1()
		_ = rbac.Roles(w.ns).Delete(w.ctx, sa+"-served", metav1.DeleteOptions{})
		_ = rbac.RoleBindings(w.ns).Delete(w.ctx, sa+"-served", metav1.DeleteOptions{})
		_ = rbac.Roles(h.Namespace).Delete(w.ctx, sa, metav1.DeleteOptions{})
		_ = rbac.RoleBindings(h.Namespace).Delete(w.ctx, sa, metav1.DeleteOptions{})
	})
	// Run as that ServiceAccount (impersonated by the admin).
	w.env["K8S_AUTH_API_KEY"] = h.Cluster.AdminToken
	w.env["K8S_AUTH_IMPERSONATE_USER"] = "system:serviceaccount:" + h.Namespace + ":" + sa

	w.apply(route(w.ns, "web", fullStack("narrow.example.com")))
	w.converge()
	require.NotNil(t, w.ingress(w.sim.TunnelID, "narrow.example.com"))
	require.Len(t, w.dnsRecords("narrow.example.com"), 1)
	require.Len(t, w.apps("narrow.example.com"), 1)
	sec, err := h.Kube().CoreV1().Secrets(w.ns).Get(w.ctx, "web-cfzt-service-token", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, sec.Data["client_id"])
	st, ready := w.tenantStatus(w.ns, tenantName)
	require.Equal(t, "True", ready["status"], "%v", st)

	w.deleteRoute(w.ns, "web")
	w.converge()
	w.requireCloudflareClean("narrow.example.com", "web-service-token")

	// A namespace without its Role: the list is forbidden, and the cycle
	// says which namespace it could not read.
	require.NoError(t, h.EnsureNamespace(w.ctx, "narrow-unserved"))
	out, code := w.runCode(kubeWorker, map[string]string{"WATCH_NAMESPACES": w.ns + ",narrow-unserved"})
	require.NotEqual(t, 0, code, out)
	require.Contains(t, out, "Cannot list CloudflareZeroTrustTenant in narrow-unserved")
	require.Contains(t, out, "forbidden")
}
