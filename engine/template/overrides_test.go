package template

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/stretchr/testify/require"
)

func TestPyLiteral(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want any
		err  string
	}{
		{src: " True", want: true},
		{src: "False ", want: false},
		{src: "None", want: nil},
		{src: "12", want: 12},
		{src: "-1", want: -1},
		{src: "0x10", want: 16},
		{src: "1.5", want: 1.5},
		{src: `'[['`, want: "[["},
		{src: `"a\tb"`, want: "a\tb"},
		{src: `'\r\n'`, want: "\r\n"},
		{src: "[1, 2]", want: []any{1, 2}},
		{src: "yes", err: "malformed node or string on line 1: <ast.Name object at 0x"},
		{src: "'open", err: "unterminated string literal (detected at line 1) (<unknown>, line 1)"},
		{src: "True False", err: "invalid syntax (<unknown>, line 1)"},
		{src: "", err: "invalid syntax (<unknown>, line 1)"},
	} {
		got, err := pyLiteral(tc.src)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.src)
			continue
		}
		require.NoError(t, err, tc.src)
		require.Equal(t, tc.want, got, tc.src)
	}
}

func TestIsTemplate(t *testing.T) {
	custom := syntax.Default()
	custom.VariableStart, custom.VariableEnd = "[[", "]]"
	for _, tc := range []struct {
		s    string
		cfg  *syntax.Config
		want bool
	}{
		{s: "plain", want: false},
		{s: "a {{ b }}", want: true},
		{s: "{# c #}", want: true},
		{s: "#jinja2: trim_blocks: False\nplain", want: true},
		{s: " #jinja2: trim_blocks: False", want: false},
		{s: "[[ x ]]", cfg: &custom, want: true},
		{s: "{% if %}", cfg: &custom, want: true},
		{s: "{{ x }}", cfg: &custom, want: false},
	} {
		require.Equal(t, tc.want, isTemplate(tc.s, tc.cfg), tc.s)
	}
}

func TestFileVars(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.j2")
	require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	require.NoError(t, os.Chtimes(p, mtime, mtime))
	now := time.Date(2025, 1, 2, 3, 4, 5, 6000, time.UTC)

	vars, err := FileVars("t.j2", p, "/dest", now, true)
	require.NoError(t, err)
	require.Equal(t, []string{"template_host", "template_path", "template_mtime", "template_uid", "template_run_date", "template_destpath", "template_fullpath", "ansible_managed"}, vars.Keys())
	require.Equal(t, "t.j2", vars.Default("template_path", nil))
	require.Equal(t, p, vars.Default("template_fullpath", nil))
	require.Equal(t, "/dest", vars.Default("template_destpath", nil))
	require.Equal(t, ManagedDefault, vars.Default("ansible_managed", nil))
	require.True(t, mtime.Equal(vars.Default("template_mtime", nil).(*py.Datetime).Time))
	require.True(t, now.Equal(vars.Default("template_run_date", nil).(*py.Datetime).Time))
	host, _ := os.Hostname()
	require.Equal(t, host, vars.Default("template_host", nil))
	require.IsType(t, "", vars.Default("template_uid", nil))

	vars, err = FileVars("t.j2", p, nil, now, false)
	require.NoError(t, err)
	require.False(t, vars.Has("ansible_managed"))
	require.Nil(t, vars.Default("template_destpath", "unset"))

	_, err = FileVars("gone.j2", filepath.Join(dir, "gone.j2"), nil, now, true)
	require.Error(t, err)
}
