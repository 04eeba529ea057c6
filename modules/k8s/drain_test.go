package k8s

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var podGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// boundPod creates a pod bound to a node. owner is "" (unmanaged) or an
// owner kind; emptyDir adds an emptyDir volume.
func boundPod(t *testing.T, ns, name, nodeName, owner string, emptyDir bool, labels string) {
	t.Helper()
	meta := "{name: " + name + ", namespace: " + ns + ", labels: {" + labels + "}"
	if owner != "" {
		meta += ", ownerReferences: [{apiVersion: apps/v1, kind: " + owner + ", name: owner, uid: 00000000-0000-0000-0000-000000000001}]"
	}
	meta += "}"
	spec := "{nodeName: " + nodeName + ", containers: [{name: c, image: busybox}]"
	if emptyDir {
		spec += ", volumes: [{name: scratch, emptyDir: {}}]"
	}
	spec += "}"
	ok(t, call{mod: "k8s", args: "{definition: {apiVersion: v1, kind: Pod, metadata: " + meta + ", spec: " + spec + "}}"})
}

// evicted reports whether a pod is gone or being deleted.
func evicted(t *testing.T, ns, name string) bool {
	t.Helper()
	obj := live(t, podGVR, ns, name)
	return obj == nil || obj.GetDeletionTimestamp() != nil
}

func unschedulable(t *testing.T, name string) bool {
	t.Helper()
	b, _ := live(t, nodeGVR, "", name).Object["spec"].(map[string]any)["unschedulable"].(bool)
	return b
}

func TestDrainCordonUncordon(t *testing.T) {
	node(t, "drain-c")
	res := ok(t, call{mod: "k8s_drain", args: "{name: drain-c, state: cordon}"})
	require.True(t, changed(res))
	require.Equal(t, "node drain-c marked unschedulable.", get(t, res, "result"))
	require.True(t, unschedulable(t, "drain-c"))
	res = ok(t, call{mod: "k8s_drain", args: "{name: drain-c, state: cordon}"})
	require.False(t, changed(res))
	require.Equal(t, "node drain-c already marked unschedulable.", get(t, res, "result"))
	res = ok(t, call{mod: "k8s_drain", args: "{name: drain-c, state: uncordon}"})
	require.True(t, changed(res))
	require.Equal(t, "node drain-c marked schedulable.", get(t, res, "result"))
	require.False(t, unschedulable(t, "drain-c"))
	res = ok(t, call{mod: "k8s_drain", args: "{name: drain-c, state: uncordon}"})
	require.False(t, changed(res))
	require.Equal(t, "node drain-c already marked schedulable.", get(t, res, "result"))

	// kubernetes.core's module has no check mode: the task is skipped.
	res = run(t, call{mod: "k8s_drain", check: true, args: "{name: drain-c, state: cordon}"})
	require.Equal(t, true, get(t, res, "skipped"))
	require.False(t, unschedulable(t, "drain-c"))

	_, msg := fails(t, call{mod: "k8s_drain", args: "{name: nonesuch, state: cordon}"})
	require.Equal(t, "Node nonesuch not found.", msg)
	_, msg = fails(t, call{mod: "k8s_drain", args: "{name: drain-c, state: evacuate}"})
	require.Equal(t, "value of state must be one of: cordon, drain, uncordon, got: evacuate", msg)
	_, msg = fails(t, call{mod: "k8s_drain", args: "{name: drain-c, delete_options: {grace: 1}}"})
	require.Contains(t, msg, "grace")
}

func TestDrainRefusesThenEvicts(t *testing.T) {
	ns := namespace(t, "drain-e")
	node(t, "drain-e")
	node(t, "drain-other")
	boundPod(t, ns, "bare", "drain-e", "", false, "app: x")
	boundPod(t, ns, "managed", "drain-e", "ReplicaSet", false, "app: x")
	boundPod(t, ns, "daemon", "drain-e", "DaemonSet", false, "app: x")
	boundPod(t, ns, "scratch", "drain-e", "ReplicaSet", true, "app: y")
	boundPod(t, ns, "elsewhere", "drain-other", "ReplicaSet", false, "app: x")

	// Without options every kind of pod kubernetes.core protects is
	// named, nothing is evicted and the node is schedulable again.
	_, msg := fails(t, call{mod: "k8s_drain", args: "{name: drain-e}"})
	require.Equal(t, "Pod deletion errors: cannot delete Pods not managed by ReplicationController, ReplicaSet, Job, DaemonSet or StatefulSet (use option force set to yes): "+ns+"/bare."+
		" cannot delete Pods with local storage: "+ns+"/scratch."+
		" cannot delete DaemonSet-managed Pods (use option ignore_daemonset set to yes): "+ns+"/daemon.", msg)
	require.False(t, unschedulable(t, "drain-e"))
	for _, p := range []string{"bare", "managed", "daemon", "scratch"} {
		require.False(t, evicted(t, ns, p), p)
	}

	// pod_selectors narrows the pods: only app=x ones that are managed.
	_, msg = fails(t, call{mod: "k8s_drain", args: "{name: drain-e, pod_selectors: ['app=y']}"})
	require.Equal(t, "Pod deletion errors: cannot delete Pods with local storage: "+ns+"/scratch.", msg)

	res := ok(t, call{mod: "k8s_drain", args: "{name: drain-e, delete_options: {force: true, ignore_daemonsets: true, delete_emptydir_data: true, terminate_grace_period: 1}}"})
	require.True(t, changed(res))
	require.Equal(t, "node drain-e marked unschedulable. 3 Pod(s) deleted from node.", get(t, res, "result"))
	require.True(t, value.Equal([]any{
		"Deleting Pods not managed by ReplicationController, ReplicaSet, Job, DaemonSet or StatefulSet: " + ns + "/bare.",
		"Deleting Pods with local storage: " + ns + "/scratch.",
		"Ignoring DaemonSet-managed Pods: " + ns + "/daemon.",
	}, get(t, res, "warnings")), "%v", get(t, res, "warnings"))
	require.True(t, unschedulable(t, "drain-e"))
	for _, p := range []string{"bare", "managed", "scratch"} {
		require.True(t, evicted(t, ns, p), p)
	}
	require.False(t, evicted(t, ns, "daemon"))
	require.False(t, evicted(t, ns, "elsewhere"))

	// Without a kubelet the evicted pods stay Terminating: a wait times
	// out with kubernetes.core's warning.
	res = ok(t, call{mod: "k8s_drain", args: "{name: drain-e, delete_options: {force: true, ignore_daemonsets: true, delete_emptydir_data: true, disable_eviction: true, wait_timeout: 1, wait_sleep: 1}}"})
	require.Equal(t, "node drain-e already marked unschedulable. 3 Pod(s) deleted from node.", get(t, res, "result"))
	w := get(t, res, "warnings").([]any)
	require.Equal(t, "timeout reached while pods were still running.", w[len(w)-1])
	noSecrets(t, res)
}

// TestDrainNameCannotEscapeItsPath is an attack: a node name (from a CR
// spec, say) that walks to another URL or smuggles a field selector must
// neither cordon another object nor evict pods of another node.
func TestDrainNameCannotEscapeItsPath(t *testing.T) {
	ns := namespace(t, "drain-attack")
	node(t, "drain-victim")
	boundPod(t, ns, "victim", "drain-victim", "ReplicaSet", false, "a: b")
	for _, name := range []string{"../nodes/drain-victim", "drain-victim/../drain-victim", "%2e%2e/nodes/drain-victim", "drain-victim?dryRun=All", "x,spec.nodeName=drain-victim", "drain-victim,metadata.namespace!=x"} {
		_, msg := fails(t, call{mod: "k8s_drain", args: "{name: '" + name + "'}"})
		t.Logf("%s: %s", name, msg)
		require.Contains(t, msg, name)
	}
	require.False(t, unschedulable(t, "drain-victim"))
	require.False(t, evicted(t, ns, "victim"))
}
