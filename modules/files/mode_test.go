package files

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPyIntBase8(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0644", 0o644, true}, {"644", 0o644, true}, {" 0o755 ", 0o755, true}, {"-7", -7, true},
		{"6_44", 0o644, true}, {"0o_7", 7, true},
		{"", 0, false}, {"8", 0, false}, {"6__4", 0, false}, {"_6", 0, false}, {"u+x", 0, false},
	} {
		got, ok := pyIntBase8(tc.in)
		require.Equal(t, tc.ok, ok, tc.in)
		if ok {
			require.Equal(t, tc.want, got, tc.in)
		}
	}
}

func TestResolveMode(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o640))
	require.NoError(t, os.Chmod(file, 0o640))
	fst, err := os.Stat(file)
	require.NoError(t, err)
	dst, err := os.Stat(dir)
	require.NoError(t, err)
	umask := int64(currentUmask())
	for _, tc := range []struct {
		name  string
		mode  any
		dir   bool
		want  int64
		fails string
	}{
		{name: "int", mode: 0o600, want: 0o600},
		{name: "decimal int is taken as is", mode: 644, want: 644},
		{name: "octal string", mode: "0755", want: 0o755},
		{name: "add", mode: "u+x,g+w", want: 0o760},
		{name: "remove", mode: "g-r", want: 0o600},
		{name: "set", mode: "u=rwx,g=,o=r", want: 0o704},
		{name: "X on a file without x", mode: "a+X", want: 0o640},
		{name: "X on a directory", mode: "a+X", dir: true, want: permOfStat(dst) | 0o111},
		{name: "copy u to g", mode: "g=u", want: 0o660},
		{name: "setuid and sticky", mode: "u+s,o+t", want: 0o5640},
		{name: "no user means all but the umask", mode: "+w", want: 0o640 | (0o222 &^ umask)},
		{name: "bad letter", mode: "u+q", fails: "mode must be in octal or symbolic form"},
		{name: "bad who", mode: "z+r", fails: "mode must be in octal or symbolic form"},
		{name: "float", mode: 1.5, fails: "mode must be in octal or symbolic form"},
	} {
		st := fst
		if tc.dir {
			st = dst
		}
		got, err := resolveMode(tc.mode, st, "p")
		if tc.fails != "" {
			require.Error(t, err, tc.name)
			require.Equal(t, tc.fails, err.Error(), tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		require.Equal(t, octalMode(tc.want), octalMode(got), tc.name)
	}
}

func permOfStat(st os.FileInfo) int64 { return permOf(st) }

func TestFourOctal(t *testing.T) {
	require.Equal(t, "0644", fourOctal(0o644))
	require.Equal(t, "4755", fourOctal(0o4755))
	require.Equal(t, "0000", fourOctal(0))
}
