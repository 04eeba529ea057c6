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

// TestFileCommands: mkdir, rm and sha256sum work inside the container's
// root, with the coreutils' messages and exit codes, and never on the
// root itself.
func TestFileCommands(t *testing.T) {
	root := t.TempDir()
	do := func(cmd ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(&Exec{Command: cmd, Stdout: &out, Stderr: &errOut, Root: root})
		return code, out.String(), errOut.String()
	}
	code, _, _ := do("mkdir", "-p", "/a/b/c")
	require.Equal(t, 0, code)
	require.DirExists(t, filepath.Join(root, "a", "b", "c"))
	code, _, msg := do("mkdir", "/a")
	require.Equal(t, 1, code)
	require.Equal(t, "mkdir: can't create directory '/a': File exists\n", msg)

	require.NoError(t, os.WriteFile(filepath.Join(root, "a", "f"), []byte("hello\n"), 0o644))
	code, out, _ := do("sha256sum", "-b", "/a/f")
	require.Equal(t, 0, code)
	require.Equal(t, "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03 */a/f\n", out)
	code, _, msg = do("sha256sum", "/a/missing")
	require.Equal(t, 1, code)
	require.Equal(t, "sha256sum: /a/missing: No such file or directory\n", msg)

	code, _, msg = do("rm", "/a")
	require.Equal(t, 1, code)
	require.Equal(t, "rm: cannot remove '/a': Is a directory\n", msg)
	code, _, _ = do("rm", "-rf", "/a", "/nothing")
	require.Equal(t, 0, code)
	require.NoDirExists(t, filepath.Join(root, "a"))
	code, _, msg = do("rm", "/nothing")
	require.Equal(t, 1, code)
	require.Equal(t, "rm: cannot remove '/nothing': No such file or directory\n", msg)
	code, _, _ = do("rm", "-rf", "/", "../..")
	require.Equal(t, 1, code)
	require.DirExists(t, root, "the container's root stays")
}
