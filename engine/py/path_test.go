package py

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPosixpathFunctions(t *testing.T) {
	require.Equal(t, "b/c", Normpath("./b//x/../c/"))
	require.Equal(t, "//a", Normpath("//a"))
	require.Equal(t, "/a/b", Join([]string{"x", "/a", "b"}))
	root, ext := Splitext("/d/.bashrc")
	require.Equal(t, []string{"/d/.bashrc", ""}, []string{root, ext})
	require.Equal(t, "", Basename("/a/"))
	require.Equal(t, "/a", Dirname("/a/b"))
}

func TestRelpath(t *testing.T) {
	cases := []struct {
		path, start any
		want, err   string
	}{
		{"/a/b/c", "/a/d", "../b/c", ""},
		{"/a", "/a", ".", ""},
		{"", 5, "", "no path specified"},
		{"/a", 5, "", "expected str, bytes or os.PathLike object, not int"},
	}
	for _, c := range cases {
		got, err := Relpath(c.path, c.start)
		if c.err != "" {
			require.EqualError(t, err, c.err)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, c.want, got)
	}
}

func TestCommonpath(t *testing.T) {
	got, err := Commonpath([]any{"/a/b/c", "/a/b/d", "/a/bx"})
	require.NoError(t, err)
	require.Equal(t, "/a", got)
	_, err = Commonpath([]any{"/a", "b"})
	require.EqualError(t, err, "Can't mix absolute and relative paths")
	_, err = Commonpath(nil)
	require.EqualError(t, err, "commonpath() arg is an empty sequence")
}
