package waitfor

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// fakeClock advances only when the module sleeps, so waits that time out
// take no real time; onSleep runs at each sleep, to change the world.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	onSleep func()
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.now = c.now.Add(d)
	f := c.onSleep
	c.mu.Unlock()
	if f != nil {
		f()
	}
	return ctx.Err()
}

func runWait(t *testing.T, clock Clock, args ...any) *value.Dict {
	t.Helper()
	res, err := New(clock).Run(moduletest.NewHost(nil).Request("wait_for", args...))
	require.NoError(t, err)
	return res
}

func TestWaitForPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "log")
	require.NoError(t, os.WriteFile(file, []byte("starting\nready on port 8080\n"), 0o640))
	clock := &fakeClock{now: time.Unix(0, 0)}

	res := runWait(t, clock, "path", file, "search_regex", `ready on (?P<what>\w+) (\d+)$`)
	for k, want := range map[string]any{"changed": false, "elapsed": 0, "state": "file", "mode": "0640", "size": 28, "path": file,
		"port": nil, "match_groups": []any{"port", "8080"}, "match_groupdict": value.DictOf("what", "port")} {
		require.Equal(t, want, res.Default(k, nil), k)
	}
	for _, k := range []string{"uid", "gid", "owner", "group"} {
		require.True(t, res.Has(k), k)
	}

	res = runWait(t, clock, "path", filepath.Join(dir, "gone"), "state", "absent")
	require.Equal(t, value.DictOf("changed", false, "state", "absent", "port", nil, "search_regex", nil, "match_groups", []any{},
		"match_groupdict", value.NewDict(0), "path", filepath.Join(dir, "gone"), "elapsed", 0), res)

	res = runWait(t, clock, "path", file, "search_regex", "never", "timeout", 3)
	require.Equal(t, failedAfter("Timeout when waiting for search string never in "+file, 3), res)

	res = runWait(t, clock, "path", file, "state", "absent", "timeout", 2, "msg", "still there")
	require.Equal(t, failedAfter("still there", 2), res)

	res = runWait(t, clock, "path", filepath.Join(file, "x"))
	require.Equal(t, failedAfter("Failed to stat "+filepath.Join(file, "x")+", Not a directory", 0), res)

	late := filepath.Join(dir, "late")
	clock.onSleep = func() { _ = os.WriteFile(late, nil, 0o600) }
	res = runWait(t, clock, "path", late, "sleep", 2)
	require.Equal(t, 2, res.Default("elapsed", nil), "the file appears after the first sleep")
}

func TestWaitForPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("SSH-2.0-test\r\n"))
			_ = c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	clock := &fakeClock{now: time.Unix(0, 0)}

	res := runWait(t, clock, "port", port)
	require.Equal(t, value.DictOf("changed", false, "state", "started", "port", port, "search_regex", nil, "match_groups", []any{},
		"match_groupdict", value.NewDict(0), "path", nil, "elapsed", 0), res)

	res = runWait(t, SystemClock{}, "port", port, "search_regex", `SSH-(\d)`, "timeout", 2)
	require.Equal(t, []any{"2"}, res.Default("match_groups", nil))

	closed := freePort(t)
	res = runWait(t, clock, "port", closed, "state", "stopped")
	require.Equal(t, "stopped", res.Default("state", nil))

	res = runWait(t, clock, "port", closed, "timeout", 2)
	require.Equal(t, failedAfter("Timeout when waiting for 127.0.0.1:"+strconv.Itoa(closed), 2), res)

	res = runWait(t, clock, "port", port, "state", "stopped", "timeout", 1)
	require.Equal(t, failedAfter("Timeout when waiting for 127.0.0.1:"+strconv.Itoa(port)+" to stop.", 1), res)
}

func TestWaitForDrained(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	conn, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	server, err := ln.Accept()
	require.NoError(t, err)

	clock := &fakeClock{now: time.Unix(0, 0)}
	res := runWait(t, clock, "port", port, "state", "drained", "timeout", 2)
	require.Equal(t, failedAfter("Timeout when waiting for 127.0.0.1:"+strconv.Itoa(port)+" to drain", 2), res)

	res = runWait(t, clock, "port", port, "state", "drained", "timeout", 2, "exclude_hosts", []any{"127.0.0.1"})
	require.Equal(t, "drained", res.Default("state", nil), "connections from excluded hosts do not count")

	clock.onSleep = func() { _ = conn.Close(); _ = server.Close() }
	res = runWait(t, clock, "port", port, "state", "drained", "timeout", 5,
		"active_connection_states", []any{"ESTABLISHED"})
	require.Equal(t, "drained", res.Default("state", nil))
}

func TestWaitForArguments(t *testing.T) {
	clock := &fakeClock{now: time.Unix(0, 0)}
	for _, tc := range []struct {
		args []any
		want *value.Dict
	}{
		{[]any{"port", 1, "path", "/x"}, failedAfter("port and path parameter can not both be passed to wait_for", 0)},
		{[]any{"path", "/x", "state", "stopped"}, failedAfter("state=stopped should only be used for checking a port in the wait_for module", 0)},
		{[]any{"path", "/x", "state", "drained"}, failedAfter("state=drained should only be used for checking a port in the wait_for module", 0)},
		{[]any{"port", 1, "exclude_hosts", []any{"a"}}, failedAfter("exclude_hosts should only be with state=drained", 0)},
		{[]any{"port", 1, "active_connection_states", []any{"CLOSED"}}, failedAfter("unknown active_connection_state (CLOSED) defined", 0)},
		{[]any{"path", "/x", "search_regex", "("}, module.Failed("Invalid regular expression: missing closing ): `(?m)(`")},
		{[]any{"state", "up"}, module.Failed("value of state must be one of: absent, drained, present, started, stopped, got: up")},
		{[]any{"timeout", 0}, value.DictOf("changed", false, "state", "started", "port", nil, "search_regex", nil,
			"match_groups", []any{}, "match_groupdict", value.NewDict(0), "path", nil, "elapsed", 0)},
	} {
		require.Equal(t, tc.want, runWait(t, clock, tc.args...), tc.args)
	}
	req := moduletest.NewHost(nil).Request("ansible.builtin.wait_for", "timeout", 1)
	req.Check = true
	res, err := New(clock).Run(req)
	require.NoError(t, err)
	require.Equal(t, value.DictOf("changed", false, "skipped", true,
		"msg", "remote module (ansible.builtin.wait_for) does not support check mode"), res)
}

func TestWaitForSleepsUntilTimeout(t *testing.T) {
	clock := &fakeClock{now: time.Unix(0, 0)}
	res := runWait(t, clock, "timeout", 7, "delay", 2)
	require.Equal(t, 9, res.Default("elapsed", nil))
}

// freePort returns a loopback port nothing listens on.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	return port
}
