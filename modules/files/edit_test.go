package files

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLineinfile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		args    []any
		want    string
		msg     string
	}{
		{"replace by regexp", "a=1\nb=2\n", []any{"regexp", "^a=", "line", "a=9"}, "a=9\nb=2\n", "line replaced"},
		{"append", "a=1\n", []any{"line", "c=3"}, "a=1\nc=3\n", "line added"},
		{"append after a missing newline", "a=1", []any{"line", "c=3"}, "a=1\nc=3\n", "line added"},
		{"present already", "a=1\n", []any{"line", "a=1"}, "a=1\n", ""},
		{"insertafter", "[s]\nk=1\n", []any{"line", "n=2", "insertafter", `^\[s\]`}, "[s]\nn=2\nk=1\n", "line added"},
		{"insertbefore", "[s]\nk=1\n", []any{"line", "n=2", "insertbefore", "^k="}, "[s]\nn=2\nk=1\n", "line added"},
		{"BOF", "a\n", []any{"line", "top", "insertbefore", "BOF"}, "top\na\n", "line added"},
		{"backrefs", "#user=bob\n", []any{"regexp", `^#(\w+)=(\w+)`, "line", `\1=\2!`, "backrefs", true}, "user=bob!\n", "line replaced"},
		{"backrefs without match", "x\n", []any{"regexp", `^y(.*)`, "line", `\1`, "backrefs", true}, "x\n", ""},
		{"search string, last match", "a=1\na=2\n", []any{"search_string", "a=", "line", "a=3"}, "a=1\na=3\n", "line replaced"},
		{"firstmatch", "a=1\na=2\n", []any{"regexp", "^a=", "line", "a=3", "firstmatch", true}, "a=3\na=2\n", "line replaced"},
		{"absent by regexp", "a=1\nb=2\na=3\n", []any{"regexp", "^a=", "state", "absent"}, "b=2\n", "2 line(s) removed"},
		{"absent by line", "a=1\nb=2\n", []any{"line", "b=2", "state", "absent"}, "a=1\n", "1 line(s) removed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f")
			writeFile(t, path, tc.content)
			res := mustRun(t, "lineinfile", append([]any{"path", path}, tc.args...)...)
			require.Equal(t, tc.want, readFile(t, path))
			require.Equal(t, tc.msg, res.Default("msg", nil))
			require.Equal(t, tc.msg != "", res.Default("changed", nil))
		})
	}
}

func TestLineinfileCreateAndFailures(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "new")
	res := mustRun(t, "lineinfile", "path", path, "line", "x", "create", true, "mode", "0600")
	require.Equal(t, "line added and ownership, perms or SE linux context changed", res.Default("msg", nil))
	require.Equal(t, int64(0o600), modeOf(t, path))
	for _, tc := range []struct {
		args []any
		msg  string
	}{
		{[]any{"path", filepath.Join(dir, "none"), "line", "x"}, "Destination " + filepath.Join(dir, "none") + " does not exist !"},
		{[]any{"path", dir, "line", "x"}, "Path " + dir + " is a directory !"},
		{[]any{"path", path, "regexp", "x"}, "line is required with state=present"},
		{[]any{"path", path, "line", "x", "backrefs", true}, "regexp is required with backrefs=true"},
		{[]any{"path", path, "state", "absent"}, "one of line, search_string, or regexp is required with state=absent"},
		{[]any{"path", path, "line", "x", "insertafter", "a", "insertbefore", "b"}, "parameters are mutually exclusive: insertbefore|insertafter"},
		{[]any{"path", path, "line", "y", "validate", "false %s"}, "failed to validate: rc:1 error:"},
	} {
		res, err := run(t, "lineinfile", tc.args...)
		require.NoError(t, err)
		require.Equal(t, tc.msg, res.Default("msg", nil))
	}
	require.Equal(t, "x\n", readFile(t, path))
}

func TestBlockinfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	writeFile(t, path, "top\nbottom\n")
	res := mustRun(t, "blockinfile", "path", path, "block", "one\ntwo", "insertafter", "^top")
	require.Equal(t, "Block inserted", res.Default("msg", nil))
	require.Equal(t, "top\n# BEGIN ANSIBLE MANAGED BLOCK\none\ntwo\n# END ANSIBLE MANAGED BLOCK\nbottom\n", readFile(t, path))
	mustRun(t, "blockinfile", "path", path, "block", "three")
	require.Equal(t, "top\n# BEGIN ANSIBLE MANAGED BLOCK\nthree\n# END ANSIBLE MANAGED BLOCK\nbottom\n", readFile(t, path))
	res = mustRun(t, "blockinfile", "path", path, "block", "three")
	require.Equal(t, false, res.Default("changed", nil))
	res = mustRun(t, "blockinfile", "path", path, "state", "absent")
	require.Equal(t, "Block removed", res.Default("msg", nil))
	require.Equal(t, "top\nbottom\n", readFile(t, path))
	mustRun(t, "blockinfile", "path", path, "block", "x", "marker", "<!-- {mark} -->", "insertbefore", "BOF",
		"marker_begin", "B", "marker_end", "E", "append_newline", true)
	require.Equal(t, "<!-- B -->\nx\n<!-- E -->\n\ntop\nbottom\n", readFile(t, path))
}

func TestReplace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	writeFile(t, path, "a=1\n# start\nb=2\n# end\nc=3\n")
	res := mustRun(t, "replace", "path", path, "regexp", `^(\w)=(\d)$`, "replace", `\2=\1`, "after", "# start", "before", "# end")
	require.Equal(t, "1 replacements made", res.Default("msg", nil))
	require.Equal(t, "a=1\n# start\n2=b\n# end\nc=3\n", readFile(t, path))
	res = mustRun(t, "replace", "path", path, "regexp", `nothing`)
	require.Equal(t, false, res.Default("changed", nil))
	res = mustRun(t, "replace", "path", path, "regexp", `x`, "after", "no marker")
	require.Equal(t, "Pattern for before/after params did not match the given file: no marker(?P<subsection>.*)", res.Default("msg", nil))
	res, err := run(t, "replace", "path", path, "regexp", `(a)`, "replace", `\2`)
	require.NoError(t, err)
	require.Equal(t, "Unable to process replace due to error: invalid group reference 2 at position 1", res.Default("msg", nil))
}
