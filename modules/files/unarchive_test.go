package files

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// archiveMember is one entry of a test archive.
type archiveMember struct {
	name, content, link string
	mode                int64
}

var testMembers = []archiveMember{
	{name: "pkg/", mode: 0o755},
	{name: "pkg/a.txt", content: "hello\n", mode: 0o644},
	{name: "pkg/bin/", mode: 0o755},
	{name: "pkg/bin/tool", content: "#!/bin/sh\n", mode: 0o750},
	{name: "pkg/notes.log", content: "log\n", mode: 0o600},
	{name: "pkg/link", link: "a.txt", mode: 0o777},
}

var archiveTime = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// writeTgz writes members as a gzip-compressed tar.
func writeTgz(t *testing.T, path string, members []archiveMember) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	// As git archive (GitHub's release tarballs) writes first.
	require.NoError(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header",
		PAXRecords: map[string]string{"comment": "0123456789abcdef"}}))
	for _, m := range members {
		hdr := &tar.Header{Name: m.name, Mode: m.mode, ModTime: archiveTime, Uid: os.Getuid(), Gid: os.Getgid(), Typeflag: tar.TypeReg, Size: int64(len(m.content))}
		switch {
		case strings.HasSuffix(m.name, "/"):
			hdr.Typeflag, hdr.Size = tar.TypeDir, 0
		case m.link != "":
			hdr.Typeflag, hdr.Linkname, hdr.Size = tar.TypeSymlink, m.link, 0
		}
		require.NoError(t, tw.WriteHeader(hdr))
		_, err := tw.Write([]byte(m.content))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
}

// writeZip writes members as a zip made on Unix.
func writeZip(t *testing.T, path string, members []archiveMember) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	for _, m := range members {
		fh := &zip.FileHeader{Name: m.name, Method: zip.Deflate, Modified: archiveTime}
		mode := os.FileMode(m.mode)
		content := m.content
		switch {
		case strings.HasSuffix(m.name, "/"):
			mode |= os.ModeDir
		case m.link != "":
			mode |= os.ModeSymlink
			content = m.link
		}
		fh.SetMode(mode)
		w, err := zw.CreateHeader(fh)
		require.NoError(t, err)
		_, err = w.Write([]byte(content))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
}

// unarchiveDirs makes a temporary dest and remote temp for one test.
func unarchiveDirs(t *testing.T) (dir, dest string) {
	dir = t.TempDir()
	t.Setenv("ANSIBLE_REMOTE_TEMP", filepath.Join(dir, "rtmp"))
	dest = filepath.Join(dir, "out")
	require.NoError(t, os.Mkdir(dest, 0o755))
	return dir, dest
}

func TestUnarchiveRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name, file, handler string
		write               func(*testing.T, string, []archiveMember)
		extractVerb         string
	}{
		{name: "tar.gz", file: "pkg.tar.gz", handler: "TgzArchive", write: writeTgz},
		{name: "zip", file: "pkg.zip", handler: "ZipArchive", write: writeZip, extractVerb: "  inflating: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, dest := unarchiveDirs(t)
			src := filepath.Join(dir, tc.file)
			tc.write(t, src, testMembers)

			res := mustRun(t, "unarchive", "src", src, "dest", dest, "remote_src", true, "list_files", true)
			require.Equal(t, true, res.Default("changed", nil))
			require.Equal(t, tc.handler, res.Default("handler", nil))
			require.Equal(t, []any{"pkg/", "pkg/a.txt", "pkg/bin/", "pkg/bin/tool", "pkg/notes.log", "pkg/link"}, res.Default("files", nil))
			extract := res.Default("extract_results", nil).(*value.Dict)
			require.Equal(t, 0, extract.Default("rc", nil))
			require.Contains(t, value.Str(extract.Default("out", nil)), tc.extractVerb)
			require.Equal(t, "hello\n", readFile(t, filepath.Join(dest, "pkg/a.txt")))
			require.Equal(t, int64(0o750), modeOf(t, filepath.Join(dest, "pkg/bin/tool")))
			target, err := os.Readlink(filepath.Join(dest, "pkg/link"))
			require.NoError(t, err)
			require.Equal(t, "a.txt", target)
			st, err := os.Stat(filepath.Join(dest, "pkg/a.txt"))
			require.NoError(t, err)
			require.True(t, st.ModTime().Equal(archiveTime), "mtime restored from the archive")

			again := mustRun(t, "unarchive", "src", src, "dest", dest, "remote_src", true)
			require.Equal(t, false, again.Default("changed", nil), "second run is unchanged")
			require.False(t, again.Has("extract_results"))

			writeFile(t, filepath.Join(dest, "pkg/a.txt"), "edited\n")
			third := mustRun(t, "unarchive", "src", src, "dest", dest, "remote_src", true)
			require.Equal(t, true, third.Default("changed", nil), "an edited file is restored")
			require.Equal(t, "hello\n", readFile(t, filepath.Join(dest, "pkg/a.txt")))
		})
	}
}

func TestUnarchiveCheckMode(t *testing.T) {
	dir, dest := unarchiveDirs(t)
	zipSrc, tgzSrc := filepath.Join(dir, "pkg.zip"), filepath.Join(dir, "pkg.tgz")
	writeZip(t, zipSrc, testMembers)
	writeTgz(t, tgzSrc, testMembers)

	h := moduletest.NewHost(nil)
	req := h.Request("unarchive", "src", zipSrc, "dest", dest, "remote_src", true)
	req.Check = true
	res, err := runReq(t, req)
	require.NoError(t, err)
	require.Equal(t, true, res.Default("changed", nil))
	diff := res.Default("diff", nil).(*value.Dict)
	require.Contains(t, value.Str(diff.Default("prepared", nil)), ">f++++++.?? pkg/a.txt\n")
	require.NoFileExists(t, filepath.Join(dest, "pkg/a.txt"), "check mode writes nothing")

	req = h.Request("unarchive", "src", tgzSrc, "dest", dest, "remote_src", true)
	req.Check = true
	res, err = runReq(t, req)
	require.NoError(t, err)
	require.Equal(t, true, res.Default("skipped", nil))
	require.Equal(t, "remote module (ansible.legacy.unarchive) does not support check mode when using gtar", res.Default("msg", nil))
}

func TestUnarchiveOptions(t *testing.T) {
	dir, dest := unarchiveDirs(t)
	src := filepath.Join(dir, "pkg.tgz")
	writeTgz(t, src, testMembers)

	res := mustRun(t, "unarchive", "src", src, "dest", dest, "remote_src", true, "list_files", true,
		"extra_opts", []any{"--strip-components=1"}, "exclude", []any{"*.log"}, "mode", "0700")
	require.Equal(t, []any{"", "a.txt", "bin/", "bin/tool", "link"}, res.Default("files", nil))
	require.Equal(t, []any{"/usr/bin/tar", "--extract", "-C", dest, "-z", "--show-transformed-names", "--strip-components=1", "--exclude=*.log", "-f", src},
		withTarPath(res.Default("extract_results", nil).(*value.Dict).Default("cmd", nil)))
	require.FileExists(t, filepath.Join(dest, "a.txt"))
	require.NoFileExists(t, filepath.Join(dest, "notes.log"))
	require.Equal(t, int64(0o700), modeOf(t, filepath.Join(dest, "a.txt")))

	creates := mustRun(t, "unarchive", "src", src, "dest", dest, "creates", filepath.Join(dest, "a.txt"))
	require.Equal(t, true, creates.Default("skipped", nil))
	require.Equal(t, "skipped, since "+filepath.Join(dest, "a.txt")+" exists", creates.Default("msg", nil))

	only := filepath.Join(dir, "only")
	require.NoError(t, os.Mkdir(only, 0o755))
	res = mustRun(t, "unarchive", "src", src, "dest", only, "copy", false, "include", []any{"pkg/bin"}, "list_files", true)
	require.Equal(t, []any{"pkg/bin/", "pkg/bin/tool"}, res.Default("files", nil))
	require.NoFileExists(t, filepath.Join(only, "pkg/a.txt"))
}

// withTarPath replaces the tar found on PATH with /usr/bin/tar, so the
// expected command line does not depend on the machine.
func withTarPath(cmd any) []any {
	out := append([]any(nil), cmd.([]any)...)
	out[0] = "/usr/bin/tar"
	return out
}

func TestUnarchiveErrors(t *testing.T) {
	dir, dest := unarchiveDirs(t)
	text := filepath.Join(dir, "notes.txt")
	writeFile(t, text, "not an archive\n")
	empty := filepath.Join(dir, "empty.tgz")
	writeFile(t, empty, "")
	for _, tc := range []struct {
		name string
		args []any
		msg  string
	}{
		{"missing src", []any{"src", filepath.Join(dir, "nope.tgz"), "dest", dest, "remote_src", true},
			"Source '" + filepath.Join(dir, "nope.tgz") + "' does not exist"},
		{"empty archive", []any{"src", empty, "dest", dest, "remote_src", true},
			"Invalid archive '" + empty + "', the file is 0 bytes"},
		{"not an archive", []any{"src", text, "dest", dest, "remote_src", true},
			`Failed to find handler for "` + text + `". Make sure the required command to extract the file is installed.` + "\n"},
		{"include and exclude", []any{"src", text, "dest", dest, "remote_src", true, "include", []any{"a"}, "exclude", []any{"b"}},
			"parameters are mutually exclusive: include|exclude"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := run(t, "unarchive", tc.args...)
			require.NoError(t, err)
			require.Equal(t, true, res.Default("failed", nil))
			require.True(t, strings.HasPrefix(value.Str(res.Default("msg", nil)), tc.msg), "msg: %v", res.Default("msg", nil))
		})
	}
	for _, tc := range []struct {
		name string
		args []any
		msg  string
	}{
		{"dest missing", []any{"src", text, "dest", filepath.Join(dir, "nowhere"), "remote_src", true},
			"dest '" + filepath.Join(dir, "nowhere") + "' must be an existing dir"},
		{"copy with remote_src", []any{"src", text, "dest", dest, "remote_src", true, "copy", false},
			"parameters are mutually exclusive: ('copy', 'remote_src')"},
		{"no dest", []any{"src", text}, "src (or content) and dest are required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, "unarchive", tc.args...)
			require.EqualError(t, err, tc.msg)
		})
	}
}

func TestUnarchiveKeepsInsideDest(t *testing.T) {
	dir, dest := unarchiveDirs(t)
	outside := filepath.Join(dir, "outside")
	require.NoError(t, os.Mkdir(outside, 0o755))
	evil := []archiveMember{
		{name: "pkg/", mode: 0o755},
		{name: "pkg/escape", link: outside, mode: 0o777},
		{name: "pkg/escape/planted.txt", content: "x\n", mode: 0o644},
		{name: "../climb.txt", content: "x\n", mode: 0o644},
	}
	for _, tc := range []struct {
		name  string
		write func(*testing.T, string, []archiveMember)
		rc    int
	}{{"tar.gz", writeTgz, 2}, {"zip", writeZip, 50}} {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join(dir, "evil."+tc.name)
			tc.write(t, src, evil)
			res, err := run(t, "unarchive", "src", src, "dest", dest, "remote_src", true)
			require.NoError(t, err)
			require.Equal(t, true, res.Default("failed", nil))
			require.Equal(t, tc.rc, res.Default("extract_results", nil).(*value.Dict).Default("rc", nil))
			require.NoFileExists(t, filepath.Join(outside, "planted.txt"))
			require.NoFileExists(t, filepath.Join(dir, "climb.txt"))
		})
	}
}

func TestUnarchiveURL(t *testing.T) {
	dir, dest := unarchiveDirs(t)
	src := filepath.Join(dir, "pkg.tar.gz")
	writeTgz(t, src, testMembers)
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)

	res := mustRun(t, "unarchive", "src", srv.URL+"/pkg.tar.gz", "dest", dest, "remote_src", true)
	require.Equal(t, "TgzArchive", res.Default("handler", nil))
	require.Regexp(t, `/pkg[a-z0-9_]{8}\.tar\.gz$`, res.Default("src", nil))
	require.Equal(t, "hello\n", readFile(t, filepath.Join(dest, "pkg/a.txt")))

	res, err := run(t, "unarchive", "src", srv.URL+"/missing.tgz", "dest", dest, "remote_src", true)
	require.NoError(t, err)
	require.Equal(t, "Failure downloading "+srv.URL+"/missing.tgz, HTTP Error 404: Not Found", res.Default("msg", nil))
}

func TestTarNameHelpers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		strip int
		want  string
		ok    bool
	}{
		{"pkg/a.txt", 0, "pkg/a.txt", true},
		{"pkg/a.txt", 1, "a.txt", true},
		{"pkg/", 1, "", true},
		{"pkg", 1, "", false},
		{"/abs//dir/file", 1, "/dir/file", true}, // as GNU tar: the second slash stays
		{"a/b/c", 2, "c", true},
	} {
		got, ok := stripTarName(tc.name, tc.strip)
		require.Equal(t, tc.ok, ok, tc.name)
		require.Equal(t, tc.want, got, tc.name)
	}
	for _, tc := range []struct {
		opts []string
		want int
	}{
		{[]string{"--strip-components=2"}, 2},
		{[]string{"--strip-components", "1"}, 1},
		{[]string{"--strip=3"}, 3},
		{[]string{"--no-same-owner"}, 0},
	} {
		require.Equal(t, tc.want, stripComponents(tc.opts), tc.opts)
	}
	h := &tarHandler{excludes: []string{"*.log", "pkg/docs"}}
	for name, want := range map[string]bool{"pkg/x.log": true, "pkg/docs/": true, "pkg/docs/a.md": true, "pkg/a.txt": false, "docs": false} {
		require.Equal(t, want, h.excludedMember(name), name)
	}
	for name, want := range map[string][2]string{
		"pkg.tar.gz": {"pkg", ".tar.gz"}, "tool-1.2.zip": {"tool-1.2", ".zip"}, "archive": {"archive", ""}, "x.tar.bz2": {"x", ".tar.bz2"}, "data.tar.gz": {"d", ".tar.gz"},
	} {
		p, e := splitMultiExt(name)
		require.Equal(t, want, [2]string{p, e}, name)
	}
}
