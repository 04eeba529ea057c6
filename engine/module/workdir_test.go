package module_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// TestInBaseDir checks that a module with a relative path runs in the
// playbook's directory, one with only absolute paths where the process
// is, and that the working directory is restored.
func TestInBaseDir(t *testing.T) {
	base := t.TempDir()
	base, err := filepath.EvalSymlinks(base)
	require.NoError(t, err)
	start, err := os.Getwd()
	require.NoError(t, err)
	req := &module.Request{Host: moduletest.NewHost(value.DictOf("playbook_dir", base))}
	for _, tc := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"relative path", []string{"/abs", "notes.txt"}, base},
		{"absolute paths only", []string{"/abs/notes.txt"}, start},
		{"no paths", nil, start},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in string
			module.InBaseDir(req, tc.paths, func() { in, _ = os.Getwd() })
			require.Equal(t, tc.want, in)
			now, err := os.Getwd()
			require.NoError(t, err)
			require.Equal(t, start, now)
		})
	}
}
