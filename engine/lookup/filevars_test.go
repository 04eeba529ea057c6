package lookup

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/py"
)

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
