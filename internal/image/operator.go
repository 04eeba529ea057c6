package image

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// The operator image's layout and runtime settings. container/Dockerfile
// states the same values; TestDockerfileMatchesPacker keeps them in step.
const (
	// BinaryPath is where the static cfzt-runner binary lives.
	BinaryPath = "/usr/local/bin/cfzt-runner"
	// AnsibleRoot holds the roles, the playbooks and ansible.cfg.
	AnsibleRoot = "/ansible"
	// Playbook is the role dispatcher run by every tier; ROLE picks the tier.
	Playbook = AnsibleRoot + "/playbooks/reconcile.yml"
	// UID and GID are the numeric user and group the container runs as.
	UID = 1000
	GID = 1000
	// CABundlePath is where the TLS trust store is installed.
	CABundlePath = "/etc/ssl/certs/ca-certificates.crt"
	// DefaultName is the image reference used when none is given.
	DefaultName = "ghcr.io/cfzt/cfzt-operator:dev"
)

// Entrypoint is the container's ENTRYPOINT.
var Entrypoint = []string{BinaryPath, "--watch", Playbook}

// Env is the container's default environment. ROLE chooses the tier
// (manager, kube_worker or cloudflare_worker); HOME points at the /tmp
// emptyDir so that nothing writes to the read-only root filesystem.
var Env = []string{
	"PATH=/usr/local/bin:/usr/bin:/bin",
	"HOME=/tmp",
	"ROLE=manager",
	"ANSIBLE_ROLES_PATH=" + AnsibleRoot + "/roles",
}

// caBundleCandidates are the usual trust store locations of Linux
// distributions, tried in order when Options.CABundle is empty.
var caBundleCandidates = []string{
	"/etc/ssl/certs/ca-certificates.crt", // Debian, Ubuntu, Alpine
	"/etc/pki/tls/certs/ca-bundle.crt",   // Fedora, RHEL
	"/etc/ssl/ca-bundle.pem",             // openSUSE
	"/etc/ssl/cert.pem",                  // Alpine, macOS
}

// Options describe the operator image to pack.
type Options struct {
	// Binary is a static cfzt-runner built for Platform (see BuildBinary).
	Binary string
	// AnsibleDir is the repository's ansible/ directory.
	AnsibleDir string
	// CABundle is a PEM trust store; empty picks the build machine's.
	CABundle string
	// Name is the image reference; empty means DefaultName.
	Name string
	// Version goes into the image's version label.
	Version string
	// Created is the image's creation time; zero means the Unix epoch,
	// which keeps the tarball reproducible.
	Created time.Time
	// Arch is the image's CPU architecture (GOARCH: amd64, arm64); empty
	// means the build machine's. Binary must be built for it.
	Arch string
}

// Operator returns the operator image: one layer with the system files and
// the binary, one with the Ansible content (the part that changes most).
func Operator(opts Options) (*Image, error) {
	bin, err := os.ReadFile(opts.Binary)
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	arch, err := binaryArch(opts.Binary, bin, opts.Arch)
	if err != nil {
		return nil, err
	}
	ca, err := readCABundle(opts.CABundle)
	if err != nil {
		return nil, err
	}
	ansible, err := treeEntries(opts.AnsibleDir, AnsibleRoot, UID, GID)
	if err != nil {
		return nil, err
	}
	name, created, version := identity(opts.Name, DefaultName, opts.Created, opts.Version)
	return &Image{
		Name:     name,
		Platform: Platform{Architecture: arch, OS: "linux"},
		Created:  created,
		Config: RuntimeConfig{
			User:       fmt.Sprintf("%d:%d", UID, GID),
			Env:        append([]string(nil), Env...),
			Entrypoint: append([]string(nil), Entrypoint...),
			WorkingDir: AnsibleRoot,
			Labels: map[string]string{
				"org.opencontainers.image.title":       "cfzt-operator",
				"org.opencontainers.image.description": "Cloudflare Zero Trust operator: Ansible roles run natively by cfzt-runner",
				"org.opencontainers.image.version":     version,
			},
		},
		Layers: []Layer{
			{
				CreatedBy: "cfzt image packer: passwd, group, CA certificates, /tmp, cfzt-runner",
				Entries: []Entry{
					{Path: "/etc/passwd", Mode: 0o644, Data: []byte(passwd)},
					{Path: "/etc/group", Mode: 0o644, Data: []byte(group)},
					{Path: CABundlePath, Mode: 0o644, Data: ca},
					{Path: "/tmp", Mode: fs.ModeDir | fs.ModeSticky | 0o777, UID: UID, GID: GID},
					{Path: BinaryPath, Mode: 0o755, UID: UID, GID: GID, Data: bin},
				},
			},
			{CreatedBy: "cfzt image packer: ansible/ -> " + AnsibleRoot, Entries: ansible},
		},
	}, nil
}

// identity fills an image's name (def when empty), creation time (the
// Unix epoch when zero, which keeps tarballs reproducible) and version
// label (the name's tag when empty).
func identity(name, def string, created time.Time, version string) (string, time.Time, string) {
	if name == "" {
		name = def
	}
	if created.IsZero() {
		created = time.Unix(0, 0).UTC()
	}
	if version == "" {
		version = refName(name)
	}
	return name, created, version
}

// passwd and group give UID and GID names, so tools that look the user up
// (and Go's os/user) work in the container.
const (
	passwd = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:1000:1000:cfzt-operator:/tmp:/sbin/nologin\n"
	group  = "root:x:0:\nnonroot:x:1000:\n"
)

func readCABundle(p string) ([]byte, error) {
	if p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("image: CA bundle: %w", err)
		}
		return data, nil
	}
	for _, c := range caBundleCandidates {
		if data, err := os.ReadFile(c); err == nil && len(data) > 0 {
			return data, nil
		}
	}
	return nil, fmt.Errorf("image: no CA bundle found in %s; pass one explicitly", strings.Join(caBundleCandidates, ", "))
}

// treeEntries lists the directory tree at dir as entries under root, owned
// by uid:gid, with 0755 directories, 0644 files (0755 if any execute bit is
// set) and symbolic links kept as links. Dot files are skipped.
func treeEntries(dir, root string, uid, gid int) ([]Entry, error) {
	entries := []Entry{{Path: root, Mode: fs.ModeDir | 0o755, UID: uid, GID: gid}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		e := Entry{Path: path.Join(root, filepath.ToSlash(rel)), UID: uid, GID: gid}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			e.Mode = fs.ModeDir | 0o755
		case info.Mode()&fs.ModeSymlink != 0:
			e.Mode = fs.ModeSymlink | 0o777
			if e.Link, err = os.Readlink(p); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			e.Mode = 0o644
			if info.Mode()&0o111 != 0 {
				e.Mode = 0o755
			}
			if e.Data, err = os.ReadFile(p); err != nil {
				return err
			}
		default:
			return fmt.Errorf("image: %s: unsupported file type %v", p, info.Mode().Type())
		}
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	return entries, nil
}

// BuildFlags are the `go build` flags of the image's binary, as in
// container/Dockerfile.
var BuildFlags = []string{"-trimpath", "-ldflags", "-s -w"}

// BuildBinary builds a static cfzt-runner for linux/GOARCH from the
// repository at repoRoot into out, the way container/Dockerfile does
// (CGO_ENABLED=0, -trimpath, -ldflags "-s -w"). It uses the normal Go build
// cache, so a rebuild with unchanged sources takes seconds.
func BuildBinary(ctx context.Context, repoRoot, out, version string) error {
	return BuildBinaryFor(ctx, repoRoot, out, version, "")
}

// BuildBinaryFor is BuildBinary for the CPU architecture goarch (amd64,
// arm64: Go cross-compiles, no emulator is needed); empty means $GOARCH,
// else the build machine's.
func BuildBinaryFor(ctx context.Context, repoRoot, out, version, goarch string) error {
	flags := append([]string(nil), BuildFlags...)
	if version != "" {
		flags[len(flags)-1] += " -X main.version=" + version
	}
	args := append([]string{"build"}, flags...)
	args = append(args, "-o", out, "./cmd/cfzt-runner")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if goarch != "" {
		cmd.Env = append(cmd.Env, "GOARCH="+goarch)
	}
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("image: go %s: %w\n%s", strings.Join(args, " "), err, output)
	}
	return nil
}

// elfMachines are the ELF machine types of the architectures images are
// built for.
var elfMachines = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

// binaryArch returns want after checking that the binary data (read from
// file) is an ELF executable for it: an image whose platform does not
// match its binary would fail only when a node of that platform starts
// it. An empty want is the build machine's GOARCH, unchecked (tests pack
// stand-in binaries).
func binaryArch(file string, data []byte, want string) (string, error) {
	if want == "" {
		return runtime.GOARCH, nil
	}
	m, ok := elfMachines[want]
	if !ok {
		return "", fmt.Errorf("image: unsupported architecture %q (want amd64 or arm64)", want)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return "", fmt.Errorf("image: %s is not an ELF executable: %w", file, err)
	}
	if f.Machine != m {
		return "", fmt.Errorf("image: %s is built for %s, not %s", file, f.Machine, want)
	}
	return want, nil
}
