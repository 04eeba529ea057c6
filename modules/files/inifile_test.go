package files

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIniFile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		args    []any
		want    string
		msg     string
		changed bool
	}{
		{"new section", "", []any{"section", "s", "option", "k", "value", "1"}, "\n[s]\nk = 1\n", "section and option added", true},
		{"option added", "[s]\na = 1\n", []any{"section", "s", "option", "k", "value", "2"}, "[s]\na = 1\nk = 2\n", "option added", true},
		{"option changed", "[s]\nk = 1\n", []any{"section", "s", "option", "k", "value", "2"}, "[s]\nk = 2\n", "option changed", true},
		{"unchanged", "[s]\nk = 1\n", []any{"section", "s", "option", "k", "value", "1"}, "[s]\nk = 1\n", "OK", false},
		{"missing final newline", "[s]\nk = 1", []any{"section", "s", "option", "k", "value", "1"}, "[s]\nk = 1\n", "OK", true},
		{"commented option reused", "[s]\n;k = 0\n", []any{"section", "s", "option", "k", "value", "1"}, "[s]\nk = 1\n", "option changed", true},
		{"no extra spaces", "[s]\n", []any{"section", "s", "option", "k", "value", "1", "no_extra_spaces", true}, "[s]\nk=1\n", "option added", true},
		{"global option", "[s]\n", []any{"option", "g", "value", "1"}, "g = 1\n[s]\n", "option added", true},
		{"exclusive values", "[s]\nk = a\nk = b\nk = c\n", []any{"section", "s", "option", "k", "values", []any{"c", "a"}}, "[s]\nk = a\nk = c\n", "option changed", true},
		{"absent option", "[s]\nk = 1\nj = 2\n", []any{"section", "s", "option", "k", "state", "absent"}, "[s]\nj = 2\n", "option changed", true},
		{"absent section", "[s]\nk = 1\n[t]\nj = 2\n", []any{"section", "s", "state", "absent"}, "[t]\nj = 2\n", "section removed", true},
		{"no value allowed", "[s]\n", []any{"section", "s", "option", "flag", "allow_no_value", true}, "[s]\nflag\n", "option added", true},
		{"only section", "", []any{"section", "e", "allow_no_value", true}, "\n[e]\n", "only section added", true},
		{"everything absent", "a=1\n[s]\n", []any{"state", "absent"}, "", "section removed", true},
		{"ignore spaces", "[s]\nk=1\n", []any{"section", "s", "option", "k", "value", "1", "ignore_spaces", true}, "[s]\nk=1\n", "OK", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.ini")
			writeFile(t, path, tc.content)
			res := mustRun(t, "ini_file", append([]any{"path", path}, tc.args...)...)
			require.Equal(t, tc.want, readFile(t, path))
			require.Equal(t, tc.msg, res.Default("msg", nil))
			require.Equal(t, tc.changed, res.Default("changed", nil))
		})
	}
}
