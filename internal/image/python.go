package image

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// The python flavour of the ansible-operator base image: the small
// flavour's layer unchanged (registries store it once for both), and one
// layer holding python3 from Debian trixie's packages, for operators whose
// roles or collections carry Python plugins. hack/fetch-python-debs.sh
// fetches the packages pinned in hack/python-debs.lock and unpacks them;
// container/Dockerfile.ansible-operator-python runs the same script.
const (
	// SDKPythonDefaultName is the python flavour's reference when none is
	// given.
	SDKPythonDefaultName = "ghcr.io/cfzt/cfzt-ansible-operator:dev-python"
	// PythonLock is the pinned package list, relative to the repository.
	PythonLock = "hack/python-debs.lock"
	// PythonFetchScript fetches and unpacks the locked packages.
	PythonFetchScript = "hack/fetch-python-debs.sh"
	// PythonArch is the only architecture the lock holds packages for.
	PythonArch = "amd64"
	// PythonPath is the interpreter cfzt-runner finds on the image's PATH.
	PythonPath = "/usr/bin/python3"
	// LabelDebianPackages lists the image's Debian packages as
	// name=version, space-separated, sorted.
	LabelDebianPackages = "io.github.cfzt.debian-packages"
	// statusDir holds each package's control fields in the image, as
	// distroless images keep them for scanners.
	statusDir = "var/lib/dpkg/status.d"
)

// PythonRootfs returns the root filesystem hack/fetch-python-debs.sh
// unpacked for the repository at repoRoot, under
// .cache/python-debs/<key>/rootfs, where key is derived from the lock and
// the script as the script derives it; an error says how to make it.
func PythonRootfs(repoRoot string) (string, error) {
	h := sha256.New()
	for _, f := range []string{PythonLock, PythonFetchScript} {
		data, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			return "", fmt.Errorf("image: %w", err)
		}
		h.Write(data)
	}
	key := hex.EncodeToString(h.Sum(nil))[:16]
	dir := filepath.Join(repoRoot, ".cache", "python-debs", key)
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
		return "", fmt.Errorf("image: the python flavour's Debian packages are not unpacked in %s: run %s (it needs apt-get and the network; `make image-ansible-operator-python` runs it)", dir, PythonFetchScript)
	}
	return filepath.Join(dir, "rootfs"), nil
}

// AnsibleOperatorPython returns the python flavour: AnsibleOperator's
// image (opts.Name defaults to SDKPythonDefaultName) with a second layer
// holding the root filesystem at pythonRoot (see PythonRootfs), which
// must have python3 at PythonPath built for the image's architecture and
// must not replace a file of the first layer.
func AnsibleOperatorPython(opts SDKOptions, pythonRoot string) (*Image, error) {
	if opts.Name == "" {
		opts.Name = SDKPythonDefaultName
	}
	img, err := AnsibleOperator(opts)
	if err != nil {
		return nil, err
	}
	entries, err := rootEntries(pythonRoot)
	if err != nil {
		return nil, err
	}
	base := map[string]Entry{}
	for _, e := range img.Layers[0].Entries {
		base[path.Clean(e.Path)] = e
	}
	var pkgs []string
	for _, e := range entries {
		if b, ok := base[e.Path]; ok && !(b.Mode.IsDir() && e.Mode.IsDir()) {
			return nil, fmt.Errorf("image: %s: %s would replace the base layer's %s", pythonRoot, strings.TrimPrefix(e.Path, "/"), e.Path)
		}
		if e.Mode&fs.ModeSymlink == 0 && (e.Mode&0o002 != 0 || e.Mode&(fs.ModeSetuid|fs.ModeSetgid) != 0) {
			return nil, fmt.Errorf("image: %s: %s is world-writable or setuid/setgid", pythonRoot, e.Path)
		}
		if dir, name := path.Split(e.Path); dir == "/"+statusDir+"/" && e.Mode.IsRegular() {
			v, err := controlVersion(e.Data)
			if err != nil {
				return nil, fmt.Errorf("image: %s: %s: %w", pythonRoot, e.Path, err)
			}
			pkgs = append(pkgs, name+"\x00"+v)
		}
	}
	python, err := resolveIn(entries, PythonPath)
	if err != nil {
		return nil, fmt.Errorf("image: %s: %w", pythonRoot, err)
	}
	f, err := elf.NewFile(bytes.NewReader(python))
	if err != nil {
		return nil, fmt.Errorf("image: %s: %s is not an ELF executable: %w", pythonRoot, PythonPath, err)
	}
	if want := elfMachines[img.Platform.Architecture]; f.Machine != want {
		return nil, fmt.Errorf("image: %s: %s is built for %s, the image is linux/%s", pythonRoot, PythonPath, f.Machine, img.Platform.Architecture)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("image: %s has no %s: not a root filesystem unpacked by %s", pythonRoot, statusDir, PythonFetchScript)
	}
	sort.Strings(pkgs) // by name: "python3" before "python3-minimal"
	for i, p := range pkgs {
		pkgs[i] = strings.Replace(p, "\x00", "=", 1)
	}
	img.Config.Labels["org.opencontainers.image.title"] = "cfzt-ansible-operator-python"
	img.Config.Labels["org.opencontainers.image.description"] = "Base image for operator-sdk Ansible operators, run by cfzt-runner, with python3 for roles' Python plugins"
	img.Config.Labels[LabelDebianPackages] = strings.Join(pkgs, " ")
	img.Layers = append(img.Layers, Layer{
		CreatedBy: fmt.Sprintf("cfzt image packer: python3 from %d Debian trixie packages (%s)", len(pkgs), PythonLock),
		Entries:   entries,
	})
	return img, nil
}

// controlVersion is the Version field of a package's control fields.
func controlVersion(data []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Version: "); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v), nil
		}
	}
	return "", errors.New("no Version field")
}

// resolveIn returns the content of the regular file at p among entries,
// following symbolic links (absolute or relative) as the kernel would.
func resolveIn(entries []Entry, p string) ([]byte, error) {
	byPath := map[string]Entry{}
	for _, e := range entries {
		byPath[e.Path] = e
	}
	want := p
	for hops := 0; hops < 40; hops++ {
		// Resolve links among the parents first (/bin -> usr/bin).
		parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
		cur := "/"
		for i, part := range parts {
			next := path.Join(cur, part)
			e, ok := byPath[next]
			if !ok {
				return nil, fmt.Errorf("no %s", want)
			}
			if e.Mode&fs.ModeSymlink != 0 {
				target := e.Link
				if !path.IsAbs(target) {
					target = path.Join(cur, target)
				}
				p = path.Join(append([]string{target}, parts[i+1:]...)...)
				break
			}
			if i == len(parts)-1 {
				if !e.Mode.IsRegular() {
					return nil, fmt.Errorf("%s is not a regular file", want)
				}
				return e.Data, nil
			}
			cur = next
		}
	}
	return nil, fmt.Errorf("%s: too many levels of symbolic links", want)
}

// rootEntries lists the tree at dir as the entries of a root filesystem,
// owned by root (as every file of the packages is, whoever unpacked them),
// keeping each file's permission bits and symbolic link target.
func rootEntries(dir string) ([]Entry, error) {
	var entries []Entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := Entry{Path: "/" + filepath.ToSlash(rel), Mode: info.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)}
		switch {
		case d.IsDir():
			e.Mode |= fs.ModeDir
		case info.Mode()&fs.ModeSymlink != 0:
			e.Mode = fs.ModeSymlink | 0o777
			if e.Link, err = os.Readlink(p); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			if e.Data, err = os.ReadFile(p); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: unsupported file type %v", p, info.Mode().Type())
		}
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	return entries, nil
}
