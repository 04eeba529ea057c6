package sdk

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// TestFailureMessagesFromFailedResults: as ansible-operator reads
// runner_on_failed events, the Failure message holds the msg of each
// failed task result: a loop's own "One or more items failed", not its
// items' errors, and nothing from a task under ignore_errors or from the
// errors the executor shows beside a result.
func TestFailureMessagesFromFailedResults(t *testing.T) {
	var out bytes.Buffer
	d := &jobDisplay{log: &Logger{Out: &out}, level: LogTasks, now: time.Now}
	d.Error(errors.New("Task failed: Action failed: ignored"))
	d.Result(&run.Event{Name: "r : ignored", Status: run.StatusFailed, Ignored: true, Result: value.DictOf("failed", true, "msg", "ignored")})
	for _, item := range []string{"a", "b"} {
		d.Error(errors.New("Task failed: Action failed: item " + item))
		d.Result(&run.Event{Name: "r : loop", Status: run.StatusFailed, Item: true, Result: value.DictOf("failed", true, "msg", "item "+item)})
	}
	d.Result(&run.Event{Name: "r : loop", Status: run.StatusFailed, Loop: true, Result: value.DictOf("failed", true, "msg", "One or more items failed")})
	d.Result(&run.Event{Name: "r : no msg", Status: run.StatusFailed, Result: value.DictOf("failed", true)})
	require.Equal(t, []string{"One or more items failed", "unknown playbook failure"}, d.out.Failures)
	require.NotContains(t, out.String(), "Action failed")

	// A file that does not load is a failure of its own.
	d.ControllerError(errors.New("the role 'x' was not found"))
	require.Equal(t, "the role 'x' was not found", d.out.Failures[2])
}

// TestAPIWarningsLoggedOnce: each apiserver warning text is logged once,
// in JSON, by KubeAPIWarningLogger; other codes and empty texts are not.
func TestAPIWarningsLoggedOnce(t *testing.T) {
	var out bytes.Buffer
	w := &APIWarnings{Log: &Logger{Out: &out}}
	for i := 0; i < 3; i++ {
		w.HandleWarningHeader(299, "", `unknown field "status.conditions[0].ansibleResult"`)
	}
	w.HandleWarningHeader(299, "", `unknown field "status.conditions[1].ansibleResult"`)
	w.HandleWarningHeader(199, "", "other code")
	w.HandleWarningHeader(299, "", "")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2)
	require.Contains(t, lines[0], `"level":"info"`)
	require.Contains(t, lines[0], `"logger":"KubeAPIWarningLogger","msg":"unknown field \"status.conditions[0].ansibleResult\""`)
	require.Contains(t, lines[1], `conditions[1]`)
}

// TestRolePlayNamesRoleByBaseName: a watch's role runs as ansible-runner's
// --role runs it, under its directory's name, through a link the loader
// resolves back to the role's directory.
func TestRolePlayNamesRoleByBaseName(t *testing.T) {
	roles := t.TempDir()
	role := writeFile(t, roles, "memcached/tasks/main.yml", "[]\n")
	r := &EngineRunner{WorkDir: t.TempDir()}
	p, err := r.rolePlay(filepath.Dir(filepath.Dir(role)))
	require.NoError(t, err)
	src, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Contains(t, string(src), `- role: "memcached"`)
	target, err := os.Readlink(filepath.Join(filepath.Dir(p), "roles", "memcached"))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(roles, "memcached"), target)
	again, err := r.rolePlay(filepath.Join(roles, "memcached"))
	require.NoError(t, err)
	require.Equal(t, p, again)
	// A name that was not found stays as written (Validate reports it).
	p, err = r.rolePlay("missing")
	require.NoError(t, err)
	src, err = os.ReadFile(p)
	require.NoError(t, err)
	require.Contains(t, string(src), `- role: "missing"`)
}
