package k8s

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var dsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}

// rolloutDeployment makes a Deployment at revision 2 with the
// ReplicaSets of revisions 1 and 2, as the deployment controller (which
// does not run here) would have left them.
func rolloutDeployment(t *testing.T, ns, name string) {
	t.Helper()
	tmpl := func(image, hash string) string {
		labels := "{app: " + name
		if hash != "" {
			labels += ", pod-template-hash: " + hash
		}
		return "{metadata: {labels: " + labels + "}}, spec: {containers: [{name: web, image: " + image + "}]}}"
	}
	ok(t, call{mod: "k8s", args: "{definition: {apiVersion: apps/v1, kind: Deployment, metadata: {name: " + name + ", namespace: " + ns +
		", labels: {app: " + name + "}, annotations: {deployment.kubernetes.io/revision: '2'}}, spec: {replicas: 1, selector: {matchLabels: {app: " + name + "}}, template: " + tmpl("nginx:2", "") + "}}}"})
	for i, image := range []string{"nginx:1", "nginx:2"} {
		rev := value.Str(i + 1)
		hash := "h" + rev
		ok(t, call{mod: "k8s", args: "{definition: {apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: " + name + "-" + hash + ", namespace: " + ns +
			", labels: {app: " + name + "}, annotations: {deployment.kubernetes.io/revision: '" + rev + "'}}, spec: {replicas: 0, selector: {matchLabels: {app: " + name + ", pod-template-hash: " + hash + "}}, template: " + tmpl(image, hash) + "}}}"})
	}
}

func TestRollbackDeployment(t *testing.T) {
	ns := namespace(t, "rollback-d")
	rolloutDeployment(t, ns, "web")

	// Check mode: the patch is reported, the object is left.
	res := ok(t, call{mod: "k8s_rollback", check: true, args: "{api_version: apps/v1, kind: Deployment, name: web, namespace: " + ns + "}"})
	require.True(t, changed(res))
	info := get(t, res, "rollback_info").([]any)
	require.Len(t, info, 1)
	require.Equal(t, "patch", get(t, info[0], "method"))
	body := get(t, info[0], "body").([]any)
	require.Equal(t, "/spec/template", get(t, body[0], "path"))
	require.True(t, value.Equal(value.DictOf("app", "web"), get(t, body[0], "value.metadata.labels")), "pod-template-hash is dropped")
	require.True(t, value.Equal(value.DictOf("deployment.kubernetes.io/revision", "1"), get(t, body[1], "value")))
	require.Equal(t, "nginx:2", value.Str(get(t, get(t, liveObj(t, deployGVR, ns, "web"), "spec.template.spec.containers").([]any)[0], "image")))

	res = ok(t, call{mod: "k8s_rollback", args: "{api_version: apps/v1, kind: Deployment, name: web, namespace: " + ns + "}"})
	require.True(t, changed(res))
	live := liveObj(t, deployGVR, ns, "web")
	require.Equal(t, "nginx:1", value.Str(get(t, get(t, live, "spec.template.spec.containers").([]any)[0], "image")))
	require.Equal(t, "1", revision(t, live))
	info = get(t, res, "rollback_info").([]any)
	require.Equal(t, "1", revision(t, get(t, info[0], "resources")))

	// At revision 1 there is no revision 0: a warning, unchanged.
	res = ok(t, call{mod: "k8s_rollback", args: "{api_version: apps/v1, kind: Deployment, name: web, namespace: " + ns + "}"})
	require.False(t, changed(res))
	require.True(t, value.Equal([]any{value.DictOf("changed", false, "warnings", []any{"No rollout history found for resource Deployment/web"})}, get(t, res, "rollback_info")))

	// Nothing found: nothing to do.
	res = ok(t, call{mod: "k8s_rollback", args: "{api_version: apps/v1, kind: Deployment, name: nonesuch, namespace: " + ns + "}"})
	require.False(t, changed(res))
	require.True(t, value.Equal([]any{}, get(t, res, "rollback_info")))

	ok(t, call{mod: "k8s", args: "{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: " + ns + "}}}"})
	_, msg := fails(t, call{mod: "k8s_rollback", args: "{api_version: v1, kind: ConfigMap, name: cm, namespace: " + ns + "}"})
	require.Equal(t, "Cannot perform rollback on resource of kind ConfigMap", msg)
	noSecrets(t, res)
}

func TestRollbackDaemonSet(t *testing.T) {
	ns := namespace(t, "rollback-ds")
	ds := func(image string) string {
		return "{definition: {apiVersion: apps/v1, kind: DaemonSet, metadata: {name: agent, namespace: " + ns + "}, spec: {selector: {matchLabels: {app: agent}}, template: {metadata: {labels: {app: agent}}, spec: {containers: [{name: a, image: '" + image + "'}]}}}}}"
	}
	ok(t, call{mod: "k8s", args: ds("agent:1")})
	ok(t, call{mod: "k8s", args: ds("agent:2")})
	require.EqualValues(t, 2, get(t, liveObj(t, dsGVR, ns, "agent"), "metadata.generation"))
	ok(t, call{mod: "k8s", args: "{definition: {apiVersion: apps/v1, kind: ControllerRevision, metadata: {name: agent-1, namespace: " + ns +
		", labels: {app: agent}, annotations: {deprecated.daemonset.template.generation: '1'}}, revision: 1, data: {spec: {template: {metadata: {labels: {app: agent}}, spec: {containers: [{name: a, image: 'agent:1'}]}}}}}}"})

	res := ok(t, call{mod: "k8s_rollback", args: "{api_version: apps/v1, kind: DaemonSet, name: agent, namespace: " + ns + "}"})
	require.True(t, changed(res))
	live := liveObj(t, dsGVR, ns, "agent")
	require.Equal(t, "agent:1", value.Str(get(t, get(t, live, "spec.template.spec.containers").([]any)[0], "image")))
}

// TestRollbackNameCannotEscapeItsPath is an attack: a name that walks to
// another object's URL must not patch it (kubernetes.core builds the
// patch URL from the task's name).
func TestRollbackNameCannotEscapeItsPath(t *testing.T) {
	ns := namespace(t, "rollback-attack")
	rolloutDeployment(t, ns, "victim")
	for _, name := range []string{"../deployments/victim", "x/../victim", "%2e%2e/deployments/victim", "victim?dryRun=All"} {
		res := run(t, call{mod: "k8s_rollback", args: "{api_version: apps/v1, kind: Deployment, name: '" + name + "', namespace: " + ns + "}"})
		t.Logf("%s: %v", name, value.JSON(res, value.JSONOptions{}))
		require.False(t, changed(res), name)
	}
	// A label selector finds the Deployment, but kubernetes.core patches
	// the task's name, here unset ("None"): the patch misses.
	res := run(t, call{mod: "k8s_rollback", args: "{api_version: apps/v1, kind: Deployment, label_selectors: ['app'], namespace: " + ns + "}"})
	t.Logf("%v", value.JSON(res, value.JSONOptions{}))
	require.Equal(t, true, get(t, res, "failed"))
	require.Equal(t, "2", revision(t, liveObj(t, deployGVR, ns, "victim")))
}

// revision is a Deployment's deployment.kubernetes.io/revision.
func revision(t *testing.T, obj any) any {
	t.Helper()
	v, _ := get(t, obj, "metadata.annotations").(*value.Dict).Get("deployment.kubernetes.io/revision")
	return v
}
