package lookup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

func TestLookups(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "files"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "templates"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "files", "f.txt"), []byte("  file content  \n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "templates", "t.j2"), []byte("hello {{ who | default('x') }}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "plain.txt"), []byte("plain"), 0o644))

	e := newEngine()
	e.Getenv = func(k string) (string, bool) {
		if k == "MY_HOME" {
			return "/home/me", true
		}
		return "", false
	}
	vars := template.MapVars{D: value.DictOf("myvar", 42, "who", "you")}
	cases := []tcase{
		{"{{ lookup('env', 'MY_HOME') }}", "/home/me", ""},
		{"{{ lookup('env', 'NOPE_NOT_SET') }}", "", ""},
		{"{{ lookup('env', 'NOPE_NOT_SET', default='d') }}", "d", ""},
		{"{{ lookup('env', 5) }}", nil, le("env", "'int' object has no attribute 'split'")},
		{"{{ lookup('file', 'f.txt') }}", "  file content", ""},
		{"{{ lookup('file', 'f.txt', rstrip=false) }}", "  file content  \n", ""},
		{"{{ lookup('file', 'f.txt', lstrip=true) }}", "file content", ""},
		{"{{ lookup('ansible.builtin.file', 'plain.txt') }}", "plain", ""},
		{"{{ lookup('file', 'nope.txt') }}", nil, le("file", "Unable to access the file 'nope.txt': File not found. Use -vvvvv to see paths searched.")},
		{"{{ lookup('file', 'f.txt', bad=1) }}", "  file content", ""},
		{"{{ lookup('file', 'f.txt', rstrip='maybe') }}", "  file content  \n", ""},
		{"{{ lookup('template', 't.j2') }}", "hello you\n", ""},
		{"{{ lookup('template', 't.j2', template_vars={'who': 'bob'}) }}", "hello bob\n", ""},
		{"{{ lookup('template', 'nope.j2') }}", nil, le("template", "the template file nope.j2 could not be found for the lookup")},
		{"{{ query('first_found', ['nope.txt', 'plain.txt']) }}", L(filepath.Join(dir, "plain.txt")), ""},
		{"{{ query('first_found', ['nope.txt', 'f.txt']) }}", nil, le("first_found", "No file was found when using first_found.")},
		{"{{ query('first_found', files=['nope.txt', 'f.txt'], paths=['" + filepath.Join(dir, "files") + "']) }}", L(filepath.Join(dir, "files", "f.txt")), ""},
		{"{{ query('first_found', ['nope.txt'], skip=true) }}", []any{}, ""},
		{"{{ lookup('first_found', ['a', 'b']) }}", nil, le("first_found", "No file was found when using first_found.")},
		{"{{ query('fileglob', '*.txt') }}", L(filepath.Join(dir, "files", "f.txt")), ""},
	}
	renderCases(t, e, vars, template.Options{Search: search.Path{Base: dir}}, cases)
}

// TestLookupErrorsMode: lookup()'s errors= applies to this library's
// lookups as to the language's own.
func TestLookupErrorsMode(t *testing.T) {
	renderCases(t, newEngine(), noVars(), template.Options{}, []tcase{
		{"{{ lookup('file', 'nope', errors='ignore') }}", nil, ""},
		{"{{ query('file', 'nope', errors='ignore') }}", []any{}, ""},
	})
}
