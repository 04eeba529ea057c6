package py

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGlob(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.txt", "b.txt", ".hidden.txt", "sub/c.txt", "sub2/d.txt", "x[1].cfg"} {
		p := filepath.Join(dir, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, nil, 0o644))
	}
	require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "broken")))
	cases := []struct {
		pattern string
		want    []string
	}{
		{"*.txt", []string{"a.txt", "b.txt"}},
		{".*.txt", []string{".hidden.txt"}},
		{"[ab].txt", []string{"a.txt", "b.txt"}},
		{"[!a].txt", []string{"b.txt"}},
		{"?.txt", []string{"a.txt", "b.txt"}},
		{"sub*/*.txt", []string{"sub/c.txt", "sub2/d.txt"}},
		{"*/", []string{"sub/", "sub2/"}},
		{"x[[]1].cfg", []string{"x[1].cfg"}},
		{"broken", []string{"broken"}},
		{"missing", nil},
		{"a.txt/*", nil},
		{filepath.Join(dir, "a.*"), []string{filepath.Join(dir, "a.txt")}},
	}
	for _, c := range cases {
		got := Glob(c.pattern, dir)
		sort.Strings(got)
		require.Equal(t, c.want, got, c.pattern)
		require.Equal(t, len(c.want) > 0, GlobAny(c.pattern, dir), c.pattern)
	}
}
