package k8s

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestJSONPatchAppliesAndReports(t *testing.T) {
	ns := namespace(t, "jp-apply")
	ok(t, call{mod: "k8s", args: "{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: jp, namespace: " + ns + "}, data: {a: '1', drop: x}}}"})

	res := ok(t, call{mod: "k8s_json_patch", args: `
kind: ConfigMap
namespace: ` + ns + `
name: jp
patch:
  - {op: add, path: /data/b, value: "2"}
  - {op: replace, path: /data/a, value: one}
  - {op: remove, path: /data/drop}`})
	require.True(t, changed(res))
	want := value.DictOf("a", "one", "b", "2")
	require.True(t, value.Equal(want, get(t, res, "result.data")), "%v", get(t, res, "result.data"))
	require.False(t, res.Has("diff"), "diff only with --diff")
	require.False(t, res.Has("duration"), "duration only with wait")
	require.True(t, value.Equal(want, get(t, liveObj(t, cmGVR, ns, "jp"), "data")))

	// Equal values again: the object does not change.
	res = ok(t, call{mod: "k8s_json_patch", args: "{kind: ConfigMap, namespace: " + ns + ", name: jp, patch: [{op: test, path: /data/a, value: one}, {op: replace, path: /data/b, value: '2'}]}"})
	require.False(t, changed(res))

	// Check mode reports the patched object and leaves the live one.
	res = ok(t, call{mod: "k8s_json_patch", check: true, diff: true, args: "{kind: ConfigMap, namespace: " + ns + ", name: jp, hidden_fields: [metadata.managedFields, metadata.resourceVersion], patch: [{op: add, path: /data/c, value: '3'}]}"})
	require.True(t, changed(res))
	require.Equal(t, "3", get(t, res, "result.data.c"))
	require.True(t, value.Equal(want, get(t, liveObj(t, cmGVR, ns, "jp"), "data")), "check mode must not patch")
	require.True(t, value.Equal(value.DictOf("before", value.DictOf("data", value.NewDict(0)), "after", value.DictOf("data", value.DictOf("c", "3"))), get(t, res, "diff")),
		"%s", value.JSON(get(t, res, "diff"), value.JSONOptions{}))
	_, hasRV := get(t, res, "result.metadata").(*value.Dict).Get("resourceVersion")
	require.False(t, hasRV, "hidden_fields hides the result's fields too")
	noSecrets(t, res)
}

func TestJSONPatchFailures(t *testing.T) {
	ns := namespace(t, "jp-fail")
	ok(t, call{mod: "k8s", args: "{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: jp, namespace: " + ns + "}, data: {a: '1'}}}"})

	res, msg := fails(t, call{mod: "k8s_json_patch", args: "{kind: ConfigMap, namespace: " + ns + ", name: nope, patch: [{op: add, path: /data/c, value: '3'}]}"})
	require.Equal(t, `ConfigMap nope: Failed to retrieve requested object: b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"nope\\" not found","reason":"NotFound","details":{"name":"nope","kind":"configmaps"},"code":404}\n'`, msg)
	require.Equal(t, 404, get(t, res, "error"))
	require.Equal(t, 404, get(t, res, "status"))
	require.Equal(t, "Not Found", get(t, res, "reason"))
	require.False(t, changed(res))

	// A failing test op stops the whole patch: nothing is applied.
	for _, patch := range []string{
		"[{op: test, path: /data/a, value: other}, {op: replace, path: /data/a, value: never}]",
		"[{op: remove, path: /data/nothere}]",
		"[{op: frobnicate, path: /data/a, value: x}]",
	} {
		res, msg = fails(t, call{mod: "k8s_json_patch", args: "{kind: ConfigMap, namespace: " + ns + ", name: jp, patch: " + patch + "}"})
		require.Equal(t, `Failed to patch existing object: b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server rejected our request due to an error in our request","reason":"Invalid","details":{},"code":422}\n'`, msg, patch)
		require.Equal(t, 422, get(t, res, "status"))
		require.Equal(t, "Unprocessable Entity", get(t, res, "reason"))
	}
	require.Equal(t, "1", get(t, liveObj(t, cmGVR, ns, "jp"), "data.a"))

	_, msg = fails(t, call{mod: "k8s_json_patch", args: "{kind: ConfigMap, namespace: " + ns + ", name: jp}"})
	require.Equal(t, "missing required arguments: patch", msg)
	_, msg = fails(t, call{mod: "k8s_json_patch", args: "{kind: ConfigMap, namespace: " + ns + ", name: jp, patch: [replace]}"})
	require.Equal(t, "Elements value for option 'patch' is of type str and we were unable to convert to dict: dictionary requested, could not parse JSON or key=value", msg)
	// An unknown kind crashes kubernetes.core's module: no msg, the
	// client's error as the exception.
	res = run(t, call{mod: "k8s_json_patch", args: "{kind: Nonesuch, namespace: " + ns + ", name: jp, patch: []}"})
	require.Equal(t, true, get(t, res, "failed"))
	require.False(t, res.Has("msg"))
	require.EqualError(t, get(t, res, "exception").(error), "No matches found for {'prefix': None, 'api_version': 'v1', 'short_names': ['Nonesuch']}")
}

// TestJSONPatchNameCannotEscapeItsPath is an attack: a name (from a CR
// spec, say) that walks to another object's URL must not patch it.
func TestJSONPatchNameCannotEscapeItsPath(t *testing.T) {
	ns := namespace(t, "jp-attack")
	ok(t, call{mod: "k8s", args: "{definition: {apiVersion: v1, kind: Secret, metadata: {name: target, namespace: " + ns + "}, stringData: {k: v}}}"})
	ok(t, call{mod: "k8s", args: "{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: " + ns + "}, data: {a: '1'}}}"})
	for _, name := range []string{"../secrets/target", "cm/../../secrets/target", "%2e%2e/secrets/target", "cm?dryRun=All"} {
		res, msg := fails(t, call{mod: "k8s_json_patch", args: "{kind: ConfigMap, namespace: " + ns + ", name: '" + name + "', patch: [{op: add, path: /metadata/labels, value: {pwned: 'yes'}}]}"})
		require.Contains(t, msg, "Failed to retrieve requested object", name)
		t.Logf("%s: %s", name, msg)
		require.Contains(t, []any{400, 404}, get(t, res, "status"), name)
	}
	secret := liveObj(t, secretGVR, ns, "target")
	labels, _ := secret.(*value.Dict).Default("metadata", nil).(*value.Dict).Get("labels")
	require.Nil(t, labels, "the secret was patched")
}

// TestJSONPatchWaitTimesOut waits on a Deployment, which never becomes
// ready without a controller manager: the patch is applied, the task
// fails with kubernetes.core's message and keeps the result.
func TestJSONPatchWaitTimesOut(t *testing.T) {
	ns := namespace(t, "jp-wait")
	ok(t, call{mod: "k8s", args: deploymentArgs(ns, "web", 1)})
	res, msg := fails(t, call{mod: "k8s_json_patch", args: "{kind: Deployment, api_version: apps/v1, namespace: " + ns + ", name: web, wait: true, wait_timeout: 1, wait_sleep: 1, patch: [{op: replace, path: /spec/replicas, value: 2}]}"})
	require.Equal(t, "Resource update timed out", msg)
	require.True(t, changed(res))
	require.True(t, res.Has("duration"))
	require.Equal(t, 2, get(t, res, "result.spec.replicas"))
	require.Equal(t, 2, get(t, liveObj(t, deployGVR, ns, "web"), "spec.replicas"))

	// In check mode there is no wait.
	res = ok(t, call{mod: "k8s_json_patch", check: true, args: "{kind: Deployment, api_version: apps/v1, namespace: " + ns + ", name: web, wait: true, wait_timeout: 1, wait_sleep: 1, patch: [{op: replace, path: /spec/replicas, value: 3}]}"})
	require.True(t, changed(res))
	require.False(t, res.Has("duration"))
}

// deploymentArgs is a k8s task's arguments creating a Deployment.
func deploymentArgs(ns, name string, replicas int) string {
	return `
definition:
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: ` + name + `, namespace: ` + ns + `, labels: {tier: web}}
  spec:
    replicas: ` + value.Str(replicas) + `
    selector: {matchLabels: {app: ` + name + `}}
    template:
      metadata: {labels: {app: ` + name + `}}
      spec:
        containers: [{name: web, image: nginx}]`
}
