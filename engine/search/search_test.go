package search

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func touch(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, nil, 0o644))
	return p
}

func TestCandidates(t *testing.T) {
	role := "/pb/roles/r"
	cases := []struct {
		name   string
		path   Path
		subdir string
		source string
		want   []string
	}{
		{
			name: "play task: the play's directory comes twice",
			path: Path{Dirs: []string{"/pb"}, Base: "/pb"}, subdir: "vars", source: "x.yml",
			want: []string{"/pb/vars/x.yml", "/pb/x.yml", "/pb/vars/x.yml", "/pb/x.yml"},
		},
		{
			name: "a source under the subdirectory still gets it prepended",
			path: Path{Dirs: []string{"/pb"}, Base: "/pb"}, subdir: "files", source: "files/a",
			want: []string{"/pb/files/files/a", "/pb/files/a", "/pb/files/files/a", "/pb/files/a"},
		},
		{
			name: "absolute sources are not searched",
			path: Path{Dirs: []string{"/pb"}, Base: "/pb"}, subdir: "files", source: "/abs/a",
		},
		{
			name: "role task in a tasks subdirectory also tries the role's own subdirectory",
			path: Path{Dirs: []string{role, role + "/tasks/sub"}, Base: "/pb", InRole: true}, subdir: "files", source: "a",
			want: []string{
				role + "/files/a", role + "/a",
				role + "/files/a", role + "/tasks/a", role + "/tasks/sub/files/a", role + "/tasks/sub/a",
				"/pb/files/a", "/pb/a",
			},
		},
		{
			name: "lookups search the play's directory as part of the path, then again",
			path: Path{Dirs: []string{role, role + "/tasks"}, Base: "/pb", InRole: true}.ForLookups(), subdir: "files", source: "a",
			want: []string{
				role + "/files/a", role + "/a", role + "/tasks/files/a", role + "/tasks/a",
				"/pb/files/a", "/pb/a", "/pb/files/a", "/pb/a",
			},
		},
		{
			name: "paths are normalized",
			path: Path{Dirs: []string{"/pb/./roles/../x/"}, Base: "/pb"}, subdir: "templates", source: "t.j2",
			want: []string{"/pb/x/templates/t.j2", "/pb/x/t.j2", "/pb/templates/t.j2", "/pb/t.j2"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, c.path.Candidates(c.subdir, c.source))
		})
	}
}

// A role task finds files beside the play when its role has none.
func TestFindFromRole(t *testing.T) {
	dir := t.TempDir()
	role := filepath.Join(dir, "roles", "r")
	touch(t, role, "tasks", "main.yml")
	beside := touch(t, dir, "files", "beside.txt")
	own := touch(t, role, "files", "own.txt")
	p := Path{Dirs: []string{role, filepath.Join(role, "tasks")}, Base: dir, InRole: true}

	got, tried, ok := p.Find("files", "beside.txt")
	require.True(t, ok)
	require.Equal(t, beside, got)
	require.Equal(t, filepath.Join(role, "files", "beside.txt"), tried[0])

	got, err := p.Resolve("files", "own.txt")
	require.NoError(t, err)
	require.Equal(t, own, got)

	_, err = p.Resolve("files", "missing.txt")
	var nf *NotFoundError
	require.ErrorAs(t, err, &nf)
	require.Contains(t, err.Error(), "Could not find or access 'missing.txt'\nSearched in:\n\t"+filepath.Join(role, "files", "missing.txt"))

	_, err = p.Resolve("files", "/nonexistent/x")
	require.EqualError(t, err, "Could not find or access '/nonexistent/x' on the Ansible Controller.\n"+
		"If you are using a module and expect the file to exist on the remote, see the remote_src option")
}

// A module's search (InRole unset) still treats a directory as a role
// when it looks like one (here, it holds a main.yml), as
// DataLoader._is_role does.
func TestLooksLikeRole(t *testing.T) {
	dir := t.TempDir()
	role := filepath.Join(dir, "r")
	touch(t, role, "meta", "main.yml")
	sub := filepath.Dir(touch(t, role, "tasks", "sub", "main.yml"))
	p := Path{Dirs: []string{sub}, Base: dir}
	require.Equal(t, filepath.Join(role, "files", "a"), p.Candidates("files", "a")[0])
	require.True(t, looksLikeRole(filepath.Join(role, "tasks")))
	require.False(t, looksLikeRole(dir))
}

func TestSearchPath(t *testing.T) {
	require.Equal(t, []string{"/r", "/pb"}, Path{Dirs: []string{"/r", "/pb"}, Base: "/pb"}.SearchPath())
	require.Equal(t, []string{"/r", "/r/tasks", "/pb"}, Path{Dirs: []string{"/r", "/r/tasks"}, Base: "/pb"}.SearchPath())
}

// TestDwimRelative follows DataLoader.path_dwim_relative: for a role, its
// tasks/ (as written, then normalized), the role itself, the working
// directory, then the play's directory; the first that exists wins, and
// the last candidate stands for a file found nowhere.
func TestDwimRelative(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	got := DwimRelativeCandidates("/pb/roles/r", "tasks", "tasks/create.yml", true, "/pb")
	require.Equal(t, []string{
		"/pb/roles/r/tasks/tasks/create.yml",
		"/pb/roles/r/tasks/tasks/create.yml",
		"/pb/roles/r/tasks/tasks/create.yml",
		filepath.Join(wd, "tasks/tasks/create.yml"),
		"/pb/roles/r/tasks/create.yml",
		"/pb/tasks/tasks/create.yml",
		"/pb/tasks/create.yml",
	}, got)
	// A role path that matches RE_TASKS has os.path.dirname as its base:
	// with a trailing slash that is the tasks directory itself.
	got = DwimRelativeCandidates("/pb/roles/r/tasks/", "tasks", "x.yml", true, "/pb")
	require.Equal(t, []string{
		"/pb/roles/r/tasks/tasks/x.yml",
		"/pb/roles/r/tasks/tasks/x.yml",
		"/pb/roles/r/tasks/tasks/x.yml",
		filepath.Join(wd, "tasks/x.yml"),
		"/pb/roles/r/tasks/x.yml",
		"/pb/tasks/x.yml",
		"/pb/x.yml",
	}, got)
	// An absolute source is the only candidate.
	require.Equal(t, []string{"/abs/x.yml"}, DwimRelativeCandidates("/pb/roles/r", "tasks", "/abs/../abs/x.yml", true, "/pb"))

	dir := t.TempDir()
	role := filepath.Join(dir, "roles", "r")
	touch(t, role, "tasks", "main.yml")
	want := touch(t, role, "tasks", "create.yml")
	require.Equal(t, want, DwimRelative(role, "tasks", "tasks/create.yml", true, dir))
	// Not in the role: the play's directory.
	inPlay := touch(t, dir, "shared.yml")
	require.Equal(t, inPlay, DwimRelative(role, "tasks", "shared.yml", true, dir))
	// Nowhere: the last candidate, in the play's directory.
	require.Equal(t, filepath.Join(dir, "absent.yml"), DwimRelative(role, "tasks", "absent.yml", true, dir))
	// Quotes around the name are dropped, as path_dwim does.
	require.Equal(t, inPlay, dwim(dir, `"shared.yml"`))
}
