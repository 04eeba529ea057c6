package files

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// run runs a module entry by short name with args on a fresh test host.
func run(t *testing.T, name string, args ...any) (*value.Dict, error) {
	t.Helper()
	h := moduletest.NewHost(nil)
	return runOn(t, h, name, args...)
}

// runOn runs a module entry on h.
func runOn(t *testing.T, h *moduletest.Host, name string, args ...any) (*value.Dict, error) {
	t.Helper()
	return runReq(t, h.Request(name, args...))
}

// runReq runs the entry named by req.Name.
func runReq(t *testing.T, req *module.Request) (*value.Dict, error) {
	t.Helper()
	for _, e := range Entries() {
		if e.Short() == req.Name {
			return e.Module.Run(req)
		}
	}
	t.Fatalf("no module %s", req.Name)
	return nil, nil
}

// mustRun runs a module that must not fail.
func mustRun(t *testing.T, name string, args ...any) *value.Dict {
	t.Helper()
	res, err := run(t, name, args...)
	require.NoError(t, err)
	require.False(t, value.Truthy(res.Default("failed", false)), "%s failed: %v", name, res.Default("msg", nil))
	return res
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func modeOf(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Lstat(path)
	require.NoError(t, err)
	return permOf(st)
}

func TestShlexSplit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "grep -q foo %s", want: []string{"grep", "-q", "foo", "%s"}},
		{in: `a "b c" 'd e' f\ g`, want: []string{"a", "b c", "d e", "f g"}},
		{in: `"x\"y" 'x\y'`, want: []string{`x"y`, `x\y`}},
		{in: `a""b ''`, want: []string{"ab", ""}},
		{in: `"open`, err: "No closing quotation"},
		{in: `trailing\`, err: "No escaped character"},
	} {
		got, err := shlexSplit(tc.in)
		if tc.err != "" {
			require.EqualError(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

func TestPyPercentS(t *testing.T) {
	require.Equal(t, "visudo -cf /tmp/x 100%", pyPercentS("visudo -cf %s 100%%", "/tmp/x"))
}

func TestSplitlines(t *testing.T) {
	require.Equal(t, []any{"a", "b", "", "c"}, pySplitlines("a\nb\r\n\rc"))
	require.Equal(t, []any{}, pySplitlines(""))
	got := pySplitlinesKeep([]byte("a\r\nb\rc\nd"))
	require.Equal(t, []string{"a\r\n", "b\r", "c\n", "d"}, bytesToStrings(got))
	require.Equal(t, []string{"a\n", "b"}, bytesToStrings(splitLinesKeep([]byte("a\nb"))))
}

func bytesToStrings(l [][]byte) []string {
	out := make([]string, len(l))
	for i, b := range l {
		out[i] = string(b)
	}
	return out
}

func TestFnmatchRegexp(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		match         bool
	}{
		{"*.log", "a.log", true},
		{"*.log", "a.log.1", false},
		{"?.txt", "a.txt", true},
		{"[ab]*", "beta", true},
		{"[!ab]*", "beta", false},
		{"[!ab]*", "gamma", true},
		{"a[", "a[", true},
		{"[^x]", "^", true},
		{"[^x]", "y", false},
		{"[[]x", "[x", true},
		{"a.b", "axb", false},
	} {
		re := py.FnmatchRegexp(tc.pattern)
		require.Equal(t, tc.match, re.MatchString(tc.name), "%s ~ %s", tc.pattern, tc.name)
	}
}

func TestPyEscapeDecode(t *testing.T) {
	require.Equal(t, "a\nb\tc\\d\x41\101", pyEscapeDecode(`a\nb\tc\\d\x41\101`))
	require.Equal(t, `\q`, pyEscapeDecode(`\q`))
}

func TestPyOSError(t *testing.T) {
	_, err := os.Open("/nonexistent/cfzt")
	require.Equal(t, "[Errno 2] No such file or directory: '/nonexistent/cfzt'", pyOSError(err))
	require.Equal(t, 13, errnoOf(&os.PathError{Op: "open", Path: "x", Err: syscall.EACCES}))
}
