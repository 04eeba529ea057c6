package k8s

// Tests against a cluster that behaves: kube-controller-manager,
// kube-scheduler and KWOK fake nodes run next to the apiserver, so
// Deployments roll out, pods become Ready and evicted pods go away. The
// rest of this package uses the bare apiserver of TestMain.

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
)

var (
	rsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
)

// fullCluster is the cluster of TestCluster's subtests.
type fullCluster struct {
	*kubetest.Cluster
}

func (f fullCluster) env() map[string]string {
	return map[string]string{
		"K8S_AUTH_HOST":        f.Host,
		"K8S_AUTH_API_KEY":     f.AdminToken,
		"K8S_AUTH_SSL_CA_CERT": f.CAFile,
		"KUBECONFIG":           "/nonexistent",
	}
}

// ok runs a module call against this cluster; it must succeed.
func (f fullCluster) ok(t *testing.T, mod, args string) *value.Dict {
	t.Helper()
	return ok(t, call{mod: mod, args: args, env: f.env()})
}

func (f fullCluster) fails(t *testing.T, mod, args string) (*value.Dict, string) {
	t.Helper()
	return fails(t, call{mod: mod, args: args, env: f.env()})
}

// live reads an object; nil when absent.
func (f fullCluster) live(t *testing.T, gvr schema.GroupVersionResource, ns, name string) *unstructured.Unstructured {
	t.Helper()
	dyn, err := f.Dynamic()
	require.NoError(t, err)
	obj, err := dyn.Resource(gvr).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		require.Contains(t, err.Error(), "not found")
		return nil
	}
	return obj
}

func (f fullCluster) list(t *testing.T, gvr schema.GroupVersionResource, ns, selector string) []unstructured.Unstructured {
	t.Helper()
	dyn, err := f.Dynamic()
	require.NoError(t, err)
	l, err := dyn.Resource(gvr).Namespace(ns).List(context.Background(), metav1.ListOptions{LabelSelector: selector})
	require.NoError(t, err)
	return l.Items
}

// eventually polls cond; the bound only ends a broken run. On a timeout
// the optional describe functions say what the cluster looks like.
func eventually(t *testing.T, what string, cond func() bool, describe ...func() string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 90*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		for _, d := range describe {
			t.Log(d())
		}
	}
	require.NoError(t, err, "waiting for %s", what)
}

// describePods lists pods with their node, phase and deletion state.
func describePods(t *testing.T, f fullCluster, ns, selector string) func() string {
	return func() string {
		var b strings.Builder
		for _, p := range f.list(t, podGVR, ns, selector) {
			spec, _ := p.Object["spec"].(map[string]any)
			st, _ := p.Object["status"].(map[string]any)
			fmt.Fprintf(&b, "pod %s node=%v phase=%v deleting=%v conditions=%v\n", p.GetName(), spec["nodeName"], st["phase"], p.GetDeletionTimestamp() != nil, st["conditions"])
		}
		nodes := f.list(t, nodeGVR, "", "")
		for _, n := range nodes {
			spec, _ := n.Object["spec"].(map[string]any)
			fmt.Fprintf(&b, "node %s labels=%v unschedulable=%v taints=%v\n", n.GetName(), n.GetLabels(), spec["unschedulable"], spec["taints"])
		}
		return b.String()
	}
}

func podTemplate(app, image string) string { return podTemplateWith(app, image, "") }

// podTemplateWith adds extraPodSpec (", key: value...") to the pod spec.
func podTemplateWith(app, image, extraPodSpec string) string {
	return "{metadata: {labels: {app: " + app + "}}, spec: {containers: [{name: main, image: '" + image + "'}]" + extraPodSpec + "}}"
}

func deploymentDef(ns, name string, replicas int, image, extraPodSpec string) string {
	return "{apiVersion: apps/v1, kind: Deployment, metadata: {name: " + name + ", namespace: " + ns + "}, spec: {replicas: " +
		value.Str(replicas) + ", selector: {matchLabels: {app: " + name + "}}, template: " + podTemplateWith(name, image, extraPodSpec) + "}}"
}

func i64(v any) int64 {
	switch n := v.(type) {
	case int:
		return int64(n)
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return -1
}

// TestCluster runs kubernetes.core's waits, k8s_scale, k8s_rollback and
// k8s_drain against real controllers, a real scheduler and KWOK nodes.
func TestCluster(t *testing.T) {
	c, err := kubetest.Start(kubetest.Options{Controllers: true, Scheduler: true, FakeNodes: 2})
	require.NoError(t, err)
	defer c.Stop()
	f := fullCluster{c}
	ns := "cluster"
	f.ok(t, "k8s", "{api_version: v1, kind: Namespace, name: "+ns+"}")

	t.Run("WaitDeployment", func(t *testing.T) {
		res := f.ok(t, "k8s", "{wait: true, wait_timeout: 60, wait_sleep: 1, definition: "+deploymentDef(ns, "web", 3, "nginx:1", "")+"}")
		require.True(t, changed(res))
		// The module returns the object it waited for: rolled out.
		st := get(t, res, "result.status")
		require.EqualValues(t, 3, i64(get(t, st, "availableReplicas")))
		require.EqualValues(t, 3, i64(get(t, st, "readyReplicas")))
		require.EqualValues(t, 3, i64(get(t, st, "updatedReplicas")))
		require.Contains(t, res.Keys(), "duration")
		pods := f.list(t, podGVR, ns, "app=web")
		require.Len(t, pods, 3)
		for _, p := range pods {
			require.Equal(t, "Running", p.Object["status"].(map[string]any)["phase"])
		}
	})

	t.Run("WaitDeploymentNeverReady", func(t *testing.T) {
		// No node has the label: the pods stay Pending and the wait must
		// not call the Deployment ready.
		res, msg := f.fails(t, "k8s", "{wait: true, wait_timeout: 3, wait_sleep: 1, definition: "+
			deploymentDef(ns, "stuck", 1, "nginx:1", ", nodeSelector: {nonesuch: 'true'}")+"}")
		require.Equal(t, `"Deployment" "stuck": Timed out waiting on resource`, msg)
		require.NotEqualValues(t, 1, i64(field(get(t, res, "result"), "status", "availableReplicas")))
		for _, p := range f.list(t, podGVR, ns, "app=stuck") {
			require.Equal(t, "Pending", p.Object["status"].(map[string]any)["phase"])
		}
	})

	t.Run("WaitDaemonSet", func(t *testing.T) {
		res := f.ok(t, "k8s", "{wait: true, wait_timeout: 60, wait_sleep: 1, definition: {apiVersion: apps/v1, kind: DaemonSet, metadata: {name: agent, namespace: "+ns+
			"}, spec: {selector: {matchLabels: {app: agent}}, template: "+podTemplate("agent", "agent:1")+"}}}")
		st := get(t, res, "result.status")
		require.EqualValues(t, 2, i64(get(t, st, "desiredNumberScheduled")), "one pod per fake node")
		require.EqualValues(t, 2, i64(get(t, st, "numberReady")))
		require.EqualValues(t, 2, i64(get(t, st, "updatedNumberScheduled")))
	})

	t.Run("WaitStatefulSet", func(t *testing.T) {
		res := f.ok(t, "k8s", "{wait: true, wait_timeout: 60, wait_sleep: 1, definition: {apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, namespace: "+ns+
			"}, spec: {serviceName: db, replicas: 3, selector: {matchLabels: {app: db}}, template: "+podTemplate("db", "db:1")+"}}}")
		st := get(t, res, "result.status")
		require.EqualValues(t, 3, i64(get(t, st, "readyReplicas")))
		require.Equal(t, get(t, st, "currentRevision"), get(t, st, "updateRevision"))
		for i := 0; i < 3; i++ {
			require.NotNil(t, f.live(t, podGVR, ns, "db-"+value.Str(i)), "ordinal pods")
		}

		// A rolling update is waited for until every pod runs the new
		// revision.
		res = f.ok(t, "k8s", "{wait: true, wait_timeout: 60, wait_sleep: 1, definition: {apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, namespace: "+ns+
			"}, spec: {serviceName: db, replicas: 3, selector: {matchLabels: {app: db}}, template: "+podTemplate("db", "db:2")+"}}}")
		st = get(t, res, "result.status")
		require.Equal(t, get(t, st, "currentRevision"), get(t, st, "updateRevision"))
		require.EqualValues(t, 3, i64(get(t, st, "updatedReplicas")))
		for i := 0; i < 3; i++ {
			p := f.live(t, podGVR, ns, "db-"+value.Str(i))
			require.Equal(t, "db:2", p.Object["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"])
		}
	})

	t.Run("WaitPod", func(t *testing.T) {
		res := f.ok(t, "k8s", "{wait: true, wait_timeout: 60, wait_sleep: 1, definition: {apiVersion: v1, kind: Pod, metadata: {name: solo, namespace: "+ns+
			"}, spec: {containers: [{name: a, image: a}, {name: b, image: b}]}}}")
		cs := get(t, res, "result.status.containerStatuses").([]any)
		require.Len(t, cs, 2)
		for _, s := range cs {
			require.Equal(t, true, get(t, s, "ready"))
		}
		require.Equal(t, "Running", get(t, res, "result.status.phase"))
		require.NotEmpty(t, get(t, res, "result.spec.nodeName"))

		// wait_condition on a real condition the kubelet (KWOK) set.
		res = f.ok(t, "k8s", "{wait: true, wait_timeout: 30, wait_sleep: 1, wait_condition: {type: Ready, status: 'True'}, definition: {apiVersion: v1, kind: Pod, metadata: {name: solo, namespace: "+ns+
			"}, spec: {containers: [{name: a, image: a}, {name: b, image: b}]}}}")
		require.False(t, changed(res))
		// state: absent with wait returns once the pod is really gone.
		f.ok(t, "k8s", "{state: absent, wait: true, wait_timeout: 60, wait_sleep: 1, api_version: v1, kind: Pod, name: solo, namespace: "+ns+"}")
		require.Nil(t, f.live(t, podGVR, ns, "solo"))
	})

	t.Run("ScaleWithWait", func(t *testing.T) {
		f.ok(t, "k8s", "{wait: true, wait_timeout: 60, wait_sleep: 1, definition: "+deploymentDef(ns, "scaled", 1, "nginx:1", "")+"}")
		res := f.ok(t, "k8s_scale", "{api_version: apps/v1, kind: Deployment, name: scaled, namespace: "+ns+", replicas: 4, wait: true, wait_timeout: 60, wait_sleep: 1}")
		require.True(t, changed(res))
		require.EqualValues(t, 4, i64(get(t, res, "result.status.availableReplicas")))
		require.Len(t, f.list(t, podGVR, ns, "app=scaled"), 4)

		res = f.ok(t, "k8s_scale", "{api_version: apps/v1, kind: Deployment, name: scaled, namespace: "+ns+", replicas: 1, current_replicas: 4, wait: true, wait_timeout: 60, wait_sleep: 1}")
		require.True(t, changed(res))
		require.EqualValues(t, 1, i64(get(t, res, "result.status.availableReplicas")))
		eventually(t, "the extra pods to go", func() bool { return len(f.list(t, podGVR, ns, "app=scaled")) == 1 })

		// A StatefulSet scales through its own controller too.
		res = f.ok(t, "k8s_scale", "{api_version: apps/v1, kind: StatefulSet, name: db, namespace: "+ns+", replicas: 1, wait: true, wait_timeout: 60, wait_sleep: 1}")
		require.EqualValues(t, 1, i64(get(t, res, "result.status.readyReplicas")))
	})

	t.Run("Rollback", func(t *testing.T) {
		f.ok(t, "k8s", "{wait: true, wait_timeout: 60, wait_sleep: 1, definition: "+deploymentDef(ns, "roll", 2, "app:1", "")+"}")
		f.ok(t, "k8s", "{wait: true, wait_timeout: 60, wait_sleep: 1, definition: "+deploymentDef(ns, "roll", 2, "app:2", "")+"}")
		// The deployment controller made one ReplicaSet per revision.
		require.Len(t, f.list(t, rsGVR, ns, "app=roll"), 2)
		require.Equal(t, "2", f.live(t, deployGVR, ns, "roll").GetAnnotations()["deployment.kubernetes.io/revision"])

		res := f.ok(t, "k8s_rollback", "{api_version: apps/v1, kind: Deployment, name: roll, namespace: "+ns+"}")
		require.True(t, changed(res))
		eventually(t, "the rollback to roll out", func() bool {
			d := f.live(t, deployGVR, ns, "roll")
			st, _ := d.Object["status"].(map[string]any)
			return d.GetAnnotations()["deployment.kubernetes.io/revision"] == "3" &&
				i64(st["updatedReplicas"]) == 2 && i64(st["availableReplicas"]) == 2 && i64(st["replicas"]) == 2 &&
				i64(st["observedGeneration"]) == d.GetGeneration()
		})
		d := f.live(t, deployGVR, ns, "roll")
		image := d.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"]
		require.Equal(t, "app:1", image)
		for _, p := range f.list(t, podGVR, ns, "app=roll") {
			if p.GetDeletionTimestamp() == nil {
				require.Equal(t, "app:1", p.Object["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"])
			}
		}
		// The controller reused revision 1's ReplicaSet: still two.
		require.Len(t, f.list(t, rsGVR, ns, "app=roll"), 2)
	})

	t.Run("Drain", func(t *testing.T) {
		_, err := c.AddFakeNode(context.Background(), "drained", map[string]string{"pool": "drain"})
		require.NoError(t, err)
		_, err = c.AddFakeNode(context.Background(), "spare", map[string]string{"pool": "drain"})
		require.NoError(t, err)
		f.ok(t, "k8s", "{api_version: v1, kind: Namespace, name: drain}")
		f.ok(t, "k8s", "{wait: true, wait_timeout: 60, wait_sleep: 1, definition: "+
			deploymentDef("drain", "movable", 4, "nginx:1", ", nodeSelector: {pool: drain}")+"}")
		f.ok(t, "k8s", "{wait: true, wait_timeout: 60, wait_sleep: 1, definition: {apiVersion: apps/v1, kind: DaemonSet, metadata: {name: node-agent, namespace: drain"+
			"}, spec: {selector: {matchLabels: {app: node-agent}}, template: "+podTemplateWith("node-agent", "agent:1", ", nodeSelector: {pool: drain}")+"}}}")
		dsPodOn := func(node string) string {
			for _, p := range f.list(t, podGVR, "drain", "app=node-agent") {
				if p.Object["spec"].(map[string]any)["nodeName"] == node {
					return p.GetName()
				}
			}
			return ""
		}
		require.NotEmpty(t, dsPodOn("drained"))
		onDrained := func() []string {
			var names []string
			for _, p := range f.list(t, podGVR, "drain", "app=movable") {
				if p.Object["spec"].(map[string]any)["nodeName"] == "drained" && p.GetDeletionTimestamp() == nil {
					names = append(names, p.GetName())
				}
			}
			return names
		}
		// Put every pod on "drained": drain spare (the replacements can
		// only go to drained), then make spare schedulable again.
		res := f.ok(t, "k8s_drain", "{name: spare, state: drain, delete_options: {ignore_daemonsets: true, wait_timeout: 60, wait_sleep: 1}}")
		require.Equal(t, "node spare marked unschedulable. 2 Pod(s) deleted from node.", get(t, res, "result"))
		f.ok(t, "k8s_drain", "{name: spare, state: uncordon}")
		eventually(t, "4 pods on the drained node", func() bool { return len(onDrained()) == 4 }, describePods(t, f, "drain", "app=movable"))
		before := onDrained()

		// An unmanaged pod on the node stops the drain without force.
		f.ok(t, "k8s", "{definition: {apiVersion: v1, kind: Pod, metadata: {name: bare, namespace: drain}, spec: {nodeName: drained, containers: [{name: c, image: c}]}}}")
		_, msg := f.fails(t, "k8s_drain", "{name: drained, state: drain, delete_options: {ignore_daemonsets: true}}")
		require.Contains(t, msg, "cannot delete Pods not managed by ReplicationController, ReplicaSet, Job, DaemonSet or StatefulSet")
		require.Contains(t, msg, "drain/bare")
		require.False(t, unschedulableIn(t, f, "drained"), "a failed drain uncordons the node again")

		res = f.ok(t, "k8s_drain", "{name: drained, state: drain, delete_options: {force: true, ignore_daemonsets: true, wait_timeout: 60, wait_sleep: 1}}")
		require.True(t, changed(res))
		require.Equal(t, "node drained marked unschedulable. 5 Pod(s) deleted from node.", get(t, res, "result"))
		// kubernetes.core's warnings: the forced bare pod and the ignored
		// DaemonSet pods; no "timeout reached" (every evicted pod went).
		var warnings []string
		for _, w := range get(t, res, "warnings").([]any) {
			warnings = append(warnings, value.Str(w))
		}
		require.Len(t, warnings, 2, "%q", warnings)
		require.Equal(t, "Deleting Pods not managed by ReplicationController, ReplicaSet, Job, DaemonSet or StatefulSet: drain/bare.", warnings[0])
		require.True(t, strings.HasPrefix(warnings[1], "Ignoring DaemonSet-managed Pods: "), warnings[1])
		require.Contains(t, warnings[1], "drain/"+dsPodOn("drained"))
		require.True(t, unschedulableIn(t, f, "drained"))
		for _, name := range before {
			require.Nil(t, f.live(t, podGVR, "drain", name), "evicted pod %s is gone", name)
		}
		require.Nil(t, f.live(t, podGVR, "drain", "bare"))
		// The ReplicaSet replaced them on the other node of the pool.
		eventually(t, "the replacements on spare", func() bool {
			running := 0
			for _, p := range f.list(t, podGVR, "drain", "app=movable") {
				spec := p.Object["spec"].(map[string]any)
				if spec["nodeName"] == "spare" && p.Object["status"].(map[string]any)["phase"] == "Running" {
					running++
				}
			}
			return running == 4
		})
		require.Empty(t, onDrained())
		// The DaemonSet's pod on the drained node was left alone.
		require.NotEmpty(t, dsPodOn("drained"), "ignore_daemonsets keeps the DaemonSet pod")
	})

	t.Run("ServiceAccountToken", func(t *testing.T) {
		f.ok(t, "k8s", "{definition: {apiVersion: v1, kind: ServiceAccount, metadata: {name: robot, namespace: "+ns+"}}}")
		f.ok(t, "k8s", "{definition: {apiVersion: v1, kind: Secret, type: kubernetes.io/service-account-token, metadata: {name: robot-token, namespace: "+ns+
			", annotations: {kubernetes.io/service-account.name: robot}}}}")
		var token string
		eventually(t, "the token controller", func() bool {
			res := f.ok(t, "k8s_info", "{api_version: v1, kind: Secret, name: robot-token, namespace: "+ns+"}")
			rs := get(t, res, "resources").([]any)
			if len(rs) != 1 {
				return false
			}
			tok, isStr := field(rs[0], "data", "token").(string)
			token = tok
			return isStr && tok != ""
		})
		// The token authenticates as the ServiceAccount.
		env := f.env()
		env["K8S_AUTH_API_KEY"] = decodeB64(t, token)
		_, msg := fails(t, call{mod: "k8s_info", args: "{api_version: v1, kind: Secret, namespace: " + ns + "}", env: env})
		require.Contains(t, msg, `system:serviceaccount:`+ns+`:robot`, "authenticated, but without RBAC rights")
		require.NotContains(t, msg, decodeB64(t, token))
	})
}

func unschedulableIn(t *testing.T, f fullCluster, node string) bool {
	t.Helper()
	b, _ := f.live(t, nodeGVR, "", node).Object["spec"].(map[string]any)["unschedulable"].(bool)
	return b
}

func decodeB64(t *testing.T, s string) string {
	t.Helper()
	out, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	require.NoError(t, err)
	return string(out)
}
