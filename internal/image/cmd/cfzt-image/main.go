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
	"runtime"
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
	base := flag.String("image", "operator", "operator (the Cloudflare Zero Trust operator), ansible-operator (the base image for operator-sdk Ansible operators) or ansible-operator-python (that base with python3, from the Debian packages hack/fetch-python-debs.sh unpacks)")
	pythonRoot := flag.String("python-root", "", "for -image ansible-operator-python: the root filesystem holding python3 (default: the one hack/fetch-python-debs.sh unpacked under .cache/python-debs)")
	arch := flag.String("arch", runtime.GOARCH, "CPU architectures, comma-separated (amd64, arm64); more than one writes a multi-platform image: an OCI index of one image per platform")
	docs := flag.String("docs", "", "comma-separated Markdown files whose image size figures (between the image's image-size markers) are rewritten from the linux/amd64 image built")
	flag.Parse()
	kind = *base
	switch kind {
	case image.SizesOperator, image.SizesAnsibleOperator, image.SizesPythonFlavour:
	default:
		fmt.Fprintf(os.Stderr, "cfzt-image: -image %q: want operator, ansible-operator or ansible-operator-python\n", kind)
		os.Exit(2)
	}
	pyRoot = *pythonRoot
	archs = strings.Split(*arch, ",")
	if *docs != "" {
		docFiles = strings.Split(*docs, ",")
	}
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
		if kind == image.SizesPythonFlavour {
			// The small flavour's version (dev for dev-python), so that the
			// two flavours' binaries, and so their first layers, are the
			// same bytes.
			version = strings.TrimSuffix(version, "-python")
		}
	}
	if kind == image.SizesPythonFlavour {
		for _, a := range archs {
			if a != image.PythonArch {
				return fmt.Errorf("the python flavour is built for %s only: %s locks that architecture's packages", image.PythonArch, image.PythonLock)
			}
		}
		if pyRoot == "" {
			if pyRoot, err = image.PythonRootfs(root); err != nil {
				return err
			}
		}
	}
	var imgs []*image.Image
	for _, a := range archs {
		bin := filepath.Join(tmp, "cfzt-runner-"+a)
		if err := image.BuildBinaryFor(ctx, root, bin, version, a); err != nil {
			return err
		}
		var img *image.Image
		sdk := image.SDKOptions{Name: name, Version: version, CABundle: caBundle, Binary: bin, Arch: a}
		switch kind {
		case image.SizesAnsibleOperator:
			img, err = image.AnsibleOperator(sdk)
		case image.SizesPythonFlavour:
			img, err = image.AnsibleOperatorPython(sdk, pyRoot)
		default:
			img, err = image.Operator(image.Options{Name: name, Version: version, CABundle: caBundle,
				Binary: bin, AnsibleDir: filepath.Join(root, "ansible"), Arch: a})
		}
		if err != nil {
			return err
		}
		imgs = append(imgs, img)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	var desc image.Descriptor
	if len(imgs) == 1 {
		desc, err = imgs[0].WriteLayout(f)
	} else {
		desc, err = image.WriteMultiLayout(f, imgs)
	}
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
	var layouts []*image.Layout
	if len(imgs) == 1 {
		l, err := image.ReadLayout(f)
		if err != nil {
			return err
		}
		layouts = append(layouts, l)
	} else {
		ml, err := image.ReadMultiLayout(f)
		if err != nil {
			return err
		}
		layouts = ml.Images
	}
	fmt.Printf("%s: %s %s\n", out, name, desc.Digest)
	for _, l := range layouts {
		s := image.SizesOf(l)
		fmt.Printf("  linux/%s: %d layers, %.1f MB compressed (%.1f MB unpacked; the binary %.1f MB)\n", s.Arch,
			len(l.Manifest.Layers), float64(s.Compressed)/(1<<20), float64(s.Unpacked)/(1<<20), float64(s.Binary)/(1<<20))
		if s.Arch != "amd64" {
			continue
		}
		for _, d := range docFiles {
			if err := image.WriteSizeFiguresOf(filepath.Join(root, d), kind, s); err != nil {
				return err
			}
			fmt.Printf("  size figures written to %s\n", d)
		}
	}
	return nil
}

// archs are the -arch platforms; docFiles the -docs files.
var (
	archs    []string
	docFiles []string
)

// kind is the -image to build; pyRoot the -python-root.
var kind, pyRoot string

// tag is the tag of an image reference, "latest" without one.
func tag(name string) string {
	slash := strings.LastIndexByte(name, '/')
	if colon := strings.LastIndexByte(name, ':'); colon > slash {
		return name[colon+1:]
	}
	return "latest"
}
