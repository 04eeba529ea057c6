package bench

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/internal/gomod"
	"github.com/cfzt/cfzt-runner/internal/image"
)

// sdkRuntimes installs ansible-operator with ansible-runner next to the
// reference Ansible (hack/install-ansible-operator.sh; ANSIBLE_OPERATOR_DIR
// overrides its cache directory) and returns the two operator runtimes by
// the name of the runner they stand for.
func (b *Bench) sdkRuntimes() (map[string]*sdkRuntime, error) {
	bin, err := Install(b.Root, "install-ansible-operator.sh", os.Getenv("ANSIBLE_OPERATOR_DIR"), b.Log)
	if err != nil {
		return nil, err
	}
	versions, err := os.ReadFile(filepath.Join(filepath.Dir(bin), "versions"))
	if err != nil {
		return nil, err
	}
	ref, ours := b.Runners[0], b.Runners[1]
	env := map[string]string{"PATH": bin + ":/usr/local/bin:/usr/bin:/bin"}
	for k, v := range ref.Env {
		env[k] = v
	}
	return map[string]*sdkRuntime{
		ref.Name: {runner: &Runner{Name: "ansible-operator", Env: env}, name: "ansible-operator", short: "a",
			argv: []string{filepath.Join(bin, "ansible-operator"), "run"}, version: strings.TrimSpace(string(versions))},
		ours.Name: {runner: &Runner{Name: "cfzt-runner operator", Env: ours.Env}, name: "cfzt-runner operator", short: "c",
			argv: append(append([]string(nil), ours.Command...), "operator", "run"), version: "cfzt-runner operator: " + Version(ours)},
	}, nil
}

// Install runs the installer hack/NAME of the repository at root, with the
// cache directory dir when it is not empty, and returns the last line it
// prints: the path of what it installed. Its progress goes to log.
func Install(root, name, dir string, log io.Writer) (string, error) {
	args := []string{filepath.Join(root, "hack", name)}
	if dir != "" {
		args = append(args, dir)
	}
	cmd := exec.Command("sh", args...)
	cmd.Stderr = log
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("hack/%s: %w", name, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}

// Version is the first line of a runner's --version output.
func Version(r *Runner) string {
	cmd := exec.Command(r.Command[0], append(r.Command[1:], "--version")...)
	cmd.Env = os.Environ()
	for k, v := range r.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.Output()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	l, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return l
}

// imageSizes describes the two runtimes' images: ours packed now by
// internal/image, ansible-operator's by what can be known without pulling
// it, its binary (aoBinary) being the part we have.
func (b *Bench) imageSizes(ctx context.Context, aoBinary string) ([]string, error) {
	bin := filepath.Join(b.Work, "cfzt-runner-static")
	if err := image.BuildBinary(ctx, b.Root, bin, ""); err != nil {
		return nil, err
	}
	img, err := image.AnsibleOperator(image.SDKOptions{Binary: bin})
	if err != nil {
		return nil, err
	}
	var tarball bytes.Buffer
	if _, err := img.WriteLayout(&tarball); err != nil {
		return nil, err
	}
	layout, err := image.ReadLayout(&tarball)
	if err != nil {
		return nil, err
	}
	raw, gz, err := gzipSize(aoBinary)
	if err != nil {
		return nil, err
	}
	_, tag, _ := strings.Cut(gomod.AnsibleOperatorPlugins, "@")
	return []string{
		fmt.Sprintf("image: cfzt-runner's base image for these operators (internal/image, `make image-ansible-operator`) is %s compressed (%s unpacked)",
			megabytes(layout.CompressedSize), megabytes(layout.UncompressedSize)),
		fmt.Sprintf("image: quay.io/operator-framework/ansible-operator:%s cannot be pulled here (no registry access), and we found no published size for it. "+
			"It holds at least the ansible-operator binary, %s (%s gzipped) as built here, which alone is %s our whole compressed image, "+
			"plus UBI 9 minimal, Python 3.12, ansible-core 2.18, ansible-runner and the kubernetes client (images/ansible-operator/Dockerfile of ansible-operator-plugins %s). "+
			"For scale, operator-sdk issue #1553 reports 637 MB on disk for ansible-operator:latest in 2019",
			tag, megabytes(raw), megabytes(gz), ratio(float64(gz), float64(layout.CompressedSize)), tag),
	}, nil
}

// gzipSize returns the size of a file and of its gzip compression (at
// gzip's default level, as image layers are compressed).
func gzipSize(path string) (raw, compressed int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	var counter byteCounter
	zw := gzip.NewWriter(&counter)
	if raw, err = io.Copy(zw, f); err != nil {
		return 0, 0, err
	}
	if err := zw.Close(); err != nil {
		return 0, 0, err
	}
	return raw, int64(counter), nil
}

// byteCounter counts the bytes written to it.
type byteCounter int64

func (c *byteCounter) Write(p []byte) (int, error) {
	*c += byteCounter(len(p))
	return len(p), nil
}

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
