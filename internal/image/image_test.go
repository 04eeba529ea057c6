package image

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

// maxCompressedSize is the image size budget of issue 6.
const maxCompressedSize = 40 << 20

// TestOperatorImageLayout builds the static binary, packs the operator
// image as an OCI layout tarball, reads it back and checks its size and
// contents.
func TestOperatorImageLayout(t *testing.T) {
	root, err := kubetest.RepoRoot()
	require.NoError(t, err)
	dir := t.TempDir()
	bin := filepath.Join(dir, "cfzt-runner")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	start := time.Now()
	require.NoError(t, BuildBinary(ctx, root, bin, "test"))
	t.Logf("go build: %s", time.Since(start).Round(time.Millisecond))

	img, err := Operator(Options{Binary: bin, AnsibleDir: filepath.Join(root, "ansible"), Name: "example.test/cfzt-operator:test"})
	require.NoError(t, err)
	tarball := filepath.Join(dir, "image.tar")
	f, err := os.Create(tarball)
	require.NoError(t, err)
	_, err = img.WriteLayout(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	f, err = os.Open(tarball)
	require.NoError(t, err)
	defer f.Close()
	l, err := ReadLayout(f)
	require.NoError(t, err)
	t.Logf("image: %d layers, %.1f MB compressed, %.1f MB uncompressed",
		len(l.Manifest.Layers), float64(l.CompressedSize)/(1<<20), float64(l.UncompressedSize)/(1<<20))
	require.Less(t, l.CompressedSize, int64(maxCompressedSize), "compressed image size")

	t.Run("docs size figures", func(t *testing.T) {
		// docs/install.md's figures are written by `make image`; they must
		// describe the image this tree builds (within 15%: they are
		// rounded, and other changes move them a little).
		if runtime.GOARCH != "amd64" {
			t.Skip("the figures are linux/amd64's")
		}
		doc, err := ReadSizeFigures(filepath.Join(root, "docs", "install.md"))
		require.NoError(t, err)
		got := SizesOf(l)
		require.Equal(t, "amd64", doc.Arch)
		for _, c := range []struct {
			what      string
			doc, real int64
		}{{"compressed", doc.Compressed, got.Compressed}, {"unpacked", doc.Unpacked, got.Unpacked}, {"binary", doc.Binary, got.Binary}} {
			require.InDelta(t, c.real, c.doc, 0.15*float64(c.real),
				"docs/install.md's %s size (%.1f MB) drifted from the image's (%.1f MB): run `make image` to rewrite it", c.what, float64(c.doc)/(1<<20), float64(c.real)/(1<<20))
		}
	})

	t.Run("ansible-operator docs size figures", func(t *testing.T) {
		// The small flavour of the ansible-operator base image, around the
		// same binary: docs/ansible-operator.md's figures (written by
		// `make image-ansible-operator`) must describe it.
		img, err := AnsibleOperator(SDKOptions{Binary: bin, Arch: runtime.GOARCH})
		require.NoError(t, err)
		var buf bytes.Buffer
		_, err = img.WriteLayout(&buf)
		require.NoError(t, err)
		sl, err := ReadLayout(&buf)
		require.NoError(t, err)
		doc, err := ReadSizeFiguresOf(filepath.Join(root, "docs", "ansible-operator.md"), SizesAnsibleOperator)
		require.NoError(t, err)
		checkFigures(t, "docs/ansible-operator.md's small flavour", "make image-ansible-operator", doc, SizesOf(sl))
	})

	t.Run("index", func(t *testing.T) {
		m := l.Index.Manifests[0]
		require.Equal(t, MediaTypeManifest, m.MediaType)
		require.Equal(t, "example.test/cfzt-operator:test", m.Annotations[AnnotationImageName])
		require.Equal(t, "test", m.Annotations[AnnotationRefName])
		require.Equal(t, "linux", l.Config.OS)
		for _, d := range l.Manifest.Layers {
			require.Equal(t, MediaTypeLayer, d.MediaType)
		}
	})

	t.Run("config", func(t *testing.T) {
		c := l.Config.Config
		require.Equal(t, "1000:1000", c.User)
		require.Equal(t, []string{"/usr/local/bin/cfzt-runner", "--watch", "/ansible/playbooks/reconcile.yml"}, c.Entrypoint)
		require.Empty(t, c.Cmd)
		require.Equal(t, "/ansible", c.WorkingDir)
		require.Contains(t, c.Env, "ROLE=manager")
		require.Contains(t, c.Env, "HOME=/tmp")
		require.Contains(t, c.Env, "ANSIBLE_ROLES_PATH=/ansible/roles")
		for _, e := range c.Env {
			require.NotContains(t, e, "FORCE_COLOR", "kubectl logs must not be full of ANSI colour codes")
		}
	})

	t.Run("binary is static", func(t *testing.T) {
		hdr := l.Files[BinaryPath]
		require.NotNil(t, hdr, "binary missing")
		require.Equal(t, int64(0o755), hdr.Mode)
		require.Equal(t, UID, hdr.Uid)
		require.Equal(t, GID, hdr.Gid)
		ef, err := elf.NewFile(bytes.NewReader(l.Contents[BinaryPath]))
		require.NoError(t, err)
		defer ef.Close()
		for _, p := range ef.Progs {
			require.NotEqual(t, elf.PT_INTERP, p.Type, "binary has an ELF interpreter: not static")
			require.NotEqual(t, elf.PT_DYNAMIC, p.Type, "binary has a dynamic section: not static")
		}
		libs, err := ef.ImportedLibraries()
		require.NoError(t, err)
		require.Empty(t, libs)
		require.Nil(t, ef.Section(".symtab"), "binary not stripped (-s)")
	})

	t.Run("binary runs from the image", func(t *testing.T) {
		exe := filepath.Join(t.TempDir(), "cfzt-runner")
		require.NoError(t, os.WriteFile(exe, l.Contents[BinaryPath], 0o755))
		cmd := exec.Command(exe, "--version")
		cmd.Env = l.Config.Config.Env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Contains(t, string(out), "cfzt-runner test")
		// Every flag of the entrypoint and of the chart's command exists.
		usage, _ := exec.Command(exe, "-h").CombinedOutput()
		for _, flag := range []string{"--watch", "--interval", "--metrics-addr", "--log-format", "--grace"} {
			require.Regexp(t, `(?m)^  `+flag+`( |$)`, string(usage), "cfzt-runner has no %s flag", flag)
		}
	})

	t.Run("playbooks load inside the image as 1000", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("chroot needs root")
		}
		rootfs := extract(t, l)
		for _, tier := range []string{"manager", "kube_worker", "cloudflare_worker"} {
			cmd := exec.Command(BinaryPath, "--list-tasks", Playbook)
			cmd.Dir = "/"
			cmd.Env = append(append([]string(nil), l.Config.Config.Env...), "ROLE="+tier)
			cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: rootfs, Credential: &syscall.Credential{Uid: UID, Gid: GID}}
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			require.Contains(t, string(out), "playbook: "+Playbook)
		}
	})

	t.Run("system files", func(t *testing.T) {
		require.Contains(t, string(l.Contents["/etc/passwd"]), ":1000:1000:")
		require.Contains(t, string(l.Contents["/etc/group"]), ":1000:")
		require.Contains(t, string(l.Contents[CABundlePath]), "BEGIN CERTIFICATE")
		tmp := l.Files["/tmp"]
		require.NotNil(t, tmp)
		require.Equal(t, byte(tar.TypeDir), tmp.Typeflag)
		require.Equal(t, int64(0o1777), tmp.Mode)
		require.Equal(t, UID, tmp.Uid)
		for p, h := range l.Files {
			require.Zero(t, h.Mode&0o6000, "%s is setuid or setgid", p)
			sticky := h.Typeflag == tar.TypeDir && h.Mode&0o1000 != 0
			if h.Typeflag != tar.TypeSymlink && !sticky {
				require.Zero(t, h.Mode&0o002, "%s is world-writable", p)
			}
		}
	})

	t.Run("ansible content", func(t *testing.T) { checkAnsibleContent(t, l, root) })
}

// checkAnsibleContent checks that every file of the repository's ansible/
// is in the image, unchanged and owned by 1000.
func checkAnsibleContent(t *testing.T, l *Layout, root string) {
	_, ok := l.Contents[Playbook]
	require.True(t, ok, "the image has no %s: ansible/playbooks/reconcile.yml is missing from the repository", Playbook)
	ansibleDir := filepath.Join(root, "ansible")
	roles, err := os.ReadDir(filepath.Join(ansibleDir, "roles"))
	require.NoError(t, err)
	var names []string
	for _, r := range roles {
		if r.IsDir() {
			names = append(names, r.Name())
		}
	}
	require.NotEmpty(t, names, "ansible/roles has no roles")
	for _, n := range names {
		hdr := l.Files[AnsibleRoot+"/roles/"+n]
		require.NotNil(t, hdr, "role %s missing", n)
		require.Equal(t, byte(tar.TypeDir), hdr.Typeflag)
	}
	// Every file of ansible/ is in the image, unchanged and owned by 1000.
	count := 0
	err = filepath.WalkDir(ansibleDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		rel, _ := filepath.Rel(ansibleDir, p)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			in := AnsibleRoot + "/" + filepath.ToSlash(rel)
			require.NotNil(t, l.Files[in], in)
			require.Equal(t, byte(tar.TypeSymlink), l.Files[in].Typeflag, in)
			require.Equal(t, target, l.Files[in].Linkname, in)
			return nil
		}
		want, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		in := AnsibleRoot + "/" + filepath.ToSlash(rel)
		require.Equal(t, want, l.Contents[in], "%s differs from %s", in, p)
		require.Equal(t, UID, l.Files[in].Uid, in)
		count++
		return nil
	})
	require.NoError(t, err)
	t.Logf("%d files under %s, roles %v", count, AnsibleRoot, names)
}

// extract writes the flattened root filesystem of l to a temporary
// directory, with the image's modes and owners.
func extract(t *testing.T, l *Layout) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.Chmod(root, 0o755))
	paths := make([]string, 0, len(l.Files))
	for p := range l.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths) // parents first
	for _, p := range paths {
		h := l.Files[p]
		dst := filepath.Join(root, p)
		switch h.Typeflag {
		case tar.TypeDir:
			require.NoError(t, os.MkdirAll(dst, 0o755))
		case tar.TypeSymlink:
			require.NoError(t, os.Symlink(h.Linkname, dst))
			continue
		case tar.TypeReg:
			require.NoError(t, os.WriteFile(dst, l.Contents[p], 0o600))
		}
		require.NoError(t, os.Chmod(dst, fs.FileMode(h.Mode&0o777)|tarSpecial(h.Mode)))
		require.NoError(t, os.Lchown(dst, h.Uid, h.Gid))
	}
	return root
}

func tarSpecial(mode int64) fs.FileMode {
	var m fs.FileMode
	if mode&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// TestLayerEntries checks ownership, modes, implicit parent directories and
// ordering of a packed layer on a small synthetic image.
func TestLayerEntries(t *testing.T) {
	img := &Image{
		Name:     "example.test/x",
		Platform: Platform{Architecture: "amd64", OS: "linux"},
		Config:   RuntimeConfig{User: "1000:1000", Entrypoint: []string{"/x"}},
		Layers: []Layer{
			{Entries: []Entry{
				{Path: "/opt/app/bin/x", Mode: 0o755, UID: 1000, GID: 1000, Data: []byte("x")},
				{Path: "/tmp", Mode: fs.ModeDir | fs.ModeSticky | 0o777},
				{Path: "/opt/app/link", Mode: fs.ModeSymlink | 0o777, Link: "bin/x"},
			}},
			{Entries: []Entry{{Path: "/opt/app/bin/x", Mode: 0o700, Data: []byte("y")}}},
		},
	}
	var buf bytes.Buffer
	desc, err := img.WriteLayout(&buf)
	require.NoError(t, err)
	packed := append([]byte(nil), buf.Bytes()...)
	require.Equal(t, "latest", desc.Annotations[AnnotationRefName], "an untagged name is :latest")
	l, err := ReadLayout(&buf)
	require.NoError(t, err)
	require.Equal(t, []byte("y"), l.Contents["/opt/app/bin/x"], "a later layer wins")
	require.Equal(t, int64(0o700), l.Files["/opt/app/bin/x"].Mode)
	require.Equal(t, byte(tar.TypeDir), l.Files["/opt"].Typeflag)
	require.Equal(t, int64(0o755), l.Files["/opt/app"].Mode)
	require.Equal(t, "bin/x", l.Files["/opt/app/link"].Linkname)
	require.Equal(t, int64(0o1777), l.Files["/tmp"].Mode)

	// The same image packs to the same bytes.
	var again bytes.Buffer
	desc2, err := img.WriteLayout(&again)
	require.NoError(t, err)
	require.Equal(t, desc, desc2)
	require.True(t, bytes.Equal(packed, again.Bytes()))

	_, err = (&Image{Layers: []Layer{{Entries: []Entry{{Path: "/a", Mode: 0o644}, {Path: "a", Mode: 0o644}}}}}).WriteLayout(&bytes.Buffer{})
	require.ErrorContains(t, err, "listed twice")
}

// TestReadLayoutRejectsCorruptBlob flips a byte of a layer blob and expects
// the digest check to catch it.
func TestReadLayoutRejectsCorruptBlob(t *testing.T) {
	img := &Image{Platform: Platform{Architecture: "amd64", OS: "linux"},
		Layers: []Layer{{Entries: []Entry{{Path: "/f", Mode: 0o644, Data: bytes.Repeat([]byte("z"), 1000)}}}}}
	var buf bytes.Buffer
	_, err := img.WriteLayout(&buf)
	require.NoError(t, err)
	l, err := ReadLayout(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	layerName := "blobs/sha256/" + strings.TrimPrefix(l.Manifest.Layers[0].Digest, "sha256:")

	var out bytes.Buffer
	tr, tw := tar.NewReader(&buf), tar.NewWriter(&out)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		data, err := io.ReadAll(tr)
		require.NoError(t, err)
		if hdr.Name == layerName {
			data[len(data)/2] ^= 0xff
		}
		require.NoError(t, tw.WriteHeader(hdr))
		_, err = tw.Write(data)
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	_, err = ReadLayout(&out)
	require.ErrorContains(t, err, "blob "+l.Manifest.Layers[0].Digest)
}
