package files

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestStat(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	writeFile(t, f, "abc")
	require.NoError(t, os.Symlink("f", filepath.Join(dir, "l")))
	st := mustRun(t, "stat", "path", f, "checksum_algorithm", "sha256", "get_mime", false, "get_attributes", false).Default("stat", nil).(*value.Dict)
	require.Equal(t, true, st.Default("isreg", nil))
	require.Equal(t, "0644", st.Default("mode", nil))
	require.Equal(t, 3, st.Default("size", nil))
	require.Equal(t, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", st.Default("checksum", nil))
	require.False(t, st.Has("mimetype"))
	require.False(t, st.Has("attr_flags"))
	st = mustRun(t, "stat", "path", filepath.Join(dir, "l")).Default("stat", nil).(*value.Dict)
	require.Equal(t, true, st.Default("islnk", nil))
	require.Equal(t, "f", st.Default("lnk_target", nil))
	require.Equal(t, f, st.Default("lnk_source", nil))
	require.False(t, st.Has("checksum"))
	st = mustRun(t, "stat", "path", filepath.Join(dir, "none")).Default("stat", nil).(*value.Dict)
	require.Equal(t, []string{"exists"}, st.Keys())
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.log", "b.log", "c.txt", ".h.log", "sub/d.log", "sub/deep/e.log"} {
		writeFile(t, filepath.Join(dir, n), n+"\n")
	}
	names := func(res *value.Dict) []string {
		var out []string
		for _, f := range res.Default("files", nil).([]any) {
			p, _ := filepath.Rel(dir, value.Str(f.(*value.Dict).Default("path", nil)))
			out = append(out, p)
		}
		sort.Strings(out)
		return out
	}
	for _, tc := range []struct {
		args []any
		want []string
	}{
		{[]any{"patterns", "*.log"}, []string{"a.log", "b.log"}},
		{[]any{"patterns", "*.log", "recurse", true, "hidden", true}, []string{".h.log", "a.log", "b.log", "sub/d.log", "sub/deep/e.log"}},
		{[]any{"patterns", "*.log", "recurse", true, "depth", 2}, []string{"a.log", "b.log", "sub/d.log"}},
		{[]any{"patterns", `^[ac]\.`, "use_regex", true}, []string{"a.log", "c.txt"}},
		{[]any{"excludes", "*.log"}, []string{"c.txt"}},
		{[]any{"file_type", "directory", "recurse", true}, []string{"sub", "sub/deep"}},
		{[]any{"contains", "^b", "recurse", true}, []string{"b.log"}},
	} {
		res := mustRun(t, "find", append([]any{"paths", dir}, tc.args...)...)
		require.Equal(t, tc.want, names(res), "%v", tc.args)
	}
	res := mustRun(t, "find", "paths", []any{filepath.Join(dir, "missing")})
	require.Equal(t, "Not all paths examined, check warnings for details", res.Default("msg", nil))
	res, err := run(t, "find", "paths", dir, "age", "3x")
	require.NoError(t, err)
	require.Equal(t, "failed to process age", res.Default("msg", nil))
}

func TestTempfile(t *testing.T) {
	dir := t.TempDir()
	res := mustRun(t, "tempfile", "path", dir, "prefix", "p.", "suffix", ".s")
	require.Regexp(t, `/p\.[a-z0-9_]{8}\.s$`, res.Default("path", nil))
	require.Equal(t, "file", res.Default("state", nil))
	res = mustRun(t, "tempfile", "path", dir, "state", "directory")
	require.Equal(t, "directory", res.Default("state", nil))
	req := moduletest.NewHost(nil).Request("tempfile")
	req.Check = true
	res, err := runReq(t, req)
	require.NoError(t, err)
	require.Equal(t, true, res.Default("skipped", nil))
	require.Equal(t, "remote module (tempfile) does not support check mode", res.Default("msg", nil))
}

func TestFetch(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "remote", "app.log")
	writeFile(t, src, "log\n")
	res := mustRun(t, "fetch", "src", src, "dest", filepath.Join(dir, "local"))
	want := filepath.Join(dir, "local", "localhost", src)
	require.Equal(t, want, res.Default("dest", nil))
	require.Equal(t, true, res.Default("changed", nil))
	require.Equal(t, "log\n", readFile(t, want))
	res = mustRun(t, "fetch", "src", src, "dest", filepath.Join(dir, "flat.log"), "flat", true)
	require.Equal(t, filepath.Join(dir, "flat.log"), res.Default("dest", nil))
	res = mustRun(t, "fetch", "src", src, "dest", filepath.Join(dir, "flat.log"), "flat", true)
	require.Equal(t, false, res.Default("changed", nil))
	res = mustRun(t, "fetch", "src", filepath.Join(dir, "none"), "dest", dir, "fail_on_missing", false)
	require.Equal(t, "the remote file does not exist, not transferring, ignored", res.Default("msg", nil))
	_, err := run(t, "fetch", "src", src)
	var af *diag.Diagnostic
	require.ErrorAs(t, err, &af)
	require.True(t, af.AsResult)
	require.Equal(t, "src and dest are required", af.Summary)
}

func TestAssemble(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "parts", "2"), "two")
	writeFile(t, filepath.Join(dir, "parts", "1"), "one\n")
	writeFile(t, filepath.Join(dir, "parts", ".h"), "hidden\n")
	dest := filepath.Join(dir, "out")
	res := mustRun(t, "assemble", "src", filepath.Join(dir, "parts"), "dest", dest, "delimiter", `--\n`, "ignore_hidden", true)
	require.Equal(t, "OK", res.Default("msg", nil))
	require.Equal(t, "one\n--\ntwo", readFile(t, dest))
	res = mustRun(t, "assemble", "src", filepath.Join(dir, "parts"), "dest", dest, "delimiter", `--\n`, "ignore_hidden", true)
	require.Equal(t, false, res.Default("changed", nil))
	mustRun(t, "assemble", "src", filepath.Join(dir, "parts"), "dest", dest, "regexp", "^[0-9]$")
	require.Equal(t, "one\ntwo", readFile(t, dest))
}
