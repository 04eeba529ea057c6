package sdk

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLoggerLinesCannotBeForged: a message or value taken from a watched
// object or a task (an attacker's CR name, a module's msg) cannot start a
// new log line or carry terminal escape codes, in text or in JSON.
func TestLoggerLinesCannotBeForged(t *testing.T) {
	evil := "ok\n2026-01-01T00:00:00Z INFO cmd \"forged\"\x1b[31m red"
	for _, text := range []bool{true, false} {
		var out strings.Builder
		l := &Logger{Out: &out, Text: text, Now: func() time.Time { return time.Unix(0, 0) }}
		l.Info("logging_event_handler", evil, "task", evil, "key", "ns/n", "n", 3, "obj", map[string]any{"a": evil})
		got := out.String()
		require.Equal(t, 1, strings.Count(got, "\n"), "one line: %q", got)
		require.NotContains(t, got, "\x1b", "no raw escape code: %q", got)
		if text {
			require.Equal(t, `1970-01-01T00:00:00Z INFO logging_event_handler "ok\n2026-01-01T00:00:00Z INFO cmd \"forged\"\x1b[31m red" `+
				`task="ok\n2026-01-01T00:00:00Z INFO cmd \"forged\"\x1b[31m red" key=ns/n n=3 obj={"a":"ok\n2026-01-01T00:00:00Z INFO cmd \"forged\"\u001b[31m red"}`+"\n", got)
		} else {
			var ev map[string]any
			require.NoError(t, json.Unmarshal([]byte(got), &ev))
			require.Equal(t, evil, ev["msg"])
			require.Equal(t, evil, ev["task"])
		}
	}
}
