package lookup

import (
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// filetree renders the paths the filetree lookup lists for terms, sorted,
// and the warnings of the render.
func filetree(t *testing.T, vars *value.Dict, base string, terms string) ([]string, []string) {
	t.Helper()
	var warns []string
	opt := template.Options{Search: search.Path{Base: base}, Warn: func(w *diag.Diagnostic, _ bool) { warns = append(warns, w.Summary) }}
	got, err := newEngine().Render("{{ query('community.general.filetree', "+terms+") | map(attribute='path') | list }}", template.MapVars{D: vars}, opt)
	require.NoError(t, err)
	var paths []string
	for _, p := range got.([]any) {
		paths = append(paths, p.(string))
	}
	sort.Strings(paths)
	return paths, warns
}

func TestFiletree(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"files/t/a": "a", "files/t/d/b": "b", "files/u/a": "other a", "files/u/c": "c",
		"roles/r/files/t/role-only": "r",
	} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	// A link back to the tree's own root is listed, never walked: the walk
	// ends, and a link cannot lead it out of the tree.
	require.NoError(t, os.Symlink(".", filepath.Join(dir, "files", "t", "loop")))
	require.NoError(t, os.Symlink("/", filepath.Join(dir, "files", "t", "rootfs")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "files", "t", "fifo"), 0o644))

	paths, warns := filetree(t, value.NewDict(0), dir, "'t'")
	require.Equal(t, []string{"a", "d", "d/b", "loop", "rootfs"}, paths)
	require.Equal(t, []string{"filetree: Error file type of " + filepath.Join(dir, "files", "t", "fifo") + " is not supported"}, warns)

	// A file name is data: one that looks like a template is listed as
	// it is, never rendered.
	attack := filepath.Join(dir, "files", "u", "{{ lookup('pipe', 'touch pwned') }}")
	require.NoError(t, os.WriteFile(attack, nil, 0o644))
	got, err := newEngine().Render("{{ query('community.general.filetree', 'u') | map(attribute='path') | select('search', 'pipe') | first }}",
		template.MapVars{D: value.NewDict(0)}, template.Options{Search: search.Path{Base: dir}})
	require.NoError(t, err)
	require.Equal(t, "{{ lookup('pipe', 'touch pwned') }}", got)
	require.NoFileExists(t, filepath.Join(dir, "pwned"))
	require.NoError(t, os.Remove(attack))

	// The first tree wins a path both have.
	paths, _ = filetree(t, value.NewDict(0), dir, "'t', 'u'")
	require.Equal(t, []string{"a", "c", "d", "d/b", "loop", "rootfs"}, paths)

	// In a role, the tree is found under the role's files/.
	paths, _ = filetree(t, value.DictOf("role_path", filepath.Join(dir, "roles", "r")), dir, "'t'")
	require.Equal(t, []string{"role-only"}, paths)

	paths, _ = filetree(t, value.NewDict(0), dir, "'missing'")
	require.Empty(t, paths)

	// A root that is a link is walked (os.walk follows its top), and the
	// same link met inside is not: the walk still ends.
	paths, _ = filetree(t, value.NewDict(0), dir, "'t/loop'")
	require.Equal(t, []string{"a", "d", "d/b", "loop", "rootfs"}, paths)
}
