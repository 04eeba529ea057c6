package lookup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// lookupLayout is a play directory with a role, as the file lookups see
// it from a task of that role.
func lookupLayout(t *testing.T) (dir string, opt template.Options, warnings *[]string) {
	t.Helper()
	dir = t.TempDir()
	files := map[string]string{
		"roles/r/tasks/main.yml":       "",
		"roles/r/files/role.txt":       "role\n",
		"roles/r/templates/t.j2":       "[% who %] {{ who }}\n",
		"files/play.conf":              "play\n",
		"beside.txt":                   "beside\n",
		"vars/os.yml":                  "",
		"None/quirk.txt":               "",
		"roles/r/tasks/sub/nested.yml": "",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	role := filepath.Join(dir, "roles", "r")
	var ws []string
	opt = template.Options{
		Search: search.Path{Dirs: []string{role, filepath.Join(role, "tasks")}, Base: dir, InRole: true},
		Warn:   func(w *diag.Diagnostic, _ bool) { ws = append(ws, w.Summary) },
	}
	return dir, opt, &ws
}

func TestFileLookupsSearchPath(t *testing.T) {
	dir, opt, warnings := lookupLayout(t)
	e := newEngine()
	vars := template.MapVars{D: value.DictOf("who", "you")}
	cases := []struct {
		src     string
		want    any
		err     string
		warning string
	}{
		{src: "{{ lookup('file', 'role.txt') }}", want: "role"},
		{src: "{{ lookup('file', 'play.conf') }}", want: "play"},
		{src: "{{ lookup('file', 'beside.txt') }}", want: "beside"},
		{src: "{{ lookup('file', 'files') }}", err: le("file", "Unable to access the file 'files': An error occurred while trying to read the file '"+
			filepath.Join(dir, "roles", "r", "files")+"': [Errno 21] Is a directory: '"+filepath.Join(dir, "roles", "r", "files")+"'")},
		{src: "{{ query('fileglob', '*.conf') }}", want: L(filepath.Join(dir, "files", "play.conf"))},
		{src: "{{ query('fileglob', '*.txt') }}", want: L(filepath.Join(dir, "roles", "r", "files", "role.txt"))},
		// The role's files/ is the directory "files" names: nothing there.
		{src: "{{ query('fileglob', 'files/*.conf') }}", want: []any{}},
		{src: "{{ query('fileglob', 'nodir/*') }}", want: []any{}, warning: "Unable to find 'nodir' in expected paths (use -vvvvv to see paths)"},
		{src: "{{ lookup('first_found', 'quirk.txt') }}", want: filepath.Join(dir, "None", "quirk.txt")},
		{src: "{{ lookup('first_found', 'role.txt', skip=true) }}", want: []any{}},
		{src: "{{ lookup('first_found', {'files': ['x', 'os.yml'], 'paths': ['vars']}) }}", want: filepath.Join(dir, "vars", "os.yml")},
		{src: "{{ lookup('first_found', 'a,b') }}", err: le("first_found", "No file was found when using first_found."),
			warning: "Automatic splitting of files on ',;' is deprecated."},
		{src: "{{ lookup('template', 't.j2', variable_start_string='[%', variable_end_string='%]') }}", want: "you {{ who }}\n"},
		{src: "{{ lookup('template', 'nope.j2') }}", err: le("template", "the template file nope.j2 could not be found for the lookup"),
			warning: "Unable to find 'nope.j2' in expected paths (use -vvvvv to see paths)"},
	}
	for _, c := range cases {
		*warnings = nil
		got, err := e.Render(c.src, vars, opt)
		if c.err != "" {
			require.EqualError(t, err, c.err, c.src)
		} else {
			require.NoError(t, err, c.src)
			require.Equal(t, c.want, got, c.src)
		}
		if c.warning != "" {
			require.Contains(t, *warnings, c.warning, c.src)
		}
	}
}

// with_first_found searches the subdirectory the task's action names.
func TestFirstFoundLoopSubdir(t *testing.T) {
	dir, opt, _ := lookupLayout(t)
	e := newEngine()
	for action, want := range map[string]string{
		"ansible.builtin.debug":        filepath.Join(dir, "files", "play.conf"),
		"ansible.builtin.include_vars": filepath.Join(dir, "vars", "os.yml"),
	} {
		opt.LoopAction = action
		got, err := e.Query("first_found", []any{"os.yml", "play.conf"}, noVars(), opt)
		require.NoError(t, err, action)
		require.Equal(t, L(want), got, action)
	}
	// Undefined terms are dropped from a loop's terms.
	terms, err := e.RenderTerms("first_found", L("{{ nope }}", "play.conf"), noVars(), opt)
	require.NoError(t, err)
	opt.LoopAction = "debug"
	got, err := e.Query("first_found", terms.([]any), noVars(), opt)
	require.NoError(t, err)
	require.Equal(t, L(filepath.Join(dir, "files", "play.conf")), got)
}
