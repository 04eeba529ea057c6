package display

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/stretchr/testify/require"
)

// fakeClock advances by the given steps each time it is read.
func fakeClock(start time.Time, steps ...time.Duration) func() time.Time {
	now, i := start, 0
	return func() time.Time {
		t := now
		if i < len(steps) {
			now = now.Add(steps[i])
			i++
		}
		return t
	}
}

func TestProfileTasksSortsAndLimits(t *testing.T) {
	start := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	now := start
	clock := func() time.Time { return now }
	aggs, warns := NewAggregates([]string{"ansible.posix.profile_tasks", "nope"}, CallbackOptions{Out: &out, Now: clock, ProfileTasksLimit: "2", ProfileTasksSort: "descending"})
	require.Len(t, aggs, 1)
	require.Len(t, warns, 1)
	require.Equal(t, "Skipping callback plugin 'nope', unable to load", warns[0].Summary)
	a, b, c := &playbook.Task{}, &playbook.Task{}, &playbook.Task{}
	aggs[0].TaskStart(a, "short", false)
	now = now.Add(time.Second)
	aggs[0].TaskStart(b, "long", false)
	now = now.Add(3 * time.Second)
	aggs[0].TaskStart(c, "middle", false)
	now = now.Add(2 * time.Second)
	aggs[0].Summary()
	text := out.String()
	require.Regexp(t, regexp.MustCompile(`(?m)^Saturday 28 November 2026  09:00:0\d \+0000 \(\d:\d\d:\d\d\.\d{3}\)       \d:\d\d:\d\d\.\d{3} \*+ $`), text)
	lines := strings.Split(strings.TrimSpace(text), "\n")
	tail := lines[len(lines)-2:]
	require.Equal(t, "long "+strings.Repeat("-", 65)+strings.Repeat("-", 3)+" 3.00s", tail[0])
	require.Equal(t, "middle "+strings.Repeat("-", 63)+strings.Repeat("-", 3)+" 2.00s", tail[1], "limited to 2: short is left out")
	for _, l := range strings.Split(text, "\n") {
		if l != "" && !strings.HasPrefix(l, "\n") {
			require.LessOrEqual(t, len([]rune(l)), 80, l)
		}
	}
}

func TestSecondsToStr(t *testing.T) {
	require.Equal(t, "0:00:00.072", secondsToStr(72*time.Millisecond))
	require.Equal(t, "1:01:01.999", secondsToStr(time.Hour+time.Minute+time.Second+999*time.Millisecond+900*time.Microsecond))
	require.Equal(t, "* ", filled("", "*")[78:])
}

func TestTimerFormat(t *testing.T) {
	var out bytes.Buffer
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	aggs, _ := NewAggregates([]string{"timer"}, CallbackOptions{Out: &out, Now: fakeClock(start, 0, 26*time.Hour+61*time.Second)})
	aggs[0].Summary()
	require.Equal(t, "\nPLAYBOOK RECAP "+strings.Repeat("*", 65)+"\nPlaybook run took 1 days, 2 hours, 1 minutes, 1 seconds\n\r\n", out.String())
}
