package playbook

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// writeTree creates files (path -> content) under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return dir
}

func TestFindRoleFiles(t *testing.T) {
	cases := []struct {
		name     string
		files    []string
		from     string
		allowDir bool
		want     []string
	}{
		{"main.yml before main.yaml and main", []string{"main", "main.yaml", "main.yml"}, "", true, []string{"main.yml"}},
		{"main.json before a bare main", []string{"main", "main.json"}, "", true, []string{"main.json"}},
		{"a bare main last", []string{"main"}, "", true, []string{"main"}},
		{"a named file as written first", []string{"alt", "alt.yml"}, "alt", true, []string{"alt"}},
		{"a named file with an extension", []string{"alt.yaml"}, "alt", true, []string{"alt.yaml"}},
		{"a directory: sorted, recursive, hidden and backups left out", []string{"main/b.yml", "main/a.json", "main/sub/c.yaml",
			"main/noext", "main/.hidden.yml", "main/old.yml~", "main/notes.txt"}, "", true,
			[]string{"main/a.json", "main/b.yml", "main/noext", "main/sub/c.yaml"}},
		{"tasks never come from a directory", []string{"main/a.yml", "main.yml"}, "", false, []string{"main.yml"}},
		{"a directory alone gives no tasks", []string{"main/a.yml"}, "", false, nil},
		{"nothing", nil, "", true, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{"keep": ""}
			for _, f := range c.files {
				files[f] = "a: 1\n"
			}
			dir := writeTree(t, files)
			var got []string
			for _, p := range findRoleFiles(dir, c.from, c.allowDir) {
				rel, err := filepath.Rel(dir, p)
				require.NoError(t, err)
				got = append(got, rel)
			}
			require.Equal(t, c.want, got)
		})
	}
}

func TestLocateRole(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"book/roles/inroles/tasks/main.yml":                           "[]",
		"book/beside/tasks/main.yml":                                  "[]",
		"book/shared/web/tasks/main.yml":                              "[]",
		"path/frompath/tasks/main.yml":                                "[]",
		"deps/sibling/tasks/main.yml":                                 "[]",
		"book/collections/ansible_collections/acme/kit/roles/r/x.yml": "",
		"cwd/local/tasks/main.yml":                                    "[]",
	})
	l := NewLoader(testModules(t), []string{filepath.Join(dir, "path")})
	l.playbookDir = filepath.Join(dir, "book")
	t.Chdir(filepath.Join(dir, "cwd"))
	cases := []struct {
		name, ref, basedir   string
		collections          []string
		wantName, wantColl   string
		wantPath, wantErrMsg string
	}{
		{name: "roles/ beside the playbook", ref: "inroles", wantName: "inroles", wantPath: "book/roles/inroles"},
		{name: "the playbook directory", ref: "beside", wantName: "beside", wantPath: "book/beside"},
		{name: "a relative path keeps its name", ref: "shared/web", wantName: "shared/web", wantPath: "book/shared/web"},
		{name: "the roles path", ref: "frompath", wantName: "frompath", wantPath: "path/frompath"},
		{name: "beside the role that depends on it", ref: "sibling", basedir: filepath.Join(dir, "deps"), wantName: "sibling", wantPath: "deps/sibling"},
		{name: "a qualified collection role", ref: "acme.kit.r", wantName: "r", wantColl: "acme.kit", wantPath: "book/collections/ansible_collections/acme/kit/roles/r"},
		{name: "a short name in the collection search list", ref: "r", collections: []string{"acme.kit", "ansible.legacy"}, wantName: "r", wantColl: "acme.kit",
			wantPath: "book/collections/ansible_collections/acme/kit/roles/r"},
		{name: "the working directory, by its last element", ref: "local", wantName: "local", wantPath: "cwd/local"},
		{name: "not found, with the collections searched first", ref: "nope", collections: []string{"acme.kit", "ansible.legacy"},
			wantErrMsg: "the role 'nope' was not found in acme.kit:ansible.legacy:" + filepath.Join(dir, "book/roles") + ":" +
				filepath.Join(dir, "path") + ":" + filepath.Join(dir, "book")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loc, err := l.locateRole(c.ref, c.collections, c.basedir)
			if c.wantErrMsg != "" {
				require.EqualError(t, err, c.wantErrMsg)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.wantName, loc.name)
			require.Equal(t, c.wantColl, loc.collection)
			require.Equal(t, realPath(filepath.Join(dir, c.wantPath)), loc.path)
		})
	}
}

func TestCombineVars(t *testing.T) {
	low := value.DictOf("cfg", value.DictOf("a", 1, "nested", value.DictOf("x", 1)), "list", []any{1}, "keep", "low")
	high := value.DictOf("cfg", value.DictOf("b", 2, "nested", value.DictOf("y", 2)), "list", []any{2})
	replaced := CombineVars(low, high, false)
	require.Equal(t, value.DictOf("b", 2, "nested", value.DictOf("y", 2)), replaced.Default("cfg", nil))
	merged := CombineVars(low, high, true)
	require.Equal(t, value.DictOf("a", 1, "nested", value.DictOf("x", 1, "y", 2), "b", 2), merged.Default("cfg", nil))
	require.Equal(t, []any{2}, merged.Default("list", nil), "lists are replaced even when merging")
	require.Equal(t, "low", merged.Default("keep", nil))
	require.Equal(t, value.DictOf("a", 1, "nested", value.DictOf("x", 1)), low.Default("cfg", nil), "the inputs do not change")
}

func TestRoleDependencyLayers(t *testing.T) {
	pb, err := load(t, map[string]string{
		"playbook.yml":                 "- hosts: x\n  roles:\n    - app\n",
		"roles/app/meta/main.yml":      "dependencies: [web]\n",
		"roles/web/meta/main.yml":      "dependencies: [base]\n",
		"roles/app/defaults/main.yml":  "d: app\n",
		"roles/web/defaults/main.yml":  "d: web\n",
		"roles/base/defaults/main.yml": "d: base\n",
		"roles/app/vars/main.yml":      "v: app\n",
		"roles/web/vars/main.yml":      "v: web\n",
		"roles/base/vars/main.yml":     "v: base\n",
	})
	require.NoError(t, err)
	app := pb.Plays[0].Roles[0]
	var names []string
	for _, d := range app.AllDependencies() {
		names = append(names, d.Name())
	}
	require.Equal(t, []string{"base", "web"}, names, "each dependency after its own")
	var defaults, exports []any
	for _, d := range app.DefaultLayers() {
		defaults = append(defaults, d.Default("d", nil))
	}
	for _, d := range app.ExportLayers() {
		exports = append(exports, d.Default("v", nil))
	}
	require.Equal(t, []any{"base", "web", "app"}, defaults, "the role's own defaults come last, and win")
	require.Equal(t, []any{"base", "base", "web", "app"}, exports,
		"each dependency exports its own dependencies' vars again, as ansible-core's get_vars does")
	require.True(t, app.Public)
	require.False(t, app.Deps[0].Deps[0].AllowDuplicates)
}

func TestRoleReferenceChecks(t *testing.T) {
	role := "roles/r/tasks/main.yml"
	cases := []struct {
		name, task, msg string
		code            int
	}{
		{"reserved argument", "set_fact: {_ansible_x: 1}",
			"Invalid parameter specified beginning with keyword '_ansible_' for action 'set_fact': '_ansible_x'. The prefix '_ansible_' is reserved for internal use only.", 1},
		{"unknown include_role option", "include_role: {name: r, tasks: x}", "Invalid options for include_role: tasks", 4},
		{"apply on import_role", "import_role: {name: r, apply: {tags: [a]}}", "Invalid options for import_role: apply", 4},
		{"no role name", "include_role: {tasks_from: x}", "'name' is a required field for include_role.", 4},
		{"a loop on import_role", "import_role: {name: r}\n      loop: [1]", "You cannot use loops on 'import_role' statements. You should use 'include_role' instead.", 4},
		{"a tasks_from that is not a string", "include_role: {name: r, tasks_from: 3}", "Expected a string for tasks_from but got <class 'int'> instead", 4},
		{"a missing tasks_from", "import_role: {name: r, tasks_from: nope}", "Could not find specified file in role: tasks/nope", 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := load(t, map[string]string{"playbook.yml": "- hosts: x\n  tasks:\n    - " + c.task + "\n", role: "[]\n"})
			var le *diag.Diagnostic
			require.True(t, errors.As(err, &le), "%v", err)
			require.Equal(t, c.msg, le.Summary)
			require.Equal(t, c.code, le.Code)
		})
	}
}

func TestLoadVarsFileData(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"dict.yml":  "a: 1\nb: 2\n",
		"list.yml":  "- a: 1\n- a: 2\n  b: 3\n",
		"bad.yml":   "- a: 1\n- oops\n",
		"empty.yml": "",
	})
	l := NewLoader(testModules(t), nil)
	d, err := l.LoadVarsFileData(filepath.Join(dir, "dict.yml"), false)
	require.NoError(t, err)
	require.Equal(t, value.DictOf("a", 1, "b", 2), d)
	d, err = l.LoadVarsFileData(filepath.Join(dir, "list.yml"), false)
	require.NoError(t, err)
	require.Equal(t, value.DictOf("a", 2, "b", 3), d, "a list of dicts is layered in order")
	d, err = l.LoadVarsFileData(filepath.Join(dir, "empty.yml"), false)
	require.NoError(t, err)
	require.Equal(t, 0, d.Len())
	_, err = l.LoadVarsFileData(filepath.Join(dir, "bad.yml"), false)
	var le *diag.Diagnostic
	require.True(t, errors.As(err, &le))
	require.Equal(t, "Invalid variable file contents.", le.Summary)
	require.Equal(t, 2, le.Origin.Line)
	require.Equal(t, 4, le.Code)
}

func TestRoleNameFromSourceAndShortenRepr(t *testing.T) {
	for src, want := range map[string]string{
		"https://github.com/acme/ansible-role-web.git":         "ansible-role-web",
		"git+https://example.test/x/repo.git,v1.0,custom_name": "custom_name",
		"https://example.test/archive/tool.tar.gz":             "tool",
	} {
		require.Equal(t, want, roleNameFromSource(src), src)
	}
	require.Equal(t, "short and sweet", shortenRepr("short   and\nsweet"))
	long := "{'a': 'xxxxxxxxxx', 'b': 'yyyyyyyyyy', 'c': 'zzzzzzzzzz', 'd': 'wwwwwwwwww', 'e': 'vvvvvvvvvv', 'f': 'uuuuuuuuuu', 'g': 'tttttttttt'}"
	got := shortenRepr(long)
	require.LessOrEqual(t, len(got), 120)
	require.Equal(t, "{'a': 'xxxxxxxxxx', 'b': 'yyyyyyyyyy', 'c': 'zzzzzzzzzz', 'd': 'wwwwwwwwww', 'e': 'vvvvvvvvvv', 'f': 'uuuuuuuuuu', [...]", got,
		"as Python's textwrap.shorten(width=120)")
}
