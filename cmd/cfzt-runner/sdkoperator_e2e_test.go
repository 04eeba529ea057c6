package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/internal/gomod"
	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// moduleDir downloads a Go module from the proxy and returns its
// directory, skipping the test when the proxy cannot serve it.
func moduleDir(t *testing.T, mod string) string {
	t.Helper()
	dir, err := gomod.Download(mod)
	if err != nil {
		t.Skipf("cannot download from the Go module proxy: %v", err)
	}
	return dir
}

// syncBuffer is a bytes.Buffer safe for the operator's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func condition(obj *unstructured.Unstructured, typ string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return m
		}
	}
	return nil
}

// TestMemcachedSampleOperator runs operator-sdk's memcached sample
// (ansible-operator-plugins' testdata/memcached-molecule-operator: its
// watches.yaml, playbooks and roles as published) on a real
// kube-apiserver and checks what its molecule tests check: the CR becomes
// Successful, the Deployment has the CR's size and follows a scale, the
// custom status is written, the metrics roles define are served, and
// deletion runs the finalizer role before the CR goes away.
func TestMemcachedSampleOperator(t *testing.T) {
	reg, err := module.NewRegistry(moduleSets()...)
	require.NoError(t, err)
	for _, m := range []string{"ansible.builtin.stat", "ansible.builtin.file"} {
		if _, ok := reg.Lookup(m); !ok {
			t.Skipf("the memcached sample's role uses %s, which this build does not have yet", m)
		}
	}
	if os.Getenv("CFZT_KUBE_APISERVER") == "" {
		t.Skip("CFZT_KUBE_APISERVER is not set (see internal/kubetest)")
	}
	sample := filepath.Join(moduleDir(t, gomod.AnsibleOperatorPlugins), gomod.MemcachedSample)
	for _, rt := range sdkRuntimes() {
		t.Run(rt.name, func(t *testing.T) {
			if rt.skip != "" {
				t.Skip(rt.skip)
			}
			runMemcached(t, rt, sample)
		})
	}
}

func runMemcached(t *testing.T, rt sdkRuntime, sample string) {
	cluster, err := kubetest.Start(kubetest.Options{})
	require.NoError(t, err)
	t.Cleanup(cluster.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	crds, err := filepath.Glob(filepath.Join(sample, "config", "crd", "bases", "*.yaml"))
	require.NoError(t, err)
	for _, f := range crds {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, cluster.ApplyYAML(ctx, string(data)))
	}
	require.NoError(t, cluster.ApplyYAML(ctx, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: osdk-test\n"))

	// The role bumps its metrics only when /tmp/metricsbumped is absent.
	os.Remove("/tmp/metricsbumped")
	t.Cleanup(func() { os.Remove("/tmp/metricsbumped") })
	metricsAddr := freeAddr(t)
	logs := rt.start(t, sample, cluster.AdminKubeconfig, "", "--metrics-bind-address="+metricsAddr, "--reconcile-period=1h")
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(logs())
		}
	})

	dyn, err := dynamic.NewForConfig(cluster.AdminConfig)
	require.NoError(t, err)
	memcached := dyn.Resource(schema.GroupVersionResource{Group: "cache.example.com", Version: "v1alpha1", Resource: "memcacheds"}).Namespace("osdk-test")
	deployments := dyn.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}).Namespace("osdk-test")
	cr, err := os.ReadFile(filepath.Join(sample, "config", "samples", "cache_v1alpha1_memcached.yaml"))
	require.NoError(t, err)
	require.NoError(t, cluster.ApplyYAML(ctx, strings.Replace(string(cr), "metadata:\n", "metadata:\n  namespace: osdk-test\n", 1)))

	var obj *unstructured.Unstructured
	waitFor(t, 5*time.Minute, "the Memcached CR to become Successful", func() bool {
		obj, err = memcached.Get(ctx, "memcached-sample", metav1.GetOptions{})
		c := condition(obj, "Successful")
		return err == nil && c != nil && c["status"] == "True"
	})
	require.Equal(t, []string{"cache.example.com/finalizer"}, obj.GetFinalizers())
	test, _, _ := unstructured.NestedString(obj.Object, "status", "test")
	require.Equal(t, "hello world", test, "the role's k8s_status")
	running := condition(obj, "Running")
	require.Equal(t, "Successful", running["reason"])
	require.Equal(t, "Awaiting next reconciliation", running["message"])
	result, _ := running["ansibleResult"].(map[string]any)
	require.NotNil(t, result, "Running carries the ansibleResult")
	require.EqualValues(t, 0, result["failures"])
	require.Equal(t, "False", condition(obj, "Failure")["status"])

	dep, err := deployments.Get(ctx, "memcached-sample-memcached", metav1.GetOptions{})
	require.NoError(t, err)
	replicas, _, _ := unstructured.NestedInt64(dep.Object, "spec", "replicas")
	require.EqualValues(t, 1, replicas)
	refs := dep.GetOwnerReferences()
	require.Len(t, refs, 1, "--inject-owner-ref")
	require.Equal(t, "Memcached", refs[0].Kind)
	require.Equal(t, obj.GetUID(), refs[0].UID)

	// The secret role ran for the Secret the memcached role created.
	services := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "services"}).Namespace("default")
	var svc *unstructured.Unstructured
	waitFor(t, 5*time.Minute, "the secret role's test-service", func() bool {
		svc, err = services.Get(ctx, "test-service", metav1.GetOptions{})
		return err == nil
	})
	// Another namespace than its owner's: the owner is in annotations.
	require.Equal(t, "osdk-test/test-secret", svc.GetAnnotations()["operator-sdk/primary-resource"])
	require.Equal(t, "Secret", svc.GetAnnotations()["operator-sdk/primary-resource-type"])
	require.Empty(t, svc.GetOwnerReferences())

	metrics := httpGet(t, "http://"+metricsAddr+"/metrics")
	for _, want := range []string{
		`ansible_operator_build_info{`,
		`ansible_operator_reconcile_result{GVK="cache.example.com/v1alpha1, Kind=Memcached",result="succeeded"}`,
		`ansible_operator_reconciles_count{GVK="cache.example.com/v1alpha1, Kind=Memcached"}`,
		"sanity_counter 0", "sanity_gauge 0", "sanity_histogram_bucket", "# TYPE sanity_summary summary",
		"counter_inc_test 1", "counter_add_test 2", "gauge_set_test 5", "gauge_add_test 7", "gauge_sub_test -7",
		"gauge_time_test 1", "summary_test_sum 2", "histogram_test_sum 2",
		// The Go and process collectors, as controller-runtime serves them.
		"\ngo_goroutines ", "\ngo_memstats_heap_alloc_bytes ", "\nprocess_resident_memory_bytes ",
		"\nprocess_cpu_seconds_total ",
	} {
		require.Contains(t, metrics, want)
	}
	if rt.name == "cfzt-runner" {
		// cfzt-runner's build information (ansible-operator has its own
		// ansible_operator_build_info only).
		require.Regexp(t, `(?m)^cfzt_build_info\{goversion="go[^"]+",revision="[^"]+",version="`+regexp.QuoteMeta(version)+`"\} 1$`, metrics)
	}

	// Scale.
	_, err = memcached.Patch(ctx, "memcached-sample", "application/merge-patch+json", []byte(`{"spec":{"size":3}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	waitFor(t, 5*time.Minute, "the Deployment to scale to 3", func() bool {
		dep, err := deployments.Get(ctx, "memcached-sample-memcached", metav1.GetOptions{})
		n, _, _ := unstructured.NestedInt64(dep.Object, "spec", "replicas")
		return err == nil && n == 3
	})

	// Delete: the finalizer role (memfin) runs, then the finalizer comes off.
	require.NoError(t, memcached.Delete(ctx, "memcached-sample", metav1.DeleteOptions{}))
	waitFor(t, 5*time.Minute, "the Memcached CR to be deleted", func() bool {
		_, err := memcached.Get(ctx, "memcached-sample", metav1.GetOptions{})
		return err != nil
	})
	configmaps := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("osdk-test")
	_, err = configmaps.Get(ctx, "test-blacklist-watches", metav1.GetOptions{})
	require.NoError(t, err, "the finalizer role's ConfigMap")
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	var body string
	waitFor(t, 10*time.Second, url, func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		return resp.StatusCode == 200
	})
	return body
}
