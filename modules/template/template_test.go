package template

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// fixture is a playbook directory with templates/ and a destination
// directory; HOME and the local temp directory point into it, so the copy
// the action hands over to writes its temporary files there.
type fixture struct {
	dir, out string
	host     *moduletest.Host
}

func newFixture(t *testing.T, templates map[string]string) *fixture {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("ANSIBLE_LOCAL_TEMP", filepath.Join(dir, ".ansible", "tmp"))
	for name, text := range templates {
		p := filepath.Join(dir, "templates", name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	out := filepath.Join(dir, "out")
	require.NoError(t, os.Mkdir(out, 0o755))
	h := moduletest.NewHost(value.DictOf("who", "world", "items", []any{"a", "b"}))
	h.Dirs = []string{dir}
	return &fixture{dir: dir, out: out, host: h}
}

// run runs the template action with args.
func (f *fixture) run(t *testing.T, check, diff bool, args ...any) (*value.Dict, error) {
	t.Helper()
	req := f.host.Request("template", args...)
	req.Check, req.Diff = check, diff
	return Run(req)
}

func (f *fixture) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.out, name))
	require.NoError(t, err)
	return string(b)
}

func TestRenderOptions(t *testing.T) {
	const blocks = "  {% for i in items %}\n  - {{ i }}\n  {% endfor %}\n{# c #}\nend {{ who }}\n"
	for _, tc := range []struct {
		name string
		args []any
		want string
	}{
		// The expected texts are ansible-core's for the same options.
		{name: "defaults trim blocks", want: "    - a\n    - b\n  end world\n"},
		{name: "trim_blocks off", args: []any{"trim_blocks", false}, want: "  \n  - a\n  \n  - b\n  \n\nend world\n"},
		{name: "lstrip_blocks", args: []any{"lstrip_blocks", "yes"}, want: "  - a\n  - b\nend world\n"},
		{name: "escaped CRLF", args: []any{"newline_sequence", `\r\n`}, want: "    - a\r\n    - b\r\n  end world\r\n"},
		{name: "CR", args: []any{"newline_sequence", "\r"}, want: "    - a\r    - b\r  end world\r"},
		{name: "variable delimiters", args: []any{"variable_start_string", "[[", "variable_end_string", "]]"},
			want: "    - {{ i }}\n    - {{ i }}\n  end {{ who }}\n"},
		{name: "comment delimiters", args: []any{"comment_start_string", "<#", "comment_end_string", "#>"},
			want: "    - a\n    - b\n  {# c #}\nend world\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"blocks.j2": blocks})
			res, err := f.run(t, false, false, append([]any{"src", "blocks.j2", "dest", filepath.Join(f.out, "x")}, tc.args...)...)
			require.NoError(t, err)
			require.Equal(t, true, res.Default("changed", nil), res)
			require.Equal(t, tc.want, f.read(t, "x"))
			require.Equal(t, len(tc.want), res.Default("size", nil))
		})
	}
}

func TestOutputEncoding(t *testing.T) {
	f := newFixture(t, map[string]string{"city.j2": "Zürich\n"})
	res, err := f.run(t, false, false, "src", "city.j2", "dest", filepath.Join(f.out, "l1"), "output_encoding", "latin-1")
	require.NoError(t, err)
	require.Equal(t, "Z\xfcrich\n", f.read(t, "l1"))
	require.Equal(t, 7, res.Default("size", nil))
	_, err = f.run(t, false, false, "src", "city.j2", "dest", filepath.Join(f.out, "a"), "output_encoding", "ascii")
	require.EqualError(t, err, `'ascii' codec can't encode character '\xfc' in position 1: ordinal not in range(128)`)
}

func TestIdempotenceCheckAndDiff(t *testing.T) {
	f := newFixture(t, map[string]string{"g.j2": "hello {{ who }}\n"})
	dest := filepath.Join(f.out, "g")
	res, err := f.run(t, true, true, "src", "g.j2", "dest", dest)
	require.NoError(t, err)
	require.Equal(t, true, res.Default("changed", nil))
	_, statErr := os.Stat(dest)
	require.True(t, os.IsNotExist(statErr), "check mode wrote the file")
	diffs, _ := res.Default("diff", nil).([]any)
	require.NotEmpty(t, diffs)
	d := diffs[0].(*value.Dict)
	require.Equal(t, "hello world\n", d.Default("after", nil))
	require.Equal(t, "g.j2", filepath.Base(value.Str(d.Default("after_header", nil))))

	res, err = f.run(t, false, false, "src", "g.j2", "dest", dest)
	require.NoError(t, err)
	require.Equal(t, true, res.Default("changed", nil))
	require.Equal(t, "hello world\n", f.read(t, "g"))

	res, err = f.run(t, false, false, "src", "g.j2", "dest", dest)
	require.NoError(t, err)
	require.Equal(t, false, res.Default("changed", nil))
	require.Equal(t, "22596363b3de40b06f981fb85d82312e8c0ed511", res.Default("checksum", nil))
}

func TestTemplateVars(t *testing.T) {
	const text = "{{ ansible_managed }}|{{ template_path }}|{{ template_fullpath | basename }}|{{ template_destpath | basename }}|{{ template_uid is string }}|{{ template_host | length > 0 }}|{{ template_mtime.year > 2000 }}\n"
	f := newFixture(t, map[string]string{"sub/v.j2": text})
	_, err := f.run(t, false, false, "src", "sub/v.j2", "dest", filepath.Join(f.out, "v"))
	require.NoError(t, err)
	require.Equal(t, "Ansible managed|sub/v.j2|v.j2|v|True|True|True\n", f.read(t, "v"))

	f.host.Vars.Set("ansible_managed", "mine")
	_, err = f.run(t, false, false, "src", "sub/v.j2", "dest", filepath.Join(f.out, "v"))
	require.NoError(t, err)
	require.Equal(t, "mine|sub/v.j2|v.j2|v|True|True|True\n", f.read(t, "v"))
}

func TestModePreserve(t *testing.T) {
	f := newFixture(t, map[string]string{"run.sh.j2": "#!/bin/sh\n"})
	require.NoError(t, os.Chmod(filepath.Join(f.dir, "templates", "run.sh.j2"), 0o750))
	res, err := f.run(t, false, false, "src", "run.sh.j2", "dest", filepath.Join(f.out, "run.sh"), "mode", "preserve")
	require.NoError(t, err)
	require.Equal(t, "0750", res.Default("mode", nil))
	st, err := os.Stat(filepath.Join(f.out, "run.sh"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o750), st.Mode().Perm())
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []any
		action   string // an ActionFail's message
		err      string // any other error's text
		searched bool
	}{
		{name: "state", args: []any{"src", "t.j2", "dest", "/x", "state", "file"}, action: "'state' cannot be specified on a template"},
		{name: "no dest", args: []any{"src", "t.j2"}, action: "src and dest are required"},
		{name: "no src", args: []any{"dest", "/x"}, action: "src and dest are required"},
		{name: "newline", args: []any{"src", "t.j2", "dest", "/x", "newline_sequence", "\t"}, action: "newline_sequence needs to be one of: \n, \r or"},
		{name: "src list", args: []any{"src", []any{"t.j2"}, "dest", "/x"}, err: "Invalid value provided for 'string': ['t.j2']"},
		{name: "not found", args: []any{"src", "missing.j2", "dest", "/x"}, action: "Could not find or access 'missing.j2'", searched: true},
		{name: "same start strings", args: []any{"src", "t.j2", "dest", "/x", "variable_start_string", "{#"}, err: "Block, variable and comment start strings must be different."},
		{name: "undefined", args: []any{"src", "u.j2", "dest", "/x"}, err: "'nope' is undefined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"t.j2": "t\n", "u.j2": "{{ nope }}\n"})
			_, err := f.run(t, false, false, tc.args...)
			require.Error(t, err)
			var af *diag.Diagnostic
			if tc.action == "" {
				require.False(t, errAs(err, &af), "%v is an action failure", err)
				require.Equal(t, tc.err, err.Error())
				return
			}
			require.True(t, errAs(err, &af) && af.AsResult, "%v is not an action failure", err)
			if !tc.searched {
				require.Equal(t, tc.action, af.Summary)
				return
			}
			require.Contains(t, af.Summary, tc.action+"\nSearched in:\n\t"+filepath.Join(f.dir, "templates", "missing.j2"))
		})
	}
}

func TestUndefinedHasTheTemplateAsOrigin(t *testing.T) {
	f := newFixture(t, map[string]string{"u.j2": "a\n{{ nope }}\n"})
	_, err := f.run(t, false, false, "src", "u.j2", "dest", filepath.Join(f.out, "u"))
	links := diag.Links(err)
	require.Len(t, links, 1)
	require.Equal(t, "'nope' is undefined", links[0].Summary)
	require.Equal(t, value.Pos{File: filepath.Join(f.dir, "templates", "u.j2")}, *links[0].Origin)
	_, statErr := os.Stat(filepath.Join(f.out, "u"))
	require.True(t, os.IsNotExist(statErr))
}

// errAs reports whether err is (or wraps) a diagnostic that is an action
// plugin's own failure.
func errAs(err error, target **diag.Diagnostic) bool {
	return errors.As(err, target) && (*target).AsResult
}
