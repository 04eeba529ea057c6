package promtext

import (
	"bytes"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Runtime writes the Go, process and build-info families in the text
// format, each with its # TYPE line, and a second scrape works too.
func TestRuntimeMetrics(t *testing.T) {
	for range 2 {
		var b bytes.Buffer
		n, err := Runtime().WriteTo(&b)
		require.NoError(t, err)
		require.Equal(t, int64(b.Len()), n)
		text := b.String()
		for _, fam := range []string{"go_goroutines gauge", "go_gc_duration_seconds summary", "go_memstats_alloc_bytes gauge",
			"process_resident_memory_bytes gauge", "process_cpu_seconds_total counter", "process_open_fds gauge",
			"process_start_time_seconds gauge", "cfzt_build_info gauge"} {
			require.Contains(t, text, "\n# TYPE "+fam+"\n", "in:\n%s", text)
		}
		// client_golang writes labels in name order.
		want := `cfzt_build_info{goversion="` + runtime.Version() + `",revision="`
		require.Contains(t, text, "\n"+want)
		require.Contains(t, text, `",version="`+Version+`"} 1`+"\n")
		require.Regexp(t, `(?m)^cfzt_build_info\{[^}]*\} 1$`, text)
		// Every sample line is well formed.
		sample := regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*"(,[a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*")*\})? ([-+0-9.eE]+|[-+]Inf|NaN)$`)
		for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if strings.HasPrefix(line, "# ") {
				continue
			}
			require.Regexp(t, sample, line)
		}
	}
}

// A version holding quotes, backslashes and a newline (it comes from the
// build's -ldflags) cannot break out of its label value.
func TestBuildInfoEscapes(t *testing.T) {
	text := buildInfoText(t, "1.0\"} evil 1\n\\x")
	require.Contains(t, text, `,version="1.0\"} evil 1\n\\x"} 1`+"\n")
	require.NotContains(t, text, "\nevil")
}

func buildInfoText(t *testing.T, version string) string {
	t.Helper()
	var b bytes.Buffer
	_, err := runtimeWriter{newRuntimeRegistry(version)}.WriteTo(&b)
	require.NoError(t, err)
	return b.String()
}
