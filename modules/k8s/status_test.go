package k8s

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func gadget(t *testing.T, ns, name string) {
	t.Helper()
	ok(t, call{mod: "k8s", args: `{definition: {apiVersion: test.cfzt.io/v1, kind: Gadget, metadata: {name: ` + name + `, namespace: ` + ns + `}, spec: {size: 1}}}`})
}

func liveStatus(t *testing.T, ns, name string) map[string]any {
	t.Helper()
	st, _ := live(t, gadgetGVR, ns, name).Object["status"].(map[string]any)
	return st
}

func setClock(t *testing.T, ts string) {
	t.Helper()
	at, err := time.Parse(time.RFC3339, ts)
	require.NoError(t, err)
	prev := now
	now = func() time.Time { return at }
	t.Cleanup(func() { now = prev })
}

// TestStatusOnlyThroughSubresource shows the server ignoring a status sent
// with a plain k8s patch, and k8s_status writing it through /status.
func TestStatusOnlyThroughSubresource(t *testing.T) {
	ns := namespace(t, "status-sub")
	gadget(t, ns, "g")
	res := ok(t, call{mod: "k8s", args: `{api_version: test.cfzt.io/v1, kind: Gadget, name: g, namespace: ` + ns + `, definition: {status: {phase: Ready}}}`})
	require.False(t, changed(res), "the server drops status from a main-resource patch")
	require.Nil(t, liveStatus(t, ns, "g"))

	st := `{api_version: test.cfzt.io/v1, kind: Gadget, name: g, namespace: ` + ns + `, status: {phase: Ready, hosts: [a, b]}}`
	res = ok(t, call{mod: "k8s_status", args: st})
	require.True(t, changed(res))
	require.Equal(t, "Ready", get(t, res, "result.status.phase"))
	require.Equal(t, "Ready", liveStatus(t, ns, "g")["phase"])
	res = ok(t, call{mod: "k8s_status", args: st})
	require.False(t, changed(res))

	// Without replace_lists a list already holding the items is unchanged;
	// with it the list must be equal and is replaced.
	sub := `{api_version: test.cfzt.io/v1, kind: Gadget, name: g, namespace: ` + ns + `, status: {hosts: [a]}, replace_lists: RL}`
	res = ok(t, call{mod: "k8s_status", args: strings.ReplaceAll(sub, "RL", "false")})
	require.False(t, changed(res))
	res = ok(t, call{mod: "k8s_status", args: strings.ReplaceAll(sub, "RL", "true")})
	require.True(t, changed(res))
	require.Equal(t, []any{"a"}, liveStatus(t, ns, "g")["hosts"])
	require.Equal(t, "Ready", liveStatus(t, ns, "g")["phase"], "other status fields are kept")

	// force replaces the whole status with PUT.
	res = ok(t, call{mod: "k8s_status", args: `{api_version: test.cfzt.io/v1, kind: Gadget, name: g, namespace: ` + ns + `, force: true, status: {phase: New}}`})
	require.True(t, changed(res))
	require.Equal(t, map[string]any{"phase": "New"}, liveStatus(t, ns, "g"))
	res = ok(t, call{mod: "k8s_status", args: `{api_version: test.cfzt.io/v1, kind: Gadget, name: g, namespace: ` + ns + `, force: true, status: {phase: New}}`})
	require.False(t, changed(res))

	// In check mode nothing is written.
	res = ok(t, call{mod: "k8s_status", check: true, args: `{api_version: test.cfzt.io/v1, kind: Gadget, name: g, namespace: ` + ns + `, status: {phase: Checked}}`})
	require.True(t, changed(res))
	require.Equal(t, "New", liveStatus(t, ns, "g")["phase"])
}

func TestStatusConditions(t *testing.T) {
	ns := namespace(t, "status-cond")
	gadget(t, ns, "g")
	cond := func(typ, status, reason string) string {
		return `{api_version: test.cfzt.io/v1, kind: Gadget, name: g, namespace: ` + ns + `, conditions: [{type: ` + typ + `, status: "` + status + `", reason: ` + reason + `}]}`
	}
	setClock(t, "2030-01-01T00:00:00Z")
	res := ok(t, call{mod: "k8s_status", args: cond("Ready", "False", "Starting")})
	require.True(t, changed(res))
	ok(t, call{mod: "k8s_status", args: cond("Synced", "True", "Done")})

	conds := func() []any { return liveStatus(t, ns, "g")["conditions"].([]any) }
	require.Len(t, conds(), 2)
	require.Equal(t, "2030-01-01T00:00:00Z", conds()[0].(map[string]any)["lastTransitionTime"])

	// Same status, new reason: merged by type, transition time kept.
	setClock(t, "2030-01-02T00:00:00Z")
	res = ok(t, call{mod: "k8s_status", args: cond("Ready", "False", "StillStarting")})
	require.True(t, changed(res))
	c := conds()[0].(map[string]any)
	require.Equal(t, "StillStarting", c["reason"])
	require.Equal(t, "2030-01-01T00:00:00Z", c["lastTransitionTime"])
	require.Len(t, conds(), 2)

	// Nothing new: unchanged, whatever the clock says.
	res = ok(t, call{mod: "k8s_status", args: cond("Ready", "False", "StillStarting")})
	require.False(t, changed(res))

	// A status change moves the transition time.
	setClock(t, "2030-01-03T00:00:00Z")
	ok(t, call{mod: "k8s_status", args: cond("Ready", "True", "Running")})
	c = conds()[0].(map[string]any)
	require.Equal(t, "True", c["status"])
	require.Equal(t, "2030-01-03T00:00:00Z", c["lastTransitionTime"])
	require.Equal(t, "2030-01-01T00:00:00Z", conds()[1].(map[string]any)["lastTransitionTime"])

	// wait_condition on k8s and k8s_info sees the condition.
	res = ok(t, call{mod: "k8s", args: `{api_version: test.cfzt.io/v1, kind: Gadget, name: g, namespace: ` + ns + `, state: patched, definition: {spec: {size: 1}}, wait: true, wait_timeout: 5, wait_sleep: 1, wait_condition: {type: Ready, status: "True", reason: Running}}`})
	require.Equal(t, 0, get(t, res, "duration"))
	info := ok(t, call{mod: "k8s_info", args: `{api_version: test.cfzt.io/v1, kind: Gadget, name: g, namespace: ` + ns + `, wait: true, wait_timeout: 5, wait_condition: {type: Synced}}`})
	require.Len(t, get(t, info, "resources").([]any), 1)

	// Validation, in operator_sdk.util's words.
	_, msg := fails(t, call{mod: "k8s_status", args: `{api_version: test.cfzt.io/v1, kind: Gadget, name: g, namespace: ` + ns + `, conditions: [{type: Ready, status: "Maybe"}]}`})
	require.Equal(t, `argument 'conditions' is of type list and we were unable to convert to condition_array: Condition `+"`status`"+` must be one of ["True", "False", "Unknown"], not Maybe`, msg)
	_, msg = fails(t, call{mod: "k8s_status", args: `{api_version: test.cfzt.io/v1, kind: Gadget, name: g, namespace: ` + ns + `, status: {conditions: [{type: B, status: "True"}]}, conditions: [{type: A, status: "True"}]}`})
	require.Equal(t, "You cannot specify conditions in both the `status` and `conditions` parameters", msg)
}

func TestStatusFailures(t *testing.T) {
	ns := namespace(t, "status-fail")
	_, msg := fails(t, call{mod: "k8s_status", args: `{kind: ConfigMap, name: x, namespace: ` + ns + `, status: {a: b}}`})
	require.Equal(t, "Resource v1.ConfigMap does not support the status subresource", msg)
	res, msg := fails(t, call{mod: "k8s_status", args: `{api_version: test.cfzt.io/v1, kind: Gadget, name: missing, namespace: ` + ns + `, status: {a: b}}`})
	require.Contains(t, msg, "Failed to retrieve requested object: (404)\nReason: Not Found")
	require.Equal(t, "Not Found", get(t, res, "reason"))
	noSecrets(t, res)
}
