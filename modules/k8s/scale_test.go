package k8s

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func keysOf(d *value.Dict) []string {
	var out []string
	d.Each(func(k string, _ any) bool { out = append(out, k); return true })
	return out
}

func TestScaleDeployment(t *testing.T) {
	ns := namespace(t, "scale-deploy")
	ok(t, call{mod: "k8s", args: deploymentArgs(ns, "web", 1)})
	base := "{api_version: apps/v1, kind: Deployment, name: web, namespace: " + ns + ", wait: false, "

	res := ok(t, call{mod: "k8s_scale", args: base + "replicas: 3}"})
	require.True(t, changed(res))
	require.Equal(t, 3, get(t, res, "result.spec.replicas"))
	require.Equal(t, 3, get(t, liveObj(t, deployGVR, ns, "web"), "spec.replicas"))
	require.ElementsMatch(t, []string{"result", "changed"}, keysOf(res))

	// Same size: unchanged, the object read back.
	res = ok(t, call{mod: "k8s_scale", args: base + "replicas: 3}"})
	require.False(t, changed(res))
	require.Equal(t, 3, get(t, res, "result.spec.replicas"))

	// current_replicas that does not match: a warning, nothing scaled.
	res = ok(t, call{mod: "k8s_scale", args: base + "current_replicas: 5, replicas: 1}"})
	require.False(t, changed(res))
	require.Equal(t, "current replicas 5 does not match with actual 3 for object kind=Deployment name=web namespace="+ns+".", get(t, res, "warning"))
	require.False(t, res.Has("warnings"), "kubernetes.core 6.1 gives a warning key, not a module warning")
	require.Equal(t, 0, get(t, res, "result").(*value.Dict).Len())
	require.Equal(t, 3, get(t, liveObj(t, deployGVR, ns, "web"), "spec.replicas"))

	// resource_version that does not match: a warning too.
	res = ok(t, call{mod: "k8s_scale", args: base + "resource_version: '1', replicas: 1}"})
	require.False(t, changed(res))
	require.Contains(t, value.Str(get(t, res, "warning")), "expected resource version 1 does not match with actual ")

	// Check mode with diff: the change is computed locally.
	res = ok(t, call{mod: "k8s_scale", check: true, diff: true, args: base + "current_replicas: 3, replicas: 2}"})
	require.True(t, changed(res))
	require.Equal(t, 2, get(t, res, "result.spec.replicas"))
	require.True(t, value.Equal(value.DictOf("before", value.DictOf("spec", value.DictOf("replicas", 3)), "after", value.DictOf("spec", value.DictOf("replicas", 2))), get(t, res, "diff")),
		"%s", value.JSON(get(t, res, "diff"), value.JSONOptions{}))
	require.Equal(t, 3, get(t, liveObj(t, deployGVR, ns, "web"), "spec.replicas"))
	noSecrets(t, res)
}

// TestScaleWaitTimesOut: without a controller manager no pod is ever
// ready, so wait fails with kubernetes.core's message (and only it),
// after the scale itself was made.
func TestScaleWaitTimesOut(t *testing.T) {
	ns := namespace(t, "scale-wait")
	ok(t, call{mod: "k8s", args: deploymentArgs(ns, "web", 1)})
	res, msg := fails(t, call{mod: "k8s_scale", args: "{api_version: apps/v1, kind: Deployment, name: web, namespace: " + ns + ", replicas: 2, wait_timeout: 1, wait_sleep: 1}"})
	require.Equal(t, "Resource scaling timed out", msg)
	require.False(t, changed(res))
	require.False(t, res.Has("result"))
	require.Equal(t, 2, get(t, liveObj(t, deployGVR, ns, "web"), "spec.replicas"))
}

func TestScaleSelectorsJobsAndFailures(t *testing.T) {
	ns := namespace(t, "scale-sel")
	ok(t, call{mod: "k8s", args: deploymentArgs(ns, "web1", 1)})
	ok(t, call{mod: "k8s", args: deploymentArgs(ns, "web2", 1)})

	res := ok(t, call{mod: "k8s_scale", args: "{api_version: apps/v1, kind: Deployment, namespace: " + ns + ", label_selectors: [tier=web], replicas: 2, wait: false}"})
	require.True(t, changed(res))
	results := get(t, res, "results").([]any)
	require.Len(t, results, 2)
	for _, r := range results {
		require.Equal(t, 2, get(t, r, "result.spec.replicas"))
	}
	require.Equal(t, 2, get(t, liveObj(t, deployGVR, ns, "web2"), "spec.replicas"))

	// A definition names the object.
	res = ok(t, call{mod: "k8s_scale", args: "{definition: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web2, namespace: " + ns + "}}, replicas: 4, wait: false}"})
	require.True(t, changed(res))
	require.Equal(t, 4, get(t, liveObj(t, deployGVR, ns, "web2"), "spec.replicas"))

	// A Job's parallelism, by a patch of the Job.
	ok(t, call{mod: "k8s", args: `
definition:
  apiVersion: batch/v1
  kind: Job
  metadata: {name: pi, namespace: ` + ns + `}
  spec:
    parallelism: 1
    suspend: true
    template:
      spec:
        restartPolicy: Never
        containers: [{name: pi, image: perl}]`})
	res = ok(t, call{mod: "k8s_scale", args: "{api_version: batch/v1, kind: job, name: pi, namespace: " + ns + ", replicas: 3, wait: false}"})
	require.True(t, changed(res))
	require.Equal(t, 3, get(t, res, "result.spec.parallelism"))
	require.ElementsMatch(t, []string{"result", "changed"}, keysOf(res))

	// Objects without replicas: one fails the task, several with
	// continue_on_error collect errors.
	for _, n := range []string{"c1", "c2"} {
		ok(t, call{mod: "k8s", args: "{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: " + n + ", namespace: " + ns + ", labels: {k: v}}, data: {a: '1'}}}"})
	}
	res, msg := fails(t, call{mod: "k8s_scale", args: "{kind: ConfigMap, name: c1, namespace: " + ns + ", replicas: 2}"})
	require.Equal(t, "Failed to retrieve the available count for object kind=ConfigMap name=c1 namespace="+ns+".", msg)
	require.Equal(t, 0, get(t, res, "duration"))
	res = ok(t, call{mod: "k8s_scale", args: "{kind: ConfigMap, namespace: " + ns + ", label_selectors: [k=v], continue_on_error: true, replicas: 2}"})
	require.False(t, changed(res))
	errs := get(t, res, "errors").([]any)
	require.Len(t, errs, 2)
	require.Equal(t, true, get(t, errs[1], "failed"))
	require.Equal(t, "Failed to retrieve the available count for object kind=ConfigMap name=c2 namespace="+ns+".", get(t, errs[1], "error"))

	_, msg = fails(t, call{mod: "k8s_scale", args: "{api_version: apps/v1, kind: Deployment, name: nope, namespace: " + ns + ", replicas: 2}"})
	require.Equal(t, `Failed to retrieve requested object: b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"nope\\" not found","reason":"NotFound","details":{"name":"nope","group":"apps","kind":"deployments"},"code":404}\n'`, msg)
	_, msg = fails(t, call{mod: "k8s_scale", args: "{api_version: apps/v1, kind: Deployment, name: web1, namespace: " + ns + "}"})
	require.Equal(t, "missing required arguments: replicas", msg)
	_, msg = fails(t, call{mod: "k8s_scale", args: "{src: /etc/hostname, definition: {kind: Deployment}, replicas: 1}"})
	require.Equal(t, "parameters are mutually exclusive: resource_definition|src", msg)
}

// TestScaleNameCannotEscapeItsPath is an attack: a name that walks to the
// scale subresource of another object must not scale it.
func TestScaleNameCannotEscapeItsPath(t *testing.T) {
	ns := namespace(t, "scale-attack")
	ok(t, call{mod: "k8s", args: deploymentArgs(ns, "victim", 1)})
	for _, name := range []string{"../deployments/victim", "x/../victim"} {
		res, _ := fails(t, call{mod: "k8s_scale", args: "{api_version: apps/v1, kind: Deployment, name: '" + name + "', namespace: " + ns + ", replicas: 5, wait: false}"})
		require.False(t, changed(res))
	}
	// A selector cannot smuggle in other query parameters either.
	ok(t, call{mod: "k8s", args: deploymentArgs(ns, "other", 1)})
	res, msg := fails(t, call{mod: "k8s_scale", args: "{api_version: apps/v1, kind: Deployment, namespace: " + ns + ", label_selectors: ['app=nomatch&labelSelector=tier=web'], replicas: 5, wait: false}"})
	require.False(t, changed(res))
	require.Contains(t, msg, "(400)")
	require.Equal(t, 1, get(t, liveObj(t, deployGVR, ns, "victim"), "spec.replicas"))
	require.Equal(t, 1, get(t, liveObj(t, deployGVR, ns, "other"), "spec.replicas"))
}

// TestScaleWaitSucceeds scales a ReplicationController, whose waiter only
// needs the object to exist, so wait succeeds at once and reports a
// duration.
func TestScaleWaitSucceeds(t *testing.T) {
	ns := namespace(t, "scale-rc")
	ok(t, call{mod: "k8s", args: `
definition:
  apiVersion: v1
  kind: ReplicationController
  metadata: {name: rc, namespace: ` + ns + `}
  spec:
    replicas: 1
    selector: {app: rc}
    template:
      metadata: {labels: {app: rc}}
      spec:
        containers: [{name: rc, image: nginx}]`})
	res := ok(t, call{mod: "k8s_scale", diff: true, args: "{kind: ReplicationController, name: rc, namespace: " + ns + ", replicas: 2, wait_sleep: 1}"})
	require.True(t, changed(res))
	require.Equal(t, 2, get(t, res, "result.spec.replicas"))
	require.Equal(t, 0, get(t, res, "duration"))
	require.Equal(t, 1, get(t, res, "diff.before.spec.replicas"))
	require.Equal(t, 2, get(t, res, "diff.after.spec.replicas"))
	require.Equal(t, 2, get(t, liveObj(t, schema.GroupVersionResource{Version: "v1", Resource: "replicationcontrollers"}, ns, "rc"), "spec.replicas"))
}
