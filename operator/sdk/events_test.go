package sdk

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
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

// TestAPIWarningsLogged: each apiserver warning is logged at info with
// its text as the message and the fields of the reconcile that made the
// request (controller-runtime's reconcile logger, no logger name), every
// time; other codes and empty texts are not.
func TestAPIWarningsLogged(t *testing.T) {
	var out bytes.Buffer
	w := &APIWarnings{Log: &Logger{Out: &out}}
	ctx := withReconcileLog(context.Background(), "probe-v1alpha1-controller", "ns", "p1")
	for i := 0; i < 2; i++ {
		w.HandleWarningHeaderWithContext(ctx, 299, "", `unknown field "status.conditions[0].ansibleResult"`)
	}
	w.HandleWarningHeaderWithContext(ctx, 199, "", "other code")
	w.HandleWarningHeaderWithContext(ctx, 299, "", "")
	w.HandleWarningHeaderWithContext(withReconcileLog(context.Background(), "c-v1-controller", "", "cluster"), 299, "", "w")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	require.Equal(t, lines[0][strings.Index(lines[0], `"msg"`):strings.Index(lines[0], `"reconcileID"`)], lines[1][strings.Index(lines[1], `"msg"`):strings.Index(lines[1], `"reconcileID"`)])
	require.Regexp(t, `^\{"level":"info","ts":[0-9.]+,"msg":"unknown field \\"status.conditions\[0\].ansibleResult\\"","controller":"probe-v1alpha1-controller","object":\{"name":"p1","namespace":"ns"\},"namespace":"ns","name":"p1","reconcileID":"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"\}$`, lines[0])
	require.Contains(t, lines[2], `"object":{"name":"cluster"},"namespace":"","name":"cluster"`)
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

// TestRequeueAfterAsksTheEntry: a result of the action whose entry has
// the Requeues trait sets the next reconcile; the name alone does not.
func TestRequeueAfterAsksTheEntry(t *testing.T) {
	d := &jobDisplay{log: &Logger{Out: &bytes.Buffer{}}, level: LogNothing, now: time.Now}
	named := &playbook.Task{Info: module.Info{FQCN: "operator_sdk.util.requeue_after"}}
	d.Result(&run.Event{Name: "named", Status: run.StatusOK, Task: named, Result: value.DictOf("period", "30s")})
	require.False(t, d.out.Requeue)
	entry := ModuleEntries(NewMetrics("", ""))[1]
	info := module.Info{FQCN: entry.FQCN, Flags: entry.Flags}
	d.Result(&run.Event{Name: "r", Status: run.StatusOK, Task: &playbook.Task{Info: info}, Result: value.DictOf("period", "30s")})
	require.True(t, d.out.Requeue)
	require.Equal(t, 30*time.Second, d.out.RequeueAfter)
}
