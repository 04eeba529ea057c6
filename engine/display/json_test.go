package display

import (
	"bufio"
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

// Every line of the JSON display is one JSON object; no_log results are
// censored and secrets masked exactly as in the default display.
func TestJSONDisplay(t *testing.T) {
	var b strings.Builder
	j := &JSON{Out: &b, Verbose: 1, Now: func() time.Time { return time.Unix(0, 0) }}
	task := &playbook.Task{Name: "t", Module: "uri", Action: "ansible.builtin.uri", Pos: value.Pos{File: "x.yml", Line: 3, Col: 3}}
	j.PlaybookStart(&playbook.Playbook{Path: "/p/site.yml"})
	j.PlayStart("play one")
	j.Result(&run.Event{Host: "localhost", Task: task, Name: "t", Status: run.StatusChanged,
		Result: value.DictOf("changed", true, "msg", "done", "headers", value.DictOf("Authorization", "Bearer s3cret"), "nan", nanValue())})
	j.Result(&run.Event{Host: "localhost", Task: task, Name: "t", Status: run.StatusOK, NoLog: true,
		Result: value.DictOf("changed", false, "msg", "the token is s3cret", "item", "s3cret", "_ansible_no_log", true), Item: true})
	j.Result(&run.Event{Host: "localhost", Task: task, Name: "t", Status: run.StatusFailed, Ignored: true,
		Result: value.DictOf("failed", true, "msg", "boom", "resources", []any{value.DictOf("kind", "Secret", "data", value.DictOf("token", "czNjcmV0"))})})
	// A successful loop sends its items, then an aggregate that must not
	// become a second event; a failed aggregate is kept, marked as a loop.
	j.Result(&run.Event{Host: "localhost", Task: task, Name: "t", Status: run.StatusOK, Item: true,
		Result: value.DictOf("changed", false, "item", "a", "msg", "item a")})
	j.Result(&run.Event{Host: "localhost", Task: task, Name: "t", Status: run.StatusOK, Loop: true,
		Result: value.DictOf("changed", false, "msg", "All items completed", "results", []any{value.DictOf("item", "a")})})
	j.Result(&run.Event{Host: "localhost", Task: task, Name: "t", Status: run.StatusFailed, Loop: true,
		Result: value.DictOf("failed", true, "msg", "One or more items failed", "results", []any{})})
	j.Warn(diag.Warn("careful", nil))
	j.Error(errors.New("bad thing"))
	j.Recap([]*run.Stats{{Host: "localhost", OK: 1, Changed: 1, Failed: 1, Ignored: 1}})
	j.Event("cycle_end", value.DictOf("cycle", 3, "result", "ok"))

	out := b.String()
	require.NotContains(t, out, "s3cret")
	require.NotContains(t, out, "czNjcmV0")
	var events []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var ev map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), "line %q", sc.Text())
		require.Equal(t, "1970-01-01T00:00:00Z", ev["time"])
		events = append(events, ev)
	}
	names := []string{}
	for _, ev := range events {
		names = append(names, ev["event"].(string))
	}
	require.Equal(t, []string{"playbook_start", "play_start", "result", "result", "result", "result", "result", "warning", "error", "recap", "cycle_end"}, names)
	changed := events[2]
	require.Equal(t, "changed", changed["status"])
	require.Equal(t, "done", changed["msg"])
	require.Equal(t, "uri", changed["module"])
	require.Equal(t, "play one", changed["play"])
	require.Equal(t, "x.yml:3:3", changed["path"])
	res := changed["result"].(map[string]any)
	require.Equal(t, "********", res["headers"].(map[string]any)["Authorization"])
	require.Equal(t, "nan", res["nan"])
	censored := events[3]
	require.Equal(t, "(censored due to no_log)", censored["item"])
	require.Equal(t, "ok: t", censored["msg"], "a censored result keeps no msg of its own")
	require.Contains(t, censored["result"].(map[string]any)["censored"], "no_log: true")
	failed := events[4]
	require.Equal(t, true, failed["ignored"])
	require.Equal(t, "********", failed["result"].(map[string]any)["resources"].([]any)[0].(map[string]any)["data"].(map[string]any)["token"])
	item := events[5]
	require.Equal(t, "a", item["item"])
	require.Nil(t, item["loop"])
	loopFailed := events[6]
	require.Equal(t, true, loopFailed["loop"])
	require.Equal(t, "failed", loopFailed["status"])
	require.Equal(t, "One or more items failed", loopFailed["msg"])
	require.Equal(t, "[ERROR]: bad thing", events[8]["msg"])
	require.Equal(t, float64(1), events[9]["hosts"].(map[string]any)["localhost"].(map[string]any)["changed"])
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}
