package kubelet

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTarCreate: `tar cf - PATH`, as kubectl cp runs it to copy out of a
// pod, archives the path with names relative to the container's root
// and reports a missing path as GNU tar does; the archive extracts back
// through the stand-in's own `tar -xmf -`.
func TestTarCreate(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "data", "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "data", "a.txt"), []byte("alpha"), 0o640))
	require.NoError(t, os.WriteFile(filepath.Join(root, "data", "sub", "b.txt"), []byte("beta"), 0o644))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(root, "data", "link")))

	var out, errOut bytes.Buffer
	code := run(&Exec{Command: []string{"tar", "cf", "-", "/data"}, Stdout: &out, Stderr: &errOut, Root: root})
	require.Equal(t, 0, code, errOut.String())
	require.Equal(t, "tar: Removing leading `/' from member names\n", errOut.String())
	var names []string
	tr := tar.NewReader(bytes.NewReader(out.Bytes()))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		names = append(names, h.Name)
		if h.Name == "data/a.txt" {
			body, _ := io.ReadAll(tr)
			require.Equal(t, "alpha", string(body))
			require.Equal(t, int64(0o640), h.Mode&0o777)
		}
		if h.Name == "data/link" {
			require.Equal(t, "a.txt", h.Linkname)
		}
	}
	require.Equal(t, []string{"data/", "data/a.txt", "data/link", "data/sub/", "data/sub/b.txt"}, names)

	other := t.TempDir()
	errOut.Reset()
	code = run(&Exec{Command: []string{"tar", "-xmf", "-", "-C", "/copy"}, Stdin: bytes.NewReader(out.Bytes()), Stdout: io.Discard, Stderr: &errOut, Root: other})
	require.Equal(t, 0, code, errOut.String())
	got, err := os.ReadFile(filepath.Join(other, "copy", "data", "sub", "b.txt"))
	require.NoError(t, err)
	require.Equal(t, "beta", string(got))

	errOut.Reset()
	code = run(&Exec{Command: []string{"tar", "cf", "-", "missing"}, Stdout: io.Discard, Stderr: &errOut, Root: root})
	require.Equal(t, 2, code)
	require.Equal(t, "tar: missing: Cannot stat: No such file or directory\ntar: Exiting with failure status due to previous errors\n", errOut.String())

	// A path cannot leave the container's root.
	errOut.Reset()
	out.Reset()
	code = run(&Exec{Command: []string{"tar", "cf", "-", "../../etc"}, Stdout: &out, Stderr: &errOut, Root: root})
	require.Equal(t, 2, code)
}
