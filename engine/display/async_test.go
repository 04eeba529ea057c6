package display

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/run"
)

// TestAsyncLines checks the default callback's async lines and the JSON
// display's async events, with the job id hidden under no_log.
func TestAsyncLines(t *testing.T) {
	cases := []struct {
		name     string
		ev       run.AsyncEvent
		text     string
		jsonName string
	}{
		{"poll", run.AsyncEvent{Kind: run.AsyncPoll, Host: "h", JID: "j1.2", Started: true},
			"ASYNC POLL on h: jid=j1.2 started=True finished=False\n", "async_poll"},
		{"ok", run.AsyncEvent{Kind: run.AsyncOK, Host: "h", JID: "j1.2"}, "ASYNC OK on h: jid=j1.2\n", "async_ok"},
		{"failed", run.AsyncEvent{Kind: run.AsyncFailed, Host: "h", JID: "j1.2"}, "ASYNC FAILED on h: jid=j1.2\n", "async_failed"},
		{"no_log", run.AsyncEvent{Kind: run.AsyncOK, Host: "h", JID: "j1.2", NoLog: true}, "ASYNC OK on h: jid=None\n", "async_ok"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var text strings.Builder
			(&Default{Out: &text, Err: &text}).Async(c.ev)
			require.Equal(t, c.text, text.String())

			var line strings.Builder
			(&JSON{Out: &line, Now: func() time.Time { return time.Unix(0, 0) }}).Async(c.ev)
			var ev map[string]any
			require.NoError(t, json.Unmarshal([]byte(line.String()), &ev))
			require.Equal(t, c.jsonName, ev["event"])
			if c.ev.NoLog {
				require.NotContains(t, ev, "jid")
			} else {
				require.Equal(t, c.ev.JID, ev["jid"])
			}
		})
	}
}
