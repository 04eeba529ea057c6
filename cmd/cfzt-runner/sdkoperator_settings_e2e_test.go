package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// settingsDir is a test operator whose role does what awx-operator's
// installer was seen doing in tests/realops's side-by-side runs (see its
// README).
const settingsDir = "../../tests/operators/settings-operator"

// TestSettingsOperator runs tests/operators/settings-operator: a Settings
// CR without a CPU limit gets WORKERS = 4 (the template's inline if gives
// Jinja2's Undefined, which `is defined` is false of), one with a limit of
// 3 gets WORKERS = 6; both become Successful. Before the fix, the first
// took the `is defined` branch and failed on the undefined limit.
func TestSettingsOperator(t *testing.T) {
	if os.Getenv("CFZT_KUBE_APISERVER") == "" {
		t.Skip("CFZT_KUBE_APISERVER is not set (see internal/kubetest)")
	}
	for _, rt := range sdkRuntimes() {
		t.Run(rt.name, func(t *testing.T) {
			if rt.skip != "" {
				t.Skip(rt.skip)
			}
			runSettings(t, rt)
		})
	}
}

// startSDKTestCluster starts a fresh kube-apiserver for a test operator
// in dir, installs its CRD (config/crd/crdFile) and makes namespace; it
// returns the cluster, a context for the test and a dynamic client.
func startSDKTestCluster(t *testing.T, dir, crdFile, namespace string) (*kubetest.Cluster, context.Context, dynamic.Interface) {
	t.Helper()
	cluster, err := kubetest.Start(kubetest.Options{})
	require.NoError(t, err)
	t.Cleanup(cluster.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	crd, err := os.ReadFile(filepath.Join(dir, "config", "crd", crdFile))
	require.NoError(t, err)
	require.NoError(t, cluster.ApplyYAML(ctx, string(crd)))
	require.NoError(t, cluster.ApplyYAML(ctx, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "+namespace+"\n"))
	dyn, err := dynamic.NewForConfig(cluster.AdminConfig)
	require.NoError(t, err)
	return cluster, ctx, dyn
}

func runSettings(t *testing.T, rt sdkRuntime) {
	dir, err := filepath.Abs(settingsDir) // the in-process operator changes directory
	require.NoError(t, err)
	cluster, ctx, dyn := startSDKTestCluster(t, dir, "settings.example.com_settings.yaml", "settings")
	crs := dyn.Resource(schema.GroupVersionResource{Group: "settings.example.com", Version: "v1alpha1", Resource: "settings"}).Namespace("settings")
	cms := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("settings")
	logs := rt.start(t, dir, cluster.AdminKubeconfig, "settings")
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(logs())
		}
	})
	require.NoError(t, cluster.ApplyYAML(ctx, `apiVersion: settings.example.com/v1alpha1
kind: Settings
metadata:
  name: nolimit
  namespace: settings
spec:
  resources:
    requests: {cpu: 100m}
`))
	require.NoError(t, cluster.ApplyYAML(ctx, `apiVersion: settings.example.com/v1alpha1
kind: Settings
metadata:
  name: limited
  namespace: settings
spec:
  resources:
    limits: {cpu: "3"}
`))
	for name, want := range map[string]string{
		"nolimit": "NAME = 'nolimit'\nWORKERS = 4\n",
		"limited": "NAME = 'limited'\nWORKERS = 6\n",
	} {
		waitFor(t, 3*time.Minute, name+" Successful", func() bool {
			obj, err := crs.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false
			}
			c := condition(obj, "Successful")
			return c != nil && c["status"] == "True"
		})
		cm, err := cms.Get(ctx, name+"-settings", metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, want, cm.Object["data"].(map[string]any)["settings.py"], name)
	}
}
