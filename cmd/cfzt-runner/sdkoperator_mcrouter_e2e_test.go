package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
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

// mcrouterDir is the mcrouter operator (Jeff Geerling's mcrouter-operator,
// built on ansible-operator), reimplemented from its public documentation:
// see its README.
const mcrouterDir = "../../tests/operators/mcrouter-operator"

// sdkRuntime starts an operator-sdk Ansible operator whose watches.yaml is
// in dir, watching namespace ns (all when empty) of the cluster with
// kubeconfig, with extra `run` flags, and returns its log so far on
// demand. The operator stops at the end of the test.
type sdkRuntime struct {
	name string
	// skip says why the runtime cannot run here; "" when it can.
	skip  string
	start func(t *testing.T, dir, kubeconfig, ns string, flags ...string) (logs func() string)
}

// sdkRuntimes are cfzt-runner's operator mode, in process, and, when
// CFZT_ANSIBLE_OPERATOR names the bin directory that
// hack/install-ansible-operator.sh prints, ansible-operator itself, so
// that one run shows both behave alike on the same operator.
func sdkRuntimes() []sdkRuntime {
	ao := sdkRuntime{name: "ansible-operator", start: startAnsibleOperator}
	if os.Getenv("CFZT_ANSIBLE_OPERATOR") == "" {
		ao.skip = "CFZT_ANSIBLE_OPERATOR is not set (the bin directory hack/install-ansible-operator.sh prints)"
	}
	return []sdkRuntime{{name: "cfzt-runner", start: startInProcess}, ao}
}

func startInProcess(t *testing.T, dir, kubeconfig, ns string, flags ...string) func() string {
	t.Setenv("KUBECONFIG", kubeconfig)
	t.Setenv("WATCH_NAMESPACE", ns)
	t.Chdir(dir)
	var logs syncBuffer
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- runSDKOperator(ctx, append([]string{"--watches-file=./watches.yaml", "--metrics-bind-address=0",
			"--health-probe-bind-address=0"}, flags...), &logs, &logs)
	}()
	t.Cleanup(func() { stop(); <-done })
	return logs.String
}

func startAnsibleOperator(t *testing.T, dir, kubeconfig, ns string, flags ...string) func() string {
	bin := os.Getenv("CFZT_ANSIBLE_OPERATOR")
	// The test-only operator_sdk.util modules for the reference Ansible.
	shims, err := filepath.Abs("../../bench/ansible-shims")
	require.NoError(t, err)
	// Its API proxy and user-metrics server have fixed ports (8888, 5050);
	// the others are free ones.
	cmd := exec.Command(filepath.Join(bin, "ansible-operator"), append([]string{"run", "--watches-file=./watches.yaml",
		"--metrics-bind-address=" + freeAddr(t), "--health-probe-bind-address=" + freeAddr(t)}, flags...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "KUBECONFIG="+kubeconfig, "WATCH_NAMESPACE="+ns,
		"ANSIBLE_ROLES_PATH="+filepath.Join(dir, "roles"), "ANSIBLE_COLLECTIONS_PATH="+shims, "HOME="+t.TempDir())
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		os.RemoveAll("/tmp/ansible-operator/runner")
	})
	return logs.String
}

// mcrouterEnv is one run of the mcrouter operator on a fresh apiserver.
type mcrouterEnv struct {
	t          *testing.T
	ctx        context.Context
	dyn        dynamic.Interface
	ns         string
	mcrouters  dynamic.ResourceInterface
	deps, sets dynamic.ResourceInterface
	services   dynamic.ResourceInterface
}

// TestMcrouterOperator runs the mcrouter operator and checks what its
// README says an Mcrouter CR does: a memcached StatefulSet of
// memcached_pool_size pods (app=mcrouter-cache) behind a headless Service,
// and an mcrouter Deployment (app=mcrouter) with its Service, whose
// --config-str lists every memcached pod and routes by pool_setup
// (replicated: sets to all, gets from one; sharded: keys hashed). Changing
// memcached_pool_size scales the pool and the server list, the status
// reads "Awaiting next reconciliation" once done, a bad spec is reported
// in the Failure condition, and the objects are owned by the CR.
func TestMcrouterOperator(t *testing.T) {
	if os.Getenv("CFZT_KUBE_APISERVER") == "" {
		t.Skip("CFZT_KUBE_APISERVER is not set (see internal/kubetest)")
	}
	for _, rt := range sdkRuntimes() {
		t.Run(rt.name, func(t *testing.T) {
			if rt.skip != "" {
				t.Skip(rt.skip)
			}
			runMcrouter(t, rt)
		})
	}
}

func runMcrouter(t *testing.T, rt sdkRuntime) {
	dir, err := filepath.Abs(mcrouterDir) // the in-process operator changes directory
	require.NoError(t, err)
	cluster, err := kubetest.Start(kubetest.Options{})
	require.NoError(t, err)
	t.Cleanup(cluster.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	t.Cleanup(cancel)
	crd, err := os.ReadFile(filepath.Join(dir, "config", "crd", "mcrouter.example.com_mcrouters.yaml"))
	require.NoError(t, err)
	require.NoError(t, cluster.ApplyYAML(ctx, string(crd)))
	require.NoError(t, cluster.ApplyYAML(ctx, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: mcrouter\n"))
	dyn, err := dynamic.NewForConfig(cluster.AdminConfig)
	require.NoError(t, err)
	e := &mcrouterEnv{t: t, ctx: ctx, dyn: dyn, ns: "mcrouter",
		mcrouters: dyn.Resource(schema.GroupVersionResource{Group: "mcrouter.example.com", Version: "v1alpha3", Resource: "mcrouters"}).Namespace("mcrouter"),
		deps:      dyn.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}).Namespace("mcrouter"),
		sets:      dyn.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}).Namespace("mcrouter"),
		services:  dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "services"}).Namespace("mcrouter"),
	}
	logs := rt.start(t, dir, cluster.AdminKubeconfig, e.ns)
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(logs())
		}
	})

	// Create: the README's example.
	sample, err := os.ReadFile(filepath.Join(dir, "config", "samples", "my-mcrouter.yaml"))
	require.NoError(t, err)
	require.NoError(t, cluster.ApplyYAML(ctx, strings.Replace(string(sample), "metadata:\n", "metadata:\n  namespace: mcrouter\n", 1)))
	cr := e.expectPool(3, "replicated", 5000)
	require.Equal(t, "Awaiting next reconciliation", condition(cr, "Running")["message"])
	require.Equal(t, "False", condition(cr, "Failure")["status"])

	// Scale, as the README's "Testing the operator is working as expected".
	e.patch(`{"spec":{"memcached_pool_size":4}}`)
	e.expectPool(4, "replicated", 5000)

	// Change the routing and the port.
	e.patch(`{"spec":{"pool_setup":"sharded","mcrouter_port":5001}}`)
	e.expectPool(4, "sharded", 5001)

	// A pool setup the README does not allow fails the run.
	e.patch(`{"spec":{"pool_setup":"mirrored"}}`)
	var failure map[string]any
	e.waitFor("the Failure condition", func() bool {
		obj, err := e.mcrouters.Get(ctx, "my-mcrouter", metav1.GetOptions{})
		failure = condition(obj, "Failure")
		return err == nil && failure != nil && failure["status"] == "True"
	})
	require.Contains(t, failure["message"], "pool_setup must be 'sharded' or 'replicated', not 'mirrored'")
	e.patch(`{"spec":{"pool_setup":"replicated"}}`)
	e.expectPool(4, "replicated", 5001)

	// Delete: the operator has no finalizer; the CR goes at once and owns
	// what it made, which Kubernetes' garbage collector then deletes.
	require.NoError(t, e.mcrouters.Delete(ctx, "my-mcrouter", metav1.DeleteOptions{}))
	e.waitFor("the Mcrouter to be deleted", func() bool {
		_, err := e.mcrouters.Get(ctx, "my-mcrouter", metav1.GetOptions{})
		return err != nil
	})
}

func (e *mcrouterEnv) waitFor(what string, cond func() bool) {
	e.t.Helper()
	waitFor(e.t, 5*time.Minute, what, cond)
}

func (e *mcrouterEnv) patch(body string) {
	e.t.Helper()
	_, err := e.mcrouters.Patch(e.ctx, "my-mcrouter", types.MergePatchType, []byte(body), metav1.PatchOptions{})
	require.NoError(e.t, err)
}

// expectPool waits until the CR is Successful, with no failed task, and
// its objects are those of a pool of size memcached pods routed by setup,
// mcrouter listening on port; it fails the test with the last difference
// otherwise.
func (e *mcrouterEnv) expectPool(size int, setup string, port int64) *unstructured.Unstructured {
	e.t.Helper()
	var obj *unstructured.Unstructured
	var last error
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		var err error
		if obj, err = e.mcrouters.Get(e.ctx, "my-mcrouter", metav1.GetOptions{}); err == nil {
			if last = e.poolError(obj, size, setup, port); last == nil {
				return obj
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	e.t.Fatalf("the Mcrouter's objects: %v", last)
	return nil
}

func (e *mcrouterEnv) replicas() int64 {
	set, err := e.sets.Get(e.ctx, "my-mcrouter-memcached", metav1.GetOptions{})
	if err != nil {
		return -1
	}
	n, _, _ := unstructured.NestedInt64(set.Object, "spec", "replicas")
	return n
}

// command is the mcrouter container's command line.
func (e *mcrouterEnv) command() []string {
	dep, err := e.deps.Get(e.ctx, "my-mcrouter-mcrouter", metav1.GetOptions{})
	if err != nil {
		return nil
	}
	containers, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
	if len(containers) != 1 {
		return nil
	}
	cmd, _, _ := unstructured.NestedStringSlice(containers[0].(map[string]any), "command")
	return cmd
}

func (e *mcrouterEnv) configStr() string {
	for _, arg := range e.command() {
		if s, ok := strings.CutPrefix(arg, "--config-str="); ok {
			return s
		}
	}
	return ""
}

// poolError compares the CR's status and its four objects with those of
// a pool of size pods routed by setup, mcrouter listening on port.
func (e *mcrouterEnv) poolError(cr *unstructured.Unstructured, size int, setup string, port int64) error {
	result, _ := condition(cr, "Running")["ansibleResult"].(map[string]any)
	switch {
	case condition(cr, "Successful")["status"] != "True":
		return fmt.Errorf("not Successful: %v", cr.Object["status"])
	case result == nil || fmt.Sprint(result["failures"]) != "0":
		return fmt.Errorf("ansibleResult %v", result)
	case e.replicas() != int64(size):
		return fmt.Errorf("StatefulSet replicas %d", e.replicas())
	}
	set, err := e.sets.Get(e.ctx, "my-mcrouter-memcached", metav1.GetOptions{})
	if err != nil {
		return err
	}
	svc, err := e.services.Get(e.ctx, "my-mcrouter-memcached", metav1.GetOptions{})
	if err != nil {
		return err
	}
	dep, err := e.deps.Get(e.ctx, "my-mcrouter-mcrouter", metav1.GetOptions{})
	if err != nil {
		return err
	}
	mc, err := e.services.Get(e.ctx, "my-mcrouter-mcrouter", metav1.GetOptions{})
	if err != nil {
		return err
	}
	clusterIP, _, _ := unstructured.NestedString(svc.Object, "spec", "clusterIP")
	ports, _, _ := unstructured.NestedSlice(mc.Object, "spec", "ports")
	got := map[string]any{
		"memcached app label": set.GetLabels()["app"], "memcached clusterIP": clusterIP,
		"mcrouter app label": dep.GetLabels()["app"], "mcrouter ports": ports,
		"mcrouter --port": slices.Contains(e.command(), fmt.Sprintf("--port=%d", port)),
	}
	want := map[string]any{
		"memcached app label": "mcrouter-cache", "memcached clusterIP": "None", // one DNS name per pod
		"mcrouter app label": "mcrouter", "mcrouter ports": []any{map[string]any{"name": "mcrouter", "port": port, "protocol": "TCP", "targetPort": port}},
		"mcrouter --port": true,
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("got %v, want %v", got, want)
	}
	if err := configError(e.configStr(), size, setup); err != nil {
		return err
	}
	for _, obj := range []*unstructured.Unstructured{set, svc, dep, mc} {
		if refs := obj.GetOwnerReferences(); len(refs) != 1 || refs[0].UID != cr.GetUID() {
			return fmt.Errorf("%s %s is not owned by the Mcrouter alone: %v", obj.GetKind(), obj.GetName(), refs)
		}
	}
	return nil
}

// configError checks mcrouter's --config-str: every memcached pod by its
// DNS name, routed as setup says.
func configError(configStr string, size int, setup string) error {
	var config struct {
		Pools map[string]struct{ Servers []string }
		Route any
	}
	if err := json.Unmarshal([]byte(configStr), &config); err != nil {
		return fmt.Errorf("--config-str %q: %w", configStr, err)
	}
	var servers []string
	for i := range size {
		servers = append(servers, fmt.Sprintf("my-mcrouter-memcached-%d.my-mcrouter-memcached.mcrouter.svc.cluster.local:11211", i))
	}
	var route any = "PoolRoute|cache" // sharded: keys hashed over the pool
	if setup == "replicated" {        // sets to every server, gets from one
		route = map[string]any{"type": "OperationSelectorRoute", "default_policy": "PoolRoute|cache",
			"operation_policies": map[string]any{"add": "AllSyncRoute|Pool|cache", "delete": "AllSyncRoute|Pool|cache",
				"get": "LatestRoute|Pool|cache", "set": "AllSyncRoute|Pool|cache"}}
	}
	if !reflect.DeepEqual(servers, config.Pools["cache"].Servers) || !reflect.DeepEqual(route, config.Route) {
		return fmt.Errorf("--config-str %s, want servers %v and route %v", configStr, servers, route)
	}
	return nil
}
