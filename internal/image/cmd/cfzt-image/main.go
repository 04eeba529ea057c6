// Command cfzt-image builds the operator image as an OCI image layout
// tarball without a container engine (see package internal/image):
//
//	go run ./internal/image/cmd/cfzt-image -o bin/cfzt-operator-image.tar -name ghcr.io/cfzt/cfzt-operator:dev
//
// Load the result with `docker load -i`, `podman load -i` or
// `skopeo copy oci-archive:FILE docker://REGISTRY/IMAGE:TAG`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/internal/image"
	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

func main() {
	out := flag.String("o", "bin/cfzt-operator-image.tar", "output tarball")
	name := flag.String("name", image.DefaultName, "image reference recorded in the tarball")
	version := flag.String("version", "", "version stamped into the binary and the image label (default: the tag of -name)")
	caBundle := flag.String("ca-bundle", "", "PEM trust store to install (default: the build machine's)")
	base := flag.String("image", "operator", "operator (the Cloudflare Zero Trust operator) or ansible-operator (the base image for operator-sdk Ansible operators)")
	flag.Parse()
	sdkBase = *base == "ansible-operator"
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *out, *name, *version, *caBundle); err != nil {
		fmt.Fprintln(os.Stderr, "cfzt-image:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out, name, version, caBundle string) error {
	root, err := kubetest.RepoRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "cfzt-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if version == "" {
		version = tag(name)
	}
	bin := filepath.Join(tmp, "cfzt-runner")
	if err := image.BuildBinary(ctx, root, bin, version); err != nil {
		return err
	}
	var img *image.Image
	if sdkBase {
		img, err = image.AnsibleOperator(image.SDKOptions{Name: name, Version: version, CABundle: caBundle, Binary: bin})
	} else {
		img, err = image.Operator(image.Options{Name: name, Version: version, CABundle: caBundle,
			Binary: bin, AnsibleDir: filepath.Join(root, "ansible")})
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	desc, err := img.WriteLayout(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	f, err = os.Open(out)
	if err != nil {
		return err
	}
	defer f.Close()
	l, err := image.ReadLayout(f)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %s %s, %d layers, %.1f MB compressed (%.1f MB unpacked)\n", out, name, desc.Digest,
		len(l.Manifest.Layers), float64(l.CompressedSize)/(1<<20), float64(l.UncompressedSize)/(1<<20))
	return nil
}

// sdkBase selects the ansible-operator base image (-image ansible-operator).
var sdkBase bool

// tag is the tag of an image reference, "latest" without one.
func tag(name string) string {
	slash := strings.LastIndexByte(name, '/')
	if colon := strings.LastIndexByte(name, ':'); colon > slash {
		return name[colon+1:]
	}
	return "latest"
}
