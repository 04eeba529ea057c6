package files

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// copyHost is a test host whose remote and local temp live under dir.
func copyHost(t *testing.T, dir string) *moduletest.Host {
	t.Setenv("ANSIBLE_LOCAL_TEMP", filepath.Join(dir, "local-tmp"))
	t.Setenv("ANSIBLE_REMOTE_TEMP", filepath.Join(dir, "remote-tmp"))
	h := moduletest.NewHost(nil)
	h.Dirs = []string{filepath.Join(dir, "play")}
	return h
}

func TestCopyContent(t *testing.T) {
	dir := t.TempDir()
	h := copyHost(t, dir)
	dest := filepath.Join(dir, "out.txt")
	res, err := runOn(t, h, "copy", "content", "hello\n", "dest", dest, "mode", "0640")
	require.NoError(t, err)
	require.Equal(t, true, res.Default("changed", nil))
	require.Equal(t, "f572d396fae9206628714fb2ce00f72e94f2258f", res.Default("checksum", nil))
	require.Equal(t, "b1946ac92492d2347c6235b4d2611184", res.Default("md5sum", nil))
	require.Regexp(t, `/remote-tmp/ansible-tmp-[0-9.]+-[0-9]+-[0-9]+/\.source\.txt$`, res.Default("src", nil))
	require.Equal(t, "hello\n", readFile(t, dest))
	require.Equal(t, int64(0o640), modeOf(t, dest))

	res, err = runOn(t, h, "copy", "content", "hello\n", "dest", dest)
	require.NoError(t, err)
	require.Equal(t, false, res.Default("changed", nil))
	require.Equal(t, dest, res.Default("path", nil))

	res, err = runOn(t, h, "copy", "content", value.DictOf("b", 1, "a", []any{true, nil}), "dest", dest, "backup", true)
	require.NoError(t, err)
	require.Equal(t, `{"b": 1, "a": [true, null]}`, readFile(t, dest))
	require.Regexp(t, regexp.QuoteMeta(dest)+`\.[0-9]+\.[0-9]{4}-[0-9]{2}-[0-9]{2}@[0-9:]{8}~$`, res.Default("backup_file", nil))
	require.Equal(t, "hello\n", readFile(t, value.Str(res.Default("backup_file", nil))))

	entries, err := os.ReadDir(filepath.Join(dir, "remote-tmp"))
	require.NoError(t, err)
	require.Empty(t, entries, "the transfer directories are removed")
}

func TestCopySourceTree(t *testing.T) {
	dir := t.TempDir()
	h := copyHost(t, dir)
	writeFile(t, filepath.Join(dir, "play", "files", "tree", "a.txt"), "a\n")
	writeFile(t, filepath.Join(dir, "play", "files", "tree", "sub", "b.txt"), "b\n")
	dest := filepath.Join(dir, "out")
	res, err := runOn(t, h, "copy", "src", "tree", "dest", dest, "directory_mode", "0700")
	require.NoError(t, err)
	require.Equal(t, true, res.Default("changed", nil))
	require.Equal(t, dest+"/", res.Default("dest", nil))
	require.Equal(t, "b\n", readFile(t, filepath.Join(dest, "tree", "sub", "b.txt")))
	require.Equal(t, int64(0o700), modeOf(t, filepath.Join(dest, "tree", "sub")))

	res, err = runOn(t, h, "copy", "src", "tree/", "dest", filepath.Join(dir, "flat"))
	require.NoError(t, err)
	require.Equal(t, "a\n", readFile(t, filepath.Join(dir, "flat", "a.txt")))
	require.Equal(t, true, res.Default("changed", nil))
}

func TestCopyMissingSource(t *testing.T) {
	dir := t.TempDir()
	h := copyHost(t, dir)
	_, err := runOn(t, h, "copy", "src", "nope.txt", "dest", dir)
	var af *diag.Diagnostic
	require.ErrorAs(t, err, &af)
	require.True(t, af.AsResult)
	want := "Unexpected AnsibleActionFail error: Could not find or access 'nope.txt'\nSearched in:\n\t" +
		strings.Join([]string{filepath.Join(dir, "play", "files", "nope.txt"), filepath.Join(dir, "play", "nope.txt")}, "\n\t") +
		" on the Ansible Controller.\nIf you are using a module and expect the file to exist on the remote, see the remote_src option"
	require.Equal(t, want, af.Summary)
}

func TestCopyActionFailures(t *testing.T) {
	dir := t.TempDir()
	h := copyHost(t, dir)
	for _, tc := range []struct {
		args []any
		msg  string
	}{
		{[]any{"dest", dir}, "src (or content) is required"},
		{[]any{"content", "x"}, "dest is required"},
		{[]any{"content", "x", "src", "y", "dest", dir}, "src and content are mutually exclusive"},
		{[]any{"content", "x", "dest", dir + "/"}, "can not use content with a dir as dest"},
		{[]any{"content", "x", "dest", dir}, "can not use content with a dir as dest"},
	} {
		res, err := runOn(t, h, "copy", tc.args...)
		require.NoError(t, err)
		require.Equal(t, tc.msg, res.Default("msg", nil))
		require.True(t, module.IsActionFailure(res))
	}
	res, err := runOn(t, h, "copy", "content", "x", "dest", filepath.Join(dir, "v"), "validate", "false %s")
	require.NoError(t, err)
	require.Equal(t, "failed to validate", res.Default("msg", nil))
	require.Equal(t, 1, res.Default("exit_status", nil))
	require.False(t, exists(filepath.Join(dir, "v")))
}

func TestCopyCheckAndDiff(t *testing.T) {
	dir := t.TempDir()
	h := copyHost(t, dir)
	dest := filepath.Join(dir, "f")
	writeFile(t, dest, "old\n")
	req := h.Request("copy", "content", "new\n", "dest", dest)
	req.Check, req.Diff = true, true
	res, err := runReq(t, req)
	require.NoError(t, err)
	require.Equal(t, true, res.Default("changed", nil))
	require.Equal(t, "old\n", readFile(t, dest))
	diff := res.Default("diff", nil).([]any)[0].(*value.Dict)
	require.Equal(t, "old\n", diff.Default("before", nil))
	require.Equal(t, "new\n", diff.Default("after", nil))
	require.Equal(t, dest, diff.Default("after_header", nil))
}

func TestCopyRemoteSrcDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src", "x"), "x\n")
	writeFile(t, filepath.Join(dir, "src", "d", "y"), "y\n")
	res := mustRun(t, "copy", "src", filepath.Join(dir, "src"), "dest", filepath.Join(dir, "dst"), "remote_src", true)
	require.Equal(t, true, res.Default("changed", nil))
	require.Equal(t, "y\n", readFile(t, filepath.Join(dir, "dst", "src", "d", "y")))
	writeFile(t, filepath.Join(dir, "src", "d", "z"), "z\n")
	res = mustRun(t, "copy", "src", filepath.Join(dir, "src"), "dest", filepath.Join(dir, "dst"), "remote_src", true)
	require.Equal(t, true, res.Default("changed", nil))
	require.Equal(t, "z\n", readFile(t, filepath.Join(dir, "dst", "src", "d", "z")))
	res = mustRun(t, "copy", "src", filepath.Join(dir, "src"), "dest", filepath.Join(dir, "dst"), "remote_src", true)
	require.Equal(t, false, res.Default("changed", nil))
}

func TestWriteRendered(t *testing.T) {
	dir := t.TempDir()
	h := copyHost(t, dir)
	dest := filepath.Join(dir, "app.conf")
	req := h.Request("template", "dest", dest, "mode", "0600")
	req.Diff = true
	res, err := WriteRendered(req, req.Args, "app.conf.j2", []byte("rendered\n"))
	require.NoError(t, err)
	require.Equal(t, true, res.Default("changed", nil))
	require.Equal(t, "rendered\n", readFile(t, dest))
	require.Equal(t, int64(0o600), modeOf(t, dest))
	diff := res.Default("diff", nil).([]any)[0].(*value.Dict)
	require.Regexp(t, `/ansible-local-[0-9]+[a-z0-9_]{8}/tmp[a-z0-9_]{8}/app\.conf\.j2$`, diff.Default("after_header", nil))
	res, err = WriteRendered(req, req.Args, "app.conf.j2", []byte("rendered\n"))
	require.NoError(t, err)
	require.Equal(t, false, res.Default("changed", nil))
}
