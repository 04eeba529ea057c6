package helmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	authv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

var update = flag.Bool("update", false, "copy deploy/crds/*.yaml into deploy/chart/crds/ instead of comparing them")

// The operator's namespace and ServiceAccount in deploy/rbac; the default
// release uses them, so kubetest's operator token is the chart's identity.
const (
	operatorNamespace = "cloudflare-zero-trust"
	operatorName      = "cloudflare-zero-trust-operator"
)

var (
	cluster *kubetest.Cluster
	root    string
)

func TestMain(m *testing.M) {
	flag.Parse()
	var err error
	if root, err = kubetest.RepoRoot(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	opts := kubetest.Options{OperatorNamespace: operatorNamespace, OperatorServiceAccount: operatorName}
	kubetest.MainWithOptions(m, opts, func(c *kubetest.Cluster) {
		cluster = c
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		// Helm installs crds/ before any template, for real; so does this
		// test, once, so that the dry runs below can validate custom
		// resources against them.
		r, err := Render(ChartDir(root), "cfzt", operatorNamespace, nil)
		if err != nil {
			panic(err)
		}
		for _, crd := range r.CRDs {
			data, err := json.Marshal(crd.Object)
			if err != nil {
				panic(err)
			}
			if err := c.ApplyYAML(ctx, string(data)); err != nil {
				panic(err)
			}
		}
		for _, ns := range []string{operatorNamespace, "cfzt-custom", "apps", "team-a"} {
			if err := c.ApplyYAML(ctx, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "+ns+"\n"); err != nil {
				panic(err)
			}
		}
	})
}

// customValues exercise every value the chart offers.
func customValues() map[string]any {
	return map[string]any{
		"fullnameOverride": "cfzt-operator",
		"image":            map[string]any{"repository": "registry.example.test/cfzt/operator", "tag": "1.2.3", "pullPolicy": "Always"},
		"imagePullSecrets": []any{map[string]any{"name": "regcred"}},
		"replicas":         2,
		"watchNamespaces":  []any{"apps", "team-a"},
		"pollInterval":     15,
		"logLevel":         "DEBUG",
		"logFormat":        "text",
		"metrics":          map[string]any{"enabled": true, "port": 9090, "service": map[string]any{"type": "ClusterIP", "annotations": map[string]any{"prometheus.io/scrape": "true"}}},
		"resources":        map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "128Mi"}, "limits": map[string]any{"memory": "512Mi"}},
		"extraEnv":         []any{map[string]any{"name": "EXTRA", "value": "1"}},
		"serviceAccount":   map[string]any{"create": true, "name": "cfzt-sa", "annotations": map[string]any{"example.test/role": "x"}},
		"nodeSelector":     map[string]any{"kubernetes.io/os": "linux"},
		"tolerations":      []any{map[string]any{"key": "dedicated", "operator": "Equal", "value": "infra", "effect": "NoSchedule"}},
		"podLabels":        map[string]any{"team": "platform"},
		"podAnnotations":   map[string]any{"example.test/scrape": "yes"},
		"operatorConfig":   map[string]any{"create": true, "spec": map[string]any{"replicas": 1}},
		"samples":          map[string]any{"enabled": true},
	}
}

// copies are the chart's copies of files kept under deploy/: the CRDs
// (the test-only ones under deploy/crds/testing are not shipped) and the
// RBAC rules the templates read.
var copies = []struct{ src, dst string }{
	{"deploy/crds/*.yaml", "deploy/chart/crds"},
	{"deploy/rbac/clusterrole.yaml", "deploy/chart/files/rbac"},
	{"deploy/rbac/role.yaml", "deploy/chart/files/rbac"},
}

// TestChartCopiesMatchDeploy checks that the chart's copies equal their
// sources in deploy/. Run with -update to copy them.
func TestChartCopiesMatchDeploy(t *testing.T) {
	const fix = "run `go test -run TestChartCopiesMatchDeploy -update` in internal/tools/helmtest"
	wantFiles := map[string][]string{} // destination directory -> file names
	for _, c := range copies {
		src, err := filepath.Glob(filepath.Join(root, c.src))
		require.NoError(t, err)
		require.NotEmpty(t, src, c.src)
		dstDir := filepath.Join(root, c.dst)
		for _, f := range src {
			want, err := os.ReadFile(f)
			require.NoError(t, err)
			dst := filepath.Join(dstDir, filepath.Base(f))
			wantFiles[dstDir] = append(wantFiles[dstDir], filepath.Base(f))
			if *update {
				require.NoError(t, os.MkdirAll(dstDir, 0o755))
				require.NoError(t, os.WriteFile(dst, want, 0o644))
			}
			got, err := os.ReadFile(dst)
			require.NoError(t, err, fix)
			require.True(t, bytes.Equal(want, got), "%s differs from %s: %s", dst, f, fix)
		}
	}
	for dir, names := range wantFiles {
		have, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		require.NoError(t, err)
		for _, h := range have {
			if !slices.Contains(names, filepath.Base(h)) {
				if *update {
					require.NoError(t, os.Remove(h))
					continue
				}
				t.Errorf("%s has no source in deploy/: %s", h, fix)
			}
		}
	}
}

// TestLint runs Helm's chart linter (helm lint --strict) on both value sets.
func TestLint(t *testing.T) {
	kv, err := chartutil.ParseKubeVersion(KubeVersion)
	require.NoError(t, err)
	for name, vals := range map[string]map[string]any{"default": nil, "custom": customValues()} {
		t.Run(name, func(t *testing.T) {
			l := lint.AllWithKubeVersion(ChartDir(root), vals, operatorNamespace, kv)
			for _, m := range l.Messages {
				t.Logf("lint: %s", m)
				require.Less(t, m.Severity, support.WarningSev, "%s", m)
			}
		})
	}
}

// TestRenderDefault checks the default render: the objects, the manager's
// security settings, probes and environment, and RBAC equal to deploy/rbac.
func TestRenderDefault(t *testing.T) {
	r, err := Render(ChartDir(root), "cfzt", operatorNamespace, nil)
	require.NoError(t, err)
	require.Equal(t, []string{
		"ServiceAccount/" + operatorName,
		"ClusterRole/" + operatorName,
		"ClusterRoleBinding/" + operatorName,
		"Role/" + operatorName,
		"RoleBinding/" + operatorName,
		"Service/" + operatorName + "-metrics",
		"Deployment/" + operatorName,
	}, r.Kinds())
	require.Len(t, r.CRDs, 4)
	require.Contains(t, r.Notes, "cfzt-operator")

	dep := r.Find("Deployment", operatorName)
	pod := nested(t, dep.Object, "spec", "template", "spec").(map[string]any)
	require.Equal(t, operatorName, pod["serviceAccountName"])
	psc := pod["securityContext"].(map[string]any)
	require.Equal(t, true, psc["runAsNonRoot"])
	require.EqualValues(t, 1000, psc["runAsUser"])
	require.Equal(t, "RuntimeDefault", nested(t, psc, "seccompProfile", "type"))
	c := pod["containers"].([]any)[0].(map[string]any)
	require.Equal(t, "ghcr.io/cfzt/cfzt-operator:0.1.0", c["image"])
	require.Equal(t, []any{"/usr/local/bin/cfzt-runner", "--watch", "--interval=$(POLL_INTERVAL_SECONDS)", "--log-format=json", "--metrics-addr=:8080", "/ansible/playbooks/reconcile.yml"}, c["command"])
	sc := c["securityContext"].(map[string]any)
	require.Equal(t, true, sc["readOnlyRootFilesystem"])
	require.Equal(t, false, sc["allowPrivilegeEscalation"])
	require.Equal(t, []any{"ALL"}, nested(t, sc, "capabilities", "drop"))
	require.Equal(t, "/healthz", nested(t, c, "livenessProbe", "httpGet", "path"))
	require.Equal(t, "/readyz", nested(t, c, "readinessProbe", "httpGet", "path"))
	require.EqualValues(t, 8080, c["ports"].([]any)[0].(map[string]any)["containerPort"])
	require.Equal(t, "/tmp", c["volumeMounts"].([]any)[0].(map[string]any)["mountPath"])
	env := envMap(c)
	require.Equal(t, "manager", env["ROLE"])
	require.Equal(t, "60", env["POLL_INTERVAL_SECONDS"])
	require.Equal(t, "INFO", env["LOG_LEVEL"])
	require.Equal(t, "", env["WATCH_NAMESPACES"])
	require.Equal(t, "1", env["REPLICAS"])
	require.Contains(t, env, "POD_NAME")
	require.Equal(t, operatorName, env["OPERATOR_DEPLOYMENT"])
	require.Contains(t, env, "OPERATOR_NAMESPACE")

	// The chart's RBAC is deploy/rbac's.
	for _, kind := range []string{"ClusterRole", "Role"} {
		want := deployRBAC(t, kind)
		got := r.Find(kind, operatorName)
		require.NotNil(t, got, kind)
		require.Equal(t, jsonOf(t, want.Object["rules"]), jsonOf(t, got.Object["rules"]), "%s rules differ from deploy/rbac", kind)
	}
	for _, kind := range []string{"ClusterRoleBinding", "RoleBinding"} {
		want := deployRBAC(t, kind)
		got := r.Find(kind, operatorName)
		require.NotNil(t, got, kind)
		require.Equal(t, jsonOf(t, want.Object["roleRef"]), jsonOf(t, got.Object["roleRef"]), kind)
		require.Equal(t, jsonOf(t, want.Object["subjects"]), jsonOf(t, got.Object["subjects"]), kind)
	}
}

// TestRenderCustom checks that non-default values reach the objects.
func TestRenderCustom(t *testing.T) {
	r, err := Render(ChartDir(root), "custom", "cfzt-custom", customValues())
	require.NoError(t, err)
	kinds := r.Kinds()
	require.Contains(t, kinds, "CloudflareZeroTrustOperatorConfig/operator-config")
	require.Contains(t, kinds, "CloudflareZeroTrustTenant/example")
	require.Contains(t, kinds, "CloudflareZeroTrustTemplate/internal-app")
	require.Contains(t, kinds, "ServiceAccount/cfzt-sa")

	dep := r.Find("Deployment", "cfzt-operator")
	require.NotNil(t, dep, "%v", kinds)
	require.EqualValues(t, 2, nested(t, dep.Object, "spec", "replicas"))
	pod := nested(t, dep.Object, "spec", "template", "spec").(map[string]any)
	require.Equal(t, "cfzt-sa", pod["serviceAccountName"])
	require.Equal(t, "linux", nested(t, pod, "nodeSelector", "kubernetes.io/os"))
	require.Len(t, pod["tolerations"], 1)
	require.Equal(t, "platform", nested(t, dep.Object, "spec", "template", "metadata", "labels", "team"))
	c := pod["containers"].([]any)[0].(map[string]any)
	require.Equal(t, "registry.example.test/cfzt/operator:1.2.3", c["image"])
	require.Equal(t, "Always", c["imagePullPolicy"])
	require.Contains(t, c["command"], "--metrics-addr=:9090")
	require.Contains(t, c["command"], "--log-format=text")
	env := envMap(c)
	require.Equal(t, "apps,team-a", env["WATCH_NAMESPACES"])
	require.Equal(t, "15", env["POLL_INTERVAL_SECONDS"])
	require.Equal(t, "DEBUG", env["LOG_LEVEL"])
	require.Equal(t, "2", env["REPLICAS"])
	require.Equal(t, "1", env["EXTRA"])
	require.Equal(t, "512Mi", nested(t, c, "resources", "limits", "memory"))
	role := r.Find("Role", "cfzt-operator")
	require.Contains(t, jsonOf(t, role.Object["rules"]), `"resourceNames":["cfzt-operator","cloudflare-zero-trust-kube-worker","cloudflare-zero-trust-cloudflare-worker"]`)

	// Metrics off: no server, no probes, no Service.
	vals := customValues()
	vals["metrics"] = map[string]any{"enabled": false, "port": 8080}
	r, err = Render(ChartDir(root), "custom", "cfzt-custom", vals)
	require.NoError(t, err)
	require.Nil(t, r.Find("Service", "cfzt-operator-metrics"))
	c = nested(t, r.Find("Deployment", "cfzt-operator").Object, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
	require.NotContains(t, c, "livenessProbe")
	require.NotContains(t, strings.Join(toStrings(c["command"]), " "), "--metrics-addr")

	// The schema rejects bad values.
	vals = customValues()
	vals["logLevel"] = "LOUD"
	_, err = Render(ChartDir(root), "custom", "cfzt-custom", vals)
	require.ErrorContains(t, err, "logLevel")
}

// TestDryRunApply sends every rendered object of both value sets to the
// kube-apiserver as a server-side apply with dryRun=All, the way Helm would
// install them, and expects each to be accepted (schema, CRD validation,
// RBAC escalation checks).
func TestDryRunApply(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for name, tc := range map[string]struct {
		ns   string
		vals map[string]any
	}{
		"default": {operatorNamespace, nil},
		"custom":  {"cfzt-custom", customValues()},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := Render(ChartDir(root), name, tc.ns, tc.vals)
			require.NoError(t, err)
			for _, obj := range r.Objects {
				if obj.GetNamespace() == "" && isNamespaced(obj.GetKind()) {
					obj.SetNamespace(tc.ns)
				}
				_, err := applyObject(ctx, cluster, obj, true)
				require.NoError(t, err, "%s/%s", obj.GetKind(), obj.GetName())
			}
		})
	}
	// The dry run does validate: a sample tenant with a malformed account
	// ID is refused by the CRD's schema.
	vals := customValues()
	vals["samples"] = map[string]any{"enabled": true, "templates": []any{}, "tenants": []any{map[string]any{
		"name": "bad", "namespace": "apps", "spec": map[string]any{"accountId": "not-hex", "credentialRef": map[string]any{"name": "x"}}}}}
	r, err := Render(ChartDir(root), "custom", "cfzt-custom", vals)
	require.NoError(t, err)
	tenant := r.Find("CloudflareZeroTrustTenant", "bad")
	require.NotNil(t, tenant)
	_, err = applyObject(ctx, cluster, tenant, true)
	require.ErrorContains(t, err, "spec.accountId")
}

// TestInstallGrantsOperator applies the default render for real and asks
// the apiserver whether the operator's ServiceAccount (kubetest's operator
// token) may do what each tier does: the chart's RBAC binds to the right
// identity and grants enough.
func TestInstallGrantsOperator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := Render(ChartDir(root), "cfzt", operatorNamespace, nil)
	require.NoError(t, err)
	for _, obj := range r.Objects {
		_, err := applyObject(ctx, cluster, obj, false)
		require.NoError(t, err, "%s/%s", obj.GetKind(), obj.GetName())
	}
	op, err := kubernetes.NewForConfig(cluster.OperatorConfig)
	require.NoError(t, err)
	for _, ra := range []authv1.ResourceAttributes{
		{Verb: "list", Group: "gateway.networking.k8s.io", Resource: "httproutes"},
		{Verb: "patch", Group: "gateway.networking.k8s.io", Resource: "httproutes", Namespace: "apps"},
		{Verb: "list", Group: "cfzt.cloudflare.com", Resource: "cloudflarezerotrusttenants"},
		{Verb: "create", Group: "cfzt.cloudflare.com", Resource: "cloudflaretasks", Namespace: operatorNamespace},
		{Verb: "patch", Group: "cfzt.cloudflare.com", Resource: "cloudflaretasks", Subresource: "status", Namespace: operatorNamespace},
		{Verb: "create", Group: "", Resource: "configmaps", Namespace: operatorNamespace},
		{Verb: "get", Group: "", Resource: "secrets", Namespace: "apps"},
		{Verb: "patch", Group: "apps", Resource: "deployments", Name: "cloudflare-zero-trust-kube-worker", Namespace: operatorNamespace},
		{Verb: "create", Group: "coordination.k8s.io", Resource: "leases", Namespace: operatorNamespace},
	} {
		ra := ra
		res, err := op.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx,
			&authv1.SelfSubjectAccessReview{Spec: authv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &ra}}, metav1.CreateOptions{})
		require.NoError(t, err)
		require.True(t, res.Status.Allowed, "operator may not %s %s/%s in %q: %s", ra.Verb, ra.Group, ra.Resource, ra.Namespace, res.Status.Reason)
	}
	// ... and nothing it should not: reading Secrets' list cluster-wide.
	ra := authv1.ResourceAttributes{Verb: "list", Resource: "secrets", Namespace: "apps"}
	res, err := op.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx,
		&authv1.SelfSubjectAccessReview{Spec: authv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &ra}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.False(t, res.Status.Allowed, "operator may list Secrets outside its namespace")
}

func deployRBAC(t *testing.T, kind string) *unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "deploy", "rbac", "*.yaml"))
	require.NoError(t, err)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		objs, err := Decode(string(data))
		require.NoError(t, err)
		for _, o := range objs {
			if o.GetKind() == kind {
				return o
			}
		}
	}
	t.Fatalf("deploy/rbac has no %s", kind)
	return nil
}

func nested(t *testing.T, obj map[string]any, path ...string) any {
	t.Helper()
	v, ok, err := unstructured.NestedFieldNoCopy(obj, path...)
	require.NoError(t, err)
	require.True(t, ok, "no %s", strings.Join(path, "."))
	return v
}

func envMap(container map[string]any) map[string]string {
	out := map[string]string{}
	for _, e := range container["env"].([]any) {
		m := e.(map[string]any)
		v, _ := m["value"].(string)
		out[m["name"].(string)] = v
	}
	return out
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
