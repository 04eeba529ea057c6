package k8s

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var nodeGVR = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}

// node creates a Node object (no kubelet runs: it is only an object).
func node(t *testing.T, name string) {
	t.Helper()
	ok(t, call{mod: "k8s", args: "{definition: {apiVersion: v1, kind: Node, metadata: {name: " + name + "}}}"})
}

// liveTaints is the node's taints without the not-ready taint the
// apiserver's admission adds to a new node.
func liveTaints(t *testing.T, name string) []string {
	t.Helper()
	var out []string
	l, _ := live(t, nodeGVR, "", name).Object["spec"].(map[string]any)["taints"].([]any)
	for _, it := range l {
		m := it.(map[string]any)
		if m["key"] == "node.kubernetes.io/not-ready" {
			continue
		}
		v, _ := m["value"].(string)
		out = append(out, m["key"].(string)+"="+v+":"+m["effect"].(string))
	}
	return out
}

func TestTaintAddsUpdatesAndRemoves(t *testing.T) {
	node(t, "taint-a")
	res := ok(t, call{mod: "k8s_taint", args: "{name: taint-a, taints: [{key: k1, value: v1, effect: NoSchedule}, {key: k2, effect: NoExecute}]}"})
	require.True(t, changed(res))
	require.Equal(t, []string{"k1=v1:NoSchedule", "k2=:NoExecute"}, liveTaints(t, "taint-a"))
	// The result is the Python client's to_dict(): snake_case, nulls,
	// isoformat timestamps.
	require.Equal(t, "v1", get(t, res, "result.api_version"))
	require.Nil(t, get(t, res, "result.spec.pod_cid_rs"))
	require.Nil(t, get(t, res, "result.metadata.deletion_timestamp"))
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$`, get(t, res, "result.metadata.creation_timestamp"))
	taints := get(t, res, "result.spec.taints").([]any)
	require.True(t, value.Equal(value.DictOf("effect", "NoExecute", "key", "k2", "time_added", nil, "value", nil), taints[len(taints)-1]))

	res = ok(t, call{mod: "k8s_taint", args: "{name: taint-a, taints: [{key: k1, value: v1, effect: NoSchedule}]}"})
	require.False(t, changed(res))

	// A new value: changed; in check mode nothing is patched.
	res = ok(t, call{mod: "k8s_taint", check: true, args: "{name: taint-a, taints: [{key: k1, value: v2, effect: NoSchedule}]}"})
	require.True(t, changed(res))
	require.True(t, value.Equal(value.NewDict(0), get(t, res, "result")))
	require.Equal(t, []string{"k1=v1:NoSchedule", "k2=:NoExecute"}, liveTaints(t, "taint-a"))
	ok(t, call{mod: "k8s_taint", args: "{name: taint-a, taints: [{key: k1, value: v2, effect: NoSchedule}]}"})
	require.Equal(t, []string{"k2=:NoExecute", "k1=v2:NoSchedule"}, liveTaints(t, "taint-a"))

	res = ok(t, call{mod: "k8s_taint", args: "{name: taint-a, replace: true, taints: [{key: k3, effect: PreferNoSchedule}]}"})
	require.True(t, changed(res))
	require.Equal(t, []string{"k3=:PreferNoSchedule"}, liveTaints(t, "taint-a"))

	// Removal: by key alone, one present and one absent.
	res = ok(t, call{mod: "k8s_taint", args: "{name: taint-a, state: absent, taints: [{key: k3}, {key: nothere}]}"})
	require.True(t, changed(res))
	require.True(t, value.Equal(value.NewDict(0), get(t, res, "result")))
	require.Empty(t, liveTaints(t, "taint-a"))
	res = ok(t, call{mod: "k8s_taint", args: "{name: taint-a, state: absent, taints: [{key: k3}]}"})
	require.False(t, changed(res))
	noSecrets(t, res)
}

func TestTaintFailures(t *testing.T) {
	node(t, "taint-f")
	_, msg := fails(t, call{mod: "k8s_taint", args: "{name: nonesuch, taints: [{key: k, effect: NoSchedule}]}"})
	require.Equal(t, "Node 'nonesuch' has not been found.", msg)
	_, msg = fails(t, call{mod: "k8s_taint", args: "{name: taint-f, taints: [{key: k, effect: Sometimes}]}"})
	require.Contains(t, msg, "Failed to patch node due to: (422)\nReason: Unprocessable Entity\n")
	require.Contains(t, msg, `Unsupported value: \"Sometimes\"`)
	_, msg = fails(t, call{mod: "k8s_taint", args: "{name: taint-f}"})
	require.Equal(t, "missing required arguments: taints", msg)
	_, msg = fails(t, call{mod: "k8s_taint", args: "{name: taint-f, state: gone, taints: []}"})
	require.Equal(t, "value of state must be one of: present, absent, got: gone", msg)
	// A taint without a key compared with existing taints: kubernetes.core
	// dies with a KeyError; nothing is patched.
	ok(t, call{mod: "k8s_taint", args: "{name: taint-f, taints: [{key: k, effect: NoSchedule}]}"})
	res := run(t, call{mod: "k8s_taint", args: "{name: taint-f, taints: [{effect: NoExecute}]}"})
	require.Equal(t, true, get(t, res, "failed"))
	require.Equal(t, []string{"k=:NoSchedule"}, liveTaints(t, "taint-f"))
}

// TestTaintNameCannotEscapeItsPath is an attack: a node name that walks
// to another object's URL must not patch it.
func TestTaintNameCannotEscapeItsPath(t *testing.T) {
	ns := namespace(t, "taint-attack")
	ok(t, call{mod: "k8s", args: "{definition: {apiVersion: v1, kind: Secret, metadata: {name: target, namespace: " + ns + "}, stringData: {k: v}}}"})
	node(t, "taint-x")
	for _, name := range []string{"../namespaces/" + ns + "/secrets/target", "taint-x/../../namespaces/" + ns + "/secrets/target", "%2e%2e/namespaces", "taint-x?dryRun=All"} {
		_, msg := fails(t, call{mod: "k8s_taint", args: "{name: '" + name + "', taints: [{key: pwned, effect: NoSchedule}]}"})
		t.Logf("%s: %s", name, msg)
		require.Contains(t, msg, "node '"+name+"'", name)
	}
	secret := liveObj(t, secretGVR, ns, "target")
	_, hasSpec := secret.(*value.Dict).Get("spec")
	require.False(t, hasSpec, "the secret was patched")
	require.Empty(t, liveTaints(t, "taint-x"))
}
