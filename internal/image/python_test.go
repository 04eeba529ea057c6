package image

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
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

// fakeELF is an ELF header for the machine of arch: what the packer reads
// of an interpreter to check its architecture.
func fakeELF(t *testing.T, arch string) []byte {
	t.Helper()
	h := elf.Header64{Type: uint16(elf.ET_EXEC), Machine: uint16(elfMachines[arch]), Version: uint32(elf.EV_CURRENT), Ehsize: 64}
	copy(h.Ident[:], elf.ELFMAG)
	h.Ident[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	h.Ident[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	h.Ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	var buf bytes.Buffer
	require.NoError(t, binary.Write(&buf, binary.LittleEndian, h))
	return buf.Bytes()
}

// fakePythonRoot writes a root filesystem shaped as
// hack/fetch-python-debs.sh leaves one: merged /usr, python3 a link to
// python3.13, and the packages' control fields.
func fakePythonRoot(t *testing.T, arch string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(p string, data []byte, mode os.FileMode) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), data, mode))
		require.NoError(t, os.Chmod(filepath.Join(dir, p), mode))
	}
	write("usr/bin/python3.13", fakeELF(t, arch), 0o755)
	require.NoError(t, os.Symlink("python3.13", filepath.Join(dir, "usr/bin/python3")))
	require.NoError(t, os.Symlink("usr/bin", filepath.Join(dir, "bin")))
	write("usr/lib/python3.13/json/__init__.py", []byte("# json\n"), 0o644)
	write("var/lib/dpkg/status.d/python3.13", []byte("Package: python3.13\nVersion: 3.13.5-2\nArchitecture: amd64\n"), 0o644)
	write("var/lib/dpkg/status.d/libc6", []byte("Package: libc6\nVersion: 2.41-12\nArchitecture: amd64\n"), 0o644)
	return dir
}

// TestPythonFlavourPacking packs the python flavour around a stand-in
// binary and a stand-in python root: the small flavour's layer comes first
// and unchanged (a node that has one flavour pulls only the python layer
// for the other), the runtime settings are the small flavour's, and the
// label lists the packages.
func TestPythonFlavourPacking(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "cfzt-runner")
	require.NoError(t, os.WriteFile(bin, []byte("binary"), 0o755))
	ca := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(ca, []byte("pem"), 0o644))
	opts := SDKOptions{Binary: bin, CABundle: ca}

	small, err := AnsibleOperator(opts)
	require.NoError(t, err)
	py, err := AnsibleOperatorPython(opts, fakePythonRoot(t, runtime.GOARCH))
	require.NoError(t, err)
	read := func(img *Image) *Layout {
		var buf bytes.Buffer
		_, err := img.WriteLayout(&buf)
		require.NoError(t, err)
		l, err := ReadLayout(&buf)
		require.NoError(t, err)
		return l
	}
	ls, lp := read(small), read(py)
	require.Len(t, lp.Manifest.Layers, 2)
	require.Equal(t, ls.Manifest.Layers[0], lp.Manifest.Layers[0], "the small flavour's layer, byte for byte")
	require.Equal(t, SDKPythonDefaultName, py.Name)

	sc, pc := ls.Config.Config, lp.Config.Config
	require.Equal(t, sc.User, pc.User)
	require.Equal(t, sc.Env, pc.Env)
	require.Equal(t, sc.Entrypoint, pc.Entrypoint)
	require.Equal(t, sc.WorkingDir, pc.WorkingDir)
	require.Equal(t, "libc6=2.41-12 python3.13=3.13.5-2", pc.Labels[LabelDebianPackages])
	require.Equal(t, "cfzt-ansible-operator-python", pc.Labels["org.opencontainers.image.title"])

	require.Equal(t, "python3.13", lp.Files["/usr/bin/python3"].Linkname)
	require.Equal(t, byte(tar.TypeSymlink), lp.Files["/bin"].Typeflag)
	require.Equal(t, int64(0o755), lp.Files["/usr/bin/python3.13"].Mode)
	for p, h := range lp.Files {
		if strings.HasPrefix(p, "/usr") || strings.HasPrefix(p, "/var") {
			require.Zero(t, h.Uid, "%s belongs to root", p)
		}
	}
	require.Equal(t, SDKUID, lp.Files[SDKHome].Uid, "HOME still belongs to the ansible user")
	require.Equal(t, "binary", string(lp.Contents[BinaryPath]))
}

// TestPythonFlavourRefusesBadRoot checks the packer refuses a python root
// that would change the base layer (the passwd file, the binary, the CA
// bundle), carries world-writable or setuid files, has no python3 for the
// image's architecture, or is not an unpacked package set.
func TestPythonFlavourRefusesBadRoot(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "cfzt-runner")
	require.NoError(t, os.WriteFile(bin, []byte("binary"), 0o755))
	ca := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(ca, []byte("pem"), 0o644))
	opts := SDKOptions{Binary: bin, CABundle: ca}
	other := "arm64"
	if runtime.GOARCH == "arm64" {
		other = "amd64"
	}
	for _, c := range []struct {
		name  string
		spoil func(t *testing.T, root string)
		want  string
	}{
		{"passwd", func(t *testing.T, root string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "etc"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, "etc/passwd"), []byte("root::0:0::/:/bin/sh\n"), 0o644))
		}, "etc/passwd would replace the base layer's /etc/passwd"},
		{"binary", func(t *testing.T, root string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "usr/local/bin"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, "usr/local/bin/cfzt-runner"), []byte("evil"), 0o755))
		}, "would replace the base layer's " + BinaryPath},
		{"CA bundle as a link", func(t *testing.T, root string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "etc/ssl/certs"), 0o755))
			require.NoError(t, os.Symlink("/tmp/evil.pem", filepath.Join(root, "etc/ssl/certs/ca-certificates.crt")))
		}, "would replace the base layer's " + CABundlePath},
		{"HOME", func(t *testing.T, root string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "opt"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, "opt/ansible"), []byte("x"), 0o644))
		}, "would replace the base layer's " + SDKHome},
		{"world-writable", func(t *testing.T, root string) {
			p := filepath.Join(root, "usr/lib/python3.13/json/__init__.py")
			require.NoError(t, os.Chmod(p, 0o666))
		}, "json/__init__.py is world-writable or setuid/setgid"},
		{"setuid", func(t *testing.T, root string) {
			require.NoError(t, os.Chmod(filepath.Join(root, "usr/bin/python3.13"), 0o755|os.ModeSetuid))
		}, "python3.13 is world-writable or setuid/setgid"},
		{"other architecture", func(t *testing.T, root string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "usr/bin/python3.13"), fakeELF(t, other), 0o755))
		}, "the image is linux/" + runtime.GOARCH},
		{"no python3", func(t *testing.T, root string) {
			require.NoError(t, os.Remove(filepath.Join(root, "usr/bin/python3")))
		}, "no " + PythonPath},
		{"python3 a loop", func(t *testing.T, root string) {
			require.NoError(t, os.Remove(filepath.Join(root, "usr/bin/python3")))
			require.NoError(t, os.Symlink("/usr/bin/python3", filepath.Join(root, "usr/bin/python3")))
		}, "too many levels of symbolic links"},
		{"no control fields", func(t *testing.T, root string) {
			require.NoError(t, os.RemoveAll(filepath.Join(root, "var")))
		}, "has no var/lib/dpkg/status.d"},
		{"control fields without a version", func(t *testing.T, root string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "var/lib/dpkg/status.d/libc6"), []byte("Package: libc6\n"), 0o644))
		}, "status.d/libc6: no Version field"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := fakePythonRoot(t, runtime.GOARCH)
			c.spoil(t, root)
			_, err := AnsibleOperatorPython(opts, root)
			require.ErrorContains(t, err, c.want)
		})
	}
}

// TestPythonRootfsNamesTheScript: without the unpacked packages, the
// error says how to get them.
func TestPythonRootfsNamesTheScript(t *testing.T) {
	repo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "hack"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, PythonLock), []byte("python3 1 amd64 00 1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, PythonFetchScript), []byte("#!/bin/sh\n"), 0o755))
	_, err := PythonRootfs(repo)
	require.ErrorContains(t, err, "run "+PythonFetchScript)
}

// pythonFlavour builds the binary and packs the real python flavour from
// the packages hack/fetch-python-debs.sh unpacked; it skips when they are
// absent (make test stays hermetic: fetching needs apt and the network).
func pythonFlavour(t *testing.T) (*Layout, string) {
	t.Helper()
	root, err := kubetest.RepoRoot()
	require.NoError(t, err)
	pyRoot, err := PythonRootfs(root)
	if err != nil {
		t.Skipf("%v", err)
	}
	if runtime.GOARCH != PythonArch {
		t.Skipf("the python flavour is %s only", PythonArch)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "cfzt-runner")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	require.NoError(t, BuildBinary(ctx, root, bin, "test"))
	img, err := AnsibleOperatorPython(SDKOptions{Binary: bin, Arch: PythonArch}, pyRoot)
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
	return l, root
}

// TestPythonFlavourImage packs the python flavour from the locked Debian
// packages, checks its contents and size figures, and, as root, runs
// python3 and a playbook whose role carries a Python filter plugin inside
// the unpacked image, chrooted, as the image's user.
func TestPythonFlavourImage(t *testing.T) {
	l, root := pythonFlavour(t)
	s := SizesOf(l)
	t.Logf("python flavour: %d layers, %.1f MB compressed, %.1f MB unpacked", len(l.Manifest.Layers),
		float64(s.Compressed)/(1<<20), float64(s.Unpacked)/(1<<20))

	t.Run("contents", func(t *testing.T) {
		lock, err := os.ReadFile(filepath.Join(root, PythonLock))
		require.NoError(t, err)
		var want []string
		for _, line := range strings.Split(string(lock), "\n") {
			if f := strings.Fields(line); len(f) == 5 && !strings.HasPrefix(line, "#") {
				want = append(want, f[0]+"="+f[1])
			}
		}
		sort.Slice(want, func(i, j int) bool { return strings.Split(want[i], "=")[0] < strings.Split(want[j], "=")[0] })
		require.Equal(t, strings.Join(want, " "), l.Config.Config.Labels[LabelDebianPackages], "the label lists the locked packages")
		for _, p := range []string{PythonPath, "/usr/lib/python3.13/json/__init__.py", "/usr/lib/python3.13/ssl.py", "/var/lib/dpkg/status.d/libssl3t64",
			// Byte-compiled: the helper does not compile the standard
			// library at each start.
			"/usr/lib/python3.13/json/__pycache__/__init__.cpython-313.pyc"} {
			require.Contains(t, l.Files, p)
		}
		for p := range l.Files {
			require.False(t, strings.HasPrefix(p, "/usr/share/doc/") || strings.HasPrefix(p, "/usr/share/man/") ||
				strings.HasPrefix(p, "/usr/share/locale/"), "%s: documentation and translations are pruned", p)
		}
		for p, h := range l.Files {
			require.Zero(t, h.Mode&0o6000, "%s is setuid or setgid", p)
		}
	})

	t.Run("docs size figures", func(t *testing.T) {
		doc, err := ReadSizeFiguresOf(filepath.Join(root, "docs", "ansible-operator.md"), SizesPythonFlavour)
		require.NoError(t, err)
		checkFigures(t, "docs/ansible-operator.md's python flavour", "make image-ansible-operator-python", doc, s)
	})

	t.Run("python3 and a role's filter plugin run inside the image", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("chroot needs root")
		}
		rootfs := extract(t, l)
		// What a container runtime gives every container: /dev/null (the
		// plugin helper's stdin-less descriptors use it).
		require.NoError(t, os.MkdirAll(filepath.Join(rootfs, "dev"), 0o755))
		require.NoError(t, syscall.Mknod(filepath.Join(rootfs, "dev", "null"), syscall.S_IFCHR|0o666, int(devNullRdev)))
		require.NoError(t, os.Chmod(filepath.Join(rootfs, "dev", "null"), 0o666))
		// An operator project's content, owned by its user as its
		// Dockerfile's COPY would leave it.
		project := map[string]string{
			"site.yml": "- hosts: localhost\n  gather_facts: false\n  roles: [shout]\n",
			"roles/shout/tasks/main.yml": "- debug:\n    msg: \"{{ 'hello' | shout(3) }}\"\n" +
				"- debug:\n    msg: \"python {{ 0 | pyversion }}\"\n" +
				"- debug:\n    msg: \"{{ 'x' | extra }}\"\n" +
				"- greet:\n    name: image\n  register: greeted\n" +
				"- debug:\n    msg: \"{{ greeted.greeting }}\"\n",
			"roles/shout/filter_plugins/shout.py": "import json, sqlite3, ssl, sys\n\n\n" +
				"def shout(s, n=1):\n    return s.upper() + '!' * n\n\n\n" +
				"def pyversion(_):\n    return '%d.%d %s' % (sys.version_info[0], sys.version_info[1], ssl.OPENSSL_VERSION.split()[0])\n\n\n" +
				"def extra(s):\n    import extra_lib\n    return extra_lib.wrap(s)\n\n\n" +
				"class FilterModule:\n    def filters(self):\n        return {'shout': shout, 'pyversion': pyversion, 'extra': extra}\n",
			// A library the image lacks, on PYTHONPATH as the docs show.
			"pylib/extra_lib.py": "def wrap(s):\n    return '<' + s + '>'\n",
			// A module written against AnsibleModule in the role's library/.
			"roles/shout/library/greet.py": "#!/usr/bin/python\nfrom ansible.module_utils.basic import AnsibleModule\n\n\n" +
				"def main():\n    m = AnsibleModule(argument_spec=dict(name=dict(type='str', required=True)))\n" +
				"    m.exit_json(changed=False, greeting='hello from ' + m.params['name'])\n\n\nmain()\n",
		}
		for rel, text := range project {
			p := filepath.Join(rootfs, SDKHome, rel)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		}
		run := func(args ...string) string {
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir = SDKHome
			cmd.Env = append(append([]string(nil), l.Config.Config.Env...), "PYTHONPATH="+SDKHome+"/pylib")
			cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: rootfs, Credential: &syscall.Credential{Uid: SDKUID, Gid: 0}}
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s: %s", strings.Join(args, " "), out)
			return string(out)
		}
		out := run(PythonPath, "-c", "import json, ssl, sqlite3, zoneinfo; "+
			"print(sqlite3.connect(':memory:').execute('select 6*7').fetchone()[0], "+
			"ssl.create_default_context().cert_store_stats()['x509_ca'] > 0, "+
			"zoneinfo.ZoneInfo('Europe/Paris').key)")
		require.Equal(t, "42 True Europe/Paris\n", out, "sqlite3 works, ssl trusts the image's CA bundle, tzdata is there")

		out = run(BinaryPath, "site.yml")
		require.Contains(t, out, `"msg": "HELLO!!!"`)
		require.Contains(t, out, `"msg": "python 3.13 OpenSSL"`)
		require.Contains(t, out, `"msg": "<x>"`, "a library on PYTHONPATH")
		require.Contains(t, out, `"msg": "hello from image"`, "a Python module of library/")
		require.Regexp(t, `localhost\s+: ok=5 `, out)
	})
}

// devNullRdev is the device number of /dev/null (major 1, minor 3).
const devNullRdev = 1<<8 | 3

// checkFigures fails when the figures doc gives drift by more than 15%
// from the image's (they are rounded, and other changes move them a
// little).
func checkFigures(t *testing.T, what, remake string, doc, got Sizes) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the figures are linux/amd64's")
	}
	require.Equal(t, "amd64", doc.Arch)
	for _, c := range []struct {
		what      string
		doc, real int64
	}{{"compressed", doc.Compressed, got.Compressed}, {"unpacked", doc.Unpacked, got.Unpacked}, {"binary", doc.Binary, got.Binary}} {
		require.InDelta(t, c.real, c.doc, 0.15*float64(c.real),
			"%s %s size (%.1f MB) drifted from the image's (%.1f MB): run `%s` to rewrite it", what, c.what, float64(c.doc)/(1<<20), float64(c.real)/(1<<20), remake)
	}
}

// TestFetchScriptRejectsTamperedDeb runs hack/fetch-python-debs.sh with an
// apt-get that hands over a package other than the locked one (a mirror
// or proxy that serves a tampered .deb, past or without apt's own check):
// the script refuses it, naming both sums, and unpacks nothing.
func TestFetchScriptRejectsTamperedDeb(t *testing.T) {
	for _, tool := range []string{"bash", "sha256sum", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
	}
	const keyring = "/usr/share/keyrings/debian-archive-keyring.gpg"
	if _, err := os.Stat(keyring); err != nil {
		t.Skipf("the script needs %s", keyring)
	}
	root, err := kubetest.RepoRoot()
	require.NoError(t, err)
	script, err := os.ReadFile(filepath.Join(root, PythonFetchScript))
	require.NoError(t, err)
	repo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "hack"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, PythonFetchScript), script, 0o755))
	genuine := sha256.Sum256([]byte("genuine"))
	tampered := sha256.Sum256([]byte("tampered"))
	lock := "# package version architecture sha256 size\nfakepkg 1:1.0 amd64 " + hex.EncodeToString(genuine[:]) + " 7\n"
	require.NoError(t, os.WriteFile(filepath.Join(repo, PythonLock), []byte(lock), 0o644))

	bin := t.TempDir()
	// apt-get: update succeeds; download writes the tampered package
	// where apt-get would (the epoch's colon as %3a).
	require.NoError(t, os.WriteFile(filepath.Join(bin, "apt-get"), []byte("#!/bin/sh\n"+
		"case \"$*\" in *download*) printf tampered > 'fakepkg_1%3a1.0_amd64.deb';; esac\nexit 0\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "apt-cache"), []byte("#!/bin/sh\nexit 1\n"), 0o755))
	cache := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(repo, PythonFetchScript))
	cmd.Env = append(os.Environ(), "PATH="+bin+string(filepath.ListSeparator)+os.Getenv("PATH"), "PYTHON_DEBS_CACHE="+cache)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	require.Error(t, err, "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
	require.Contains(t, stderr.String(), "fakepkg_1%3a1.0_amd64.deb has SHA-256 "+hex.EncodeToString(tampered[:])+", the lock says "+hex.EncodeToString(genuine[:]))
	require.Empty(t, stdout.String(), "no root filesystem is reported")
	matches, err := filepath.Glob(filepath.Join(cache, "*", "rootfs"))
	require.NoError(t, err)
	require.Empty(t, matches, "nothing is unpacked")
	matches, err = filepath.Glob(filepath.Join(cache, "*", ".complete"))
	require.NoError(t, err)
	require.Empty(t, matches)
}
