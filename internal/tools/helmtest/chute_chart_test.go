package helmtest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// chute's chart (deploy/chute/chart, docs/chute.md): its CRDs are copies
// of deploy/chute/crds, its RBAC is deploy/chute/rbac's, it lints clean
// and the apiserver accepts what it renders.

func chuteChartDir() string { return filepath.Join(root, "deploy", "chute", "chart") }

func chuteValues() map[string]any {
	return map[string]any{
		"fullnameOverride": "chute",
		"watchNamespace":   "apps,web",
		"leaderElect":      false,
		"chuteConfig": map[string]any{
			"create": true, "accountId": "0123456789abcdef0123456789abcdef",
			"zoneId": "fedcba9876543210fedcba9876543210", "baseDomain": "example.com",
		},
	}
}

func TestChuteChartCRDsAreDeployCopies(t *testing.T) {
	for _, name := range []string{"chuteconfig.yaml", "chuteinstance.yaml"} {
		want, err := os.ReadFile(filepath.Join(root, "deploy", "chute", "crds", name))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(chuteChartDir(), "crds", name))
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, got), "deploy/chute/chart/crds/%s differs from deploy/chute/crds/%s: copy it", name, name)
	}
}

func TestChuteChartLint(t *testing.T) {
	kv, err := chartutil.ParseKubeVersion(KubeVersion)
	require.NoError(t, err)
	for name, vals := range map[string]map[string]any{"default": nil, "custom": chuteValues()} {
		t.Run(name, func(t *testing.T) {
			l := lint.AllWithKubeVersion(chuteChartDir(), vals, "chute-system", kv)
			for _, m := range l.Messages {
				t.Logf("lint: %s", m)
				require.Less(t, m.Severity, support.WarningSev, "%s", m)
			}
		})
	}
}

func TestChuteChartRendersDeployRBACAndApplies(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := Render(chuteChartDir(), "chute", "chute-system", nil)
	require.NoError(t, err)
	byKind := map[string]*unstructured.Unstructured{}
	for _, obj := range r.Objects {
		byKind[obj.GetKind()] = obj
	}
	for _, k := range []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Deployment"} {
		require.Contains(t, byKind, k)
	}
	require.NotContains(t, byKind, "ChuteConfig", "not created by default")
	raw, err := os.ReadFile(filepath.Join(root, "deploy", "chute", "rbac", "clusterrole.yaml"))
	require.NoError(t, err)
	var deployRole map[string]any
	require.NoError(t, utilyaml.Unmarshal(raw, &deployRole))
	require.Equal(t, deployRole["rules"], byKind["ClusterRole"].Object["rules"], "the chart's rules are deploy/chute/rbac's")
	dep := byKind["Deployment"]
	containers, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
	require.Len(t, containers, 1)
	c := containers[0].(map[string]any)
	require.Equal(t, "ghcr.io/cfzt/chute-operator:0.1.0", c["image"])
	require.Contains(t, c["args"], "--leader-elect")
	require.Equal(t, true, c["securityContext"].(map[string]any)["readOnlyRootFilesystem"])

	// The CRDs for real (Helm installs crds/ first), then every object
	// of both value sets as a dry run.
	for _, crd := range r.CRDs {
		_, err := applyObject(ctx, cluster, crd, false)
		require.NoError(t, err, crd.GetName())
	}
	for _, name := range []string{"chuteconfigs.chutes.troubleshat.com", "chuteinstances.chutes.troubleshat.com"} {
		require.NoError(t, cluster.WaitForCRD(ctx, name))
	}
	for _, ns := range []string{"chute-system", "chute-custom"} {
		nsObj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
		_, err := applyObject(ctx, cluster, nsObj, false)
		require.NoError(t, err)
	}
	custom, err := Render(chuteChartDir(), "chute", "chute-custom", chuteValues())
	require.NoError(t, err)
	var config *unstructured.Unstructured
	for _, rendered := range []*Rendered{r, custom} {
		for _, obj := range rendered.Objects {
			if obj.GetKind() == "ChuteConfig" {
				config = obj
			}
			_, err := applyObject(ctx, cluster, obj, true)
			require.NoError(t, err, "%s/%s", obj.GetKind(), obj.GetName())
		}
	}
	require.NotNil(t, config)
	ns, _, _ := unstructured.NestedString(config.Object, "spec", "apiTokenSecretRef", "namespace")
	require.Equal(t, "chute-custom", ns, "the Secret is looked up in the release's namespace by default")

	// A ChuteConfig without its account is refused at render time.
	vals := chuteValues()
	vals["chuteConfig"].(map[string]any)["accountId"] = ""
	_, err = Render(chuteChartDir(), "chute", "chute-custom", vals)
	require.ErrorContains(t, err, "chuteConfig.accountId is required")
}
