package display

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/stretchr/testify/require"
)

// TestLogFormat: log_path records what the display shows in
// ansible-core's logging format: time, pid, user, logger name, level.
func TestLogFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ansible.log")
	var warn bytes.Buffer
	l := OpenLog(path, &warn)
	require.NotNil(t, l)
	l.Now = func() time.Time { return time.Date(2026, 11, 28, 9, 36, 32, 409_900_000, time.UTC) }
	var out, errOut bytes.Buffer
	d := &Default{Out: l.Tee(&out, false), Err: l.Tee(&errOut, true), Color: true}
	d.PlayStart("p1")
	d.Warn(&diagWarning)
	d.ControllerError(errors.New("boom"))
	d.Recap(nil)
	require.NoError(t, l.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	prefix := regexp.MustCompile(`^2026-11-28 09:36:32,409 p=\d+ u=\S+ n=ansible (INFO|WARNING|ERROR)\| `)
	for _, line := range lines {
		require.Regexp(t, prefix, line)
	}
	require.Len(t, lines, 4)
	require.True(t, strings.HasSuffix(lines[0], "INFO| PLAY [p1] "+strings.Repeat("*", 70)), "no colour, no leading line break: %q", lines[0])
	require.True(t, strings.HasSuffix(lines[1], "WARNING| [WARNING]: careful"), lines[1])
	require.True(t, strings.HasSuffix(lines[2], "ERROR| [ERROR]: boom"), lines[2])
	require.True(t, strings.HasSuffix(lines[3], "INFO| PLAY RECAP "+strings.Repeat("*", 69)), lines[3])
	require.Contains(t, errOut.String(), "\x1b[", "the screen keeps its colour")
	require.Empty(t, warn.String())

	require.Nil(t, OpenLog(t.TempDir(), &warn))
	require.Regexp(t, `^\[WARNING\]: DEFAULT_LOG_PATH can not be a directory '.*', aborting\n$`, warn.String())
	warn.Reset()
	require.Nil(t, OpenLog(filepath.Join(t.TempDir(), "no", "such", "dir", "x.log"), &warn))
	require.Regexp(t, `^\[WARNING\]: log file at '.*' is not writeable and we cannot create it, aborting\n\n$`, warn.String())
}

var diagWarning = *diag.Warn("careful", nil)
