package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// pluginDir is a small operator written for this check: see its README.
const pluginDir = "../../tests/operators/plugin-operator"

// TestPluginOperator: a CR whose finalizer role uses a filter written in
// Python (issue 22, item 10, as kiali-operator's stripnone) is deleted:
// the finalizer role runs its filters, releases the ConfigMap the main
// role kept, and the operator removes the finalizer.
func TestPluginOperator(t *testing.T) {
	if os.Getenv("CFZT_KUBE_APISERVER") == "" {
		t.Skip("CFZT_KUBE_APISERVER is not set (see internal/kubetest)")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	for _, rt := range sdkRuntimes() {
		t.Run(rt.name, func(t *testing.T) {
			if rt.skip != "" {
				t.Skip(rt.skip)
			}
			runPluginOperator(t, rt)
		})
	}
}

func runPluginOperator(t *testing.T, rt sdkRuntime) {
	dir, err := filepath.Abs(pluginDir)
	require.NoError(t, err)
	cluster, err := kubetest.Start(kubetest.Options{})
	require.NoError(t, err)
	t.Cleanup(cluster.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	crd, err := os.ReadFile(filepath.Join(dir, "config", "crd", "plugin.example.com_keepers.yaml"))
	require.NoError(t, err)
	require.NoError(t, cluster.ApplyYAML(ctx, string(crd)))
	require.NoError(t, cluster.ApplyYAML(ctx, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: keep\n"))
	dyn, err := dynamic.NewForConfig(cluster.AdminConfig)
	require.NoError(t, err)
	keepers := dyn.Resource(schema.GroupVersionResource{Group: "plugin.example.com", Version: "v1alpha1", Resource: "keepers"}).Namespace("keep")
	cms := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("keep")
	logs := rt.start(t, dir, cluster.AdminKubeconfig, "keep")
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(logs())
		}
	})

	require.NoError(t, cluster.ApplyYAML(ctx, "apiVersion: plugin.example.com/v1alpha1\nkind: Keeper\nmetadata:\n  name: k1\n  namespace: keep\nspec:\n  note: hello\n"))
	waitFor(t, 5*time.Minute, "the Keeper to succeed", func() bool {
		cr, err := keepers.Get(ctx, "k1", metav1.GetOptions{})
		c := condition(cr, "Successful")
		return err == nil && c != nil && c["status"] == "True"
	})
	cr, err := keepers.Get(ctx, "k1", metav1.GetOptions{})
	require.NoError(t, err)
	require.Contains(t, cr.GetFinalizers(), "plugin.example.com/release")
	cm, err := cms.Get(ctx, "k1-kept", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "hello", cm.Object["data"].(map[string]any)["note"])

	require.NoError(t, keepers.Delete(ctx, "k1", metav1.DeleteOptions{}))
	waitFor(t, 5*time.Minute, "the Keeper to be deleted", func() bool {
		_, err := keepers.Get(ctx, "k1", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	// No garbage collector runs beside the bare apiserver: the ConfigMap
	// is gone because the finalizer role deleted it.
	_, err = cms.Get(ctx, "k1-kept", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the finalizer released the ConfigMap: %v", err)
}
