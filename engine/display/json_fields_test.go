package display

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// TestJSONLogFields: every line carries the fields both operator modes
// share: level, ts (Unix seconds, zap's encoding), msg (always text), and
// for a result its task and, for a loop item that is a Kubernetes object,
// its key. A no_log item names no object, and a msg that is not a string
// is written as text.
func TestJSONLogFields(t *testing.T) {
	var b strings.Builder
	j := &JSON{Out: &b, Now: func() time.Time { return time.Unix(1700000000, 123456789) }}
	task := &playbook.Task{Name: "reconcile", Module: "k8s", Action: "kubernetes.core.k8s"}
	obj := value.DictOf("apiVersion", "cfzt.cloudflare.com/v1alpha1", "kind", "CloudflareTask",
		"metadata", value.DictOf("name", "t1", "namespace", "apps"))
	j.Result(&run.Event{Host: "localhost", Task: task, Name: "reconcile", Status: run.StatusChanged, Item: true,
		Result: value.DictOf("changed", true, "item", obj)})
	j.Result(&run.Event{Host: "localhost", Task: task, Name: "reconcile", Status: run.StatusFailed, Item: true, NoLog: true,
		Result: value.DictOf("failed", true, "item", obj, "msg", []any{"a", 1})})
	j.Result(&run.Event{Host: "localhost", Task: task, Name: "reconcile", Status: run.StatusFailed, Ignored: true,
		Result: value.DictOf("failed", true, "msg", []any{"a", 1})})
	j.Warn(diag.Warn("careful", nil))
	j.Error(errors.New("bad thing"))
	j.Event("metrics_error", value.DictOf("error", "listen: in use"))
	j.Event("cycle_start", value.DictOf("cycle", 1))

	var evs []map[string]any
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &ev), l)
		require.Equal(t, 1700000000.123457, ev["ts"], l)
		require.IsType(t, "", ev["msg"], l)
		require.True(t, strings.HasPrefix(l, `{"level":`), "level leads the line: %s", l)
		evs = append(evs, ev)
	}
	require.Len(t, evs, 7)
	require.Equal(t, "info", evs[0]["level"])
	require.Equal(t, "changed: reconcile", evs[0]["msg"])
	require.Equal(t, "reconcile", evs[0]["task"])
	require.Equal(t, "apps/t1", evs[0]["key"])
	require.Equal(t, "error", evs[1]["level"])
	require.NotContains(t, evs[1], "key", "a no_log result names no object")
	require.Equal(t, "info", evs[2]["level"], "an ignored failure is not an error")
	require.Equal(t, "['a', 1]", evs[2]["msg"])
	require.Equal(t, "warn", evs[3]["level"])
	require.Equal(t, "careful", evs[3]["msg"])
	require.Equal(t, "error", evs[4]["level"])
	require.Equal(t, "error", evs[5]["level"])
	require.Equal(t, "metrics_error", evs[5]["msg"])
	require.Equal(t, "info", evs[6]["level"])
	require.Equal(t, "cycle_start", evs[6]["msg"])
}
