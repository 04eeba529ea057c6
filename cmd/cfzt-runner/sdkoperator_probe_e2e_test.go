package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// probeDir is a small operator written for these checks: see its README.
const probeDir = "../../tests/operators/probe-operator"

// TestProbeOperator runs the probe operator and checks, as
// ansible-operator v1.42.0 with kubernetes.core 6.1 behaves: `apply: true`
// creates with the last-applied annotation and the owner reference and
// drops a field the schema does not know; a SelfSubjectAccessReview gets
// no owner annotations; an ignored failure stays out of the status; a
// failed loop's Failure message is "One or more items failed"; the
// Failure condition of a successful run has an empty message and reason;
// task names are logged as "role : task"; and the apiserver's warning
// about the pruned ansibleResult is logged in JSON with the reconcile's
// fields.
func TestProbeOperator(t *testing.T) {
	if os.Getenv("CFZT_KUBE_APISERVER") == "" {
		t.Skip("CFZT_KUBE_APISERVER is not set (see internal/kubetest)")
	}
	for _, rt := range sdkRuntimes() {
		t.Run(rt.name, func(t *testing.T) {
			if rt.skip != "" {
				t.Skip(rt.skip)
			}
			runProbe(t, rt)
		})
	}
}

func runProbe(t *testing.T, rt sdkRuntime) {
	dir, err := filepath.Abs(probeDir)
	require.NoError(t, err)
	cluster, err := kubetest.Start(kubetest.Options{})
	require.NoError(t, err)
	t.Cleanup(cluster.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	crd, err := os.ReadFile(filepath.Join(dir, "config", "crd", "probe.example.com_probes.yaml"))
	require.NoError(t, err)
	require.NoError(t, cluster.ApplyYAML(ctx, string(crd)))
	require.NoError(t, cluster.ApplyYAML(ctx, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: probe\n"))
	dyn, err := dynamic.NewForConfig(cluster.AdminConfig)
	require.NoError(t, err)
	probes := dyn.Resource(schema.GroupVersionResource{Group: "probe.example.com", Version: "v1alpha1", Resource: "probes"}).Namespace("probe")
	cms := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("probe")
	logs := rt.start(t, dir, cluster.AdminKubeconfig, "probe")
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(logs())
		}
	})

	require.NoError(t, cluster.ApplyYAML(ctx, "apiVersion: probe.example.com/v1alpha1\nkind: Probe\nmetadata:\n  name: p1\n  namespace: probe\nspec:\n  greeting: hi\n"))
	var cr *unstructured.Unstructured
	waitFor(t, 5*time.Minute, "the Probe to succeed", func() bool {
		cr, err = probes.Get(ctx, "p1", metav1.GetOptions{})
		c := condition(cr, "Successful")
		return err == nil && c != nil && c["status"] == "True"
	})
	// The Failure condition of a successful run: False, with the empty
	// reason and message ansible-operator writes.
	failure := condition(cr, "Failure")
	require.Equal(t, "False", failure["status"])
	require.Equal(t, "", failure["reason"])
	require.Equal(t, "", failure["message"])

	cm, err := cms.Get(ctx, "p1-settings", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "hi", cm.Object["data"].(map[string]any)["greeting"])
	require.Equal(t, "True", cm.Object["data"].(map[string]any)["allowed"], "the review was created")
	require.NotContains(t, cm.Object, "unknownField")
	refs := cm.GetOwnerReferences()
	require.Len(t, refs, 1)
	require.Equal(t, "Probe", refs[0].Kind)
	require.Equal(t, "p1", refs[0].Name)
	require.Equal(t, cr.GetUID(), refs[0].UID)
	last := cm.GetAnnotations()["kubectl.kubernetes.io/last-applied-configuration"]
	require.Contains(t, last, `"greeting":"hi"`)
	require.NotContains(t, last, "ownerReferences")

	// A loop whose items fail: the loop's message, not the items'; the
	// ignored failure is not there either.
	_, err = probes.Patch(ctx, "p1", types.MergePatchType, []byte(`{"spec":{"brokenItems":["a","b"]}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	waitFor(t, 5*time.Minute, "the Failure condition", func() bool {
		cr, err = probes.Get(ctx, "p1", metav1.GetOptions{})
		failure = condition(cr, "Failure")
		return err == nil && failure != nil && failure["status"] == "True"
	})
	require.Equal(t, "One or more items failed", failure["message"])
	require.Equal(t, "Failed", failure["reason"])

	out := logs()
	require.Contains(t, out, `"probe : apply the settings"`)
	require.NotContains(t, out, dir+"/roles/probe :")
	// The apiserver prunes ansibleResult (not in the CRD's schema) and
	// warns; the warning is logged at info with the reconcile's fields, as
	// controller-runtime's handler logs it for ansible-operator.
	warned := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, `"msg":"unknown field \"status.conditions[`) {
			warned++
			require.Contains(t, line, `"level":"info"`)
			require.Contains(t, line, `"controller":"probe-v1alpha1-controller","object":{"name":"p1","namespace":"probe"},"namespace":"probe","name":"p1","reconcileID":"`)
			require.NotContains(t, line, `"logger"`)
		}
	}
	require.NotZero(t, warned)
}
