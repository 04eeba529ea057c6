package search

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The play's directory comes last, even when the task's directory is the
// same: ansible-core's "Searched in" lists it twice.
func TestCandidatesPlayTask(t *testing.T) {
	p := Path{Dirs: []string{"/pb"}, Base: "/pb"}
	require.Equal(t, []string{"/pb/vars/x.yml", "/pb/x.yml", "/pb/vars/x.yml", "/pb/x.yml"}, p.Candidates("vars", "x.yml"))
	// A source that already starts with the subdirectory is not prefixed.
	require.Equal(t, []string{"/pb/files/a", "/pb/files/a"}, p.Candidates("files", "files/a"))
	require.Equal(t, []string{"/abs/a"}, p.Candidates("files", "/abs/a"))
}

// A role task searches its role, then the role's tasks directory, then
// the play's directory (files beside the play are found).
func TestFindFromRole(t *testing.T) {
	dir := t.TempDir()
	role := filepath.Join(dir, "roles", "r")
	require.NoError(t, os.MkdirAll(filepath.Join(role, "tasks"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "files"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "files", "beside.txt"), nil, 0o644))
	p := Path{Dirs: []string{role, filepath.Join(role, "tasks")}, Base: dir, InRole: true}
	got, tried, ok := p.Find("files", "beside.txt")
	require.True(t, ok)
	require.Equal(t, filepath.Join(dir, "files", "beside.txt"), got)
	require.Equal(t, filepath.Join(role, "files", "beside.txt"), tried[0])
	_, _, ok = p.Find("files", "missing.txt")
	require.False(t, ok)
	require.Equal(t, []string{filepath.Join(role, "templates"), role, filepath.Join(role, "tasks", "templates"), filepath.Join(role, "tasks"), filepath.Join(dir, "templates"), dir}, p.All("templates"))
}
