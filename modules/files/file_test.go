package files

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
)

func TestFileStates(t *testing.T) {
	dir := t.TempDir()
	nested := filepath.Join(dir, "a", "b")
	res := mustRun(t, "file", "path", nested, "state", "directory", "mode", "0750")
	require.Equal(t, true, res.Default("changed", nil))
	require.Equal(t, "directory", res.Default("state", nil))
	require.Equal(t, int64(0o750), modeOf(t, nested))
	require.Equal(t, false, mustRun(t, "file", "path", nested, "state", "directory", "mode", "0750").Default("changed", nil))

	f := filepath.Join(nested, "t")
	res = mustRun(t, "file", "path", f, "state", "touch", "modification_time", "202001021530.45", "access_time", "preserve")
	require.Equal(t, f, res.Default("dest", nil))
	st, err := os.Stat(f)
	require.NoError(t, err)
	require.Equal(t, time.Date(2020, 1, 2, 15, 30, 45, 0, time.Local).Unix(), st.ModTime().Unix())

	link := filepath.Join(dir, "l")
	res = mustRun(t, "file", "src", "a/b/t", "dest", link, "state", "link")
	require.Equal(t, "link", res.Default("state", nil))
	target, err := os.Readlink(link)
	require.NoError(t, err)
	require.Equal(t, "a/b/t", target)

	hard := filepath.Join(dir, "h")
	mustRun(t, "file", "src", f, "dest", hard, "state", "hard")
	require.Equal(t, "hard", pathState(hard))

	res = mustRun(t, "file", "path", filepath.Join(dir, "a"), "state", "absent")
	require.Equal(t, true, res.Default("changed", nil))
	require.False(t, lexists(filepath.Join(dir, "a")))
}

func TestFileFailures(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []any
		msg  string
	}{
		{[]any{"path", filepath.Join(dir, "x"), "state", "file"}, "file (" + filepath.Join(dir, "x") + ") is absent, cannot continue"},
		{[]any{"path", dir, "state", "touch", "recurse", true}, "recurse option requires state to be 'directory'"},
		{[]any{"path", filepath.Join(dir, "l"), "state", "link"}, "src is required for creating new symlinks"},
		{[]any{"path", dir, "state", "nothing"}, "value of state must be one of: absent, directory, file, hard, link, touch, got: nothing"},
		{[]any{"path", dir, "bogus", 1}, "Unsupported parameters for (file) module: bogus. Supported parameters include: _diff_peek, _original_basename, access_time, access_time_format, attributes, follow, force, group, mode, modification_time, modification_time_format, owner, path, recurse, selevel, serole, setype, seuser, src, state, unsafe_writes (attr, dest, name)."},
		{[]any{"path", dir, "owner", "no-such-user-cfzt"}, "chown failed: failed to look up user no-such-user-cfzt"},
	} {
		res, err := run(t, "file", tc.args...)
		require.NoError(t, err)
		require.Equal(t, true, res.Default("failed", nil), tc.msg)
		require.Equal(t, tc.msg, res.Default("msg", nil))
	}
}

func TestFileCheckModeChangesNothing(t *testing.T) {
	dir := t.TempDir()
	h := moduletest.NewHost(nil)
	req := h.Request("file", "path", filepath.Join(dir, "new"), "state", "directory")
	req.Check, req.Diff = true, true
	res, err := runReq(t, req)
	require.NoError(t, err)
	require.Equal(t, true, res.Default("changed", nil))
	require.False(t, exists(filepath.Join(dir, "new")))
	diff := res.Default("diff", nil).(*value.Dict)
	require.Equal(t, "absent", diff.Default("before", nil).(*value.Dict).Default("state", nil))
	require.Equal(t, "directory", diff.Default("after", nil).(*value.Dict).Default("state", nil))
}

func TestAddPathInfo(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	writeFile(t, f, "abc")
	res := value.DictOf("path", f)
	addPathInfo(res)
	require.Equal(t, "file", res.Default("state", nil))
	require.Equal(t, 3, res.Default("size", nil))
	require.Equal(t, "0644", res.Default("mode", nil))
	res = value.DictOf("dest", filepath.Join(dir, "missing"))
	addPathInfo(res)
	require.False(t, res.Has("state"))
}

func TestFileFailureCauses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "missing", "t")
	res, err := run(t, "file", "path", path, "state", "touch")
	require.NoError(t, err)
	require.Equal(t, "Error, could not touch target.", res.Default("msg", nil))
	require.EqualError(t, res.Default("exception", nil).(error),
		"Error, could not touch target: [Errno 2] No such file or directory: b'"+path+"'")
}
