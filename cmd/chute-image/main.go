// Command chute-image packs chute's operator image (`make image-chute`) as
// an OCI layout tarball, without Docker: the ansible-operator base image
// of internal/image (cfzt-runner, HOME /opt/ansible, user 1001, the
// entrypoint `cfzt-runner operator run --watches-file=./watches.yaml`)
// plus one layer with ansible/chute (watches.yaml, ansible.cfg, roles/) in
// /opt/ansible, as deploy/chute/Dockerfile does with Docker.
//
//	chute-image [-o bin/chute-operator-image.tar] [-name ghcr.io/cfzt/chute-operator:dev]
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/internal/image"
	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

func main() {
	out := flag.String("o", "bin/chute-operator-image.tar", "output tarball")
	name := flag.String("name", "ghcr.io/cfzt/chute-operator:dev", "image reference recorded in the tarball")
	caBundle := flag.String("ca-bundle", "", "PEM trust store to install (default: the build machine's)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *out, *name, *caBundle); err != nil {
		fmt.Fprintln(os.Stderr, "chute-image:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out, name, caBundle string) error {
	root, err := kubetest.RepoRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "chute-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	version := "latest"
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		version = name[i+1:]
	}
	bin := filepath.Join(tmp, "cfzt-runner")
	if err := image.BuildBinary(ctx, root, bin, version); err != nil {
		return err
	}
	img, err := image.AnsibleOperator(image.SDKOptions{Name: name, Version: version, CABundle: caBundle, Binary: bin})
	if err != nil {
		return err
	}
	entries, err := operatorEntries(filepath.Join(root, "ansible", "chute"))
	if err != nil {
		return err
	}
	img.Layers = append(img.Layers, image.Layer{CreatedBy: "chute: ansible/chute into " + image.SDKHome, Entries: entries})
	img.Config.Env = append(img.Config.Env, "ANSIBLE_GATHERING=explicit")
	img.Config.Labels["org.opencontainers.image.title"] = "chute-operator"
	img.Config.Labels["org.opencontainers.image.description"] = "chute: one Cloudflare Tunnel and cloudflared per exposed Service, behind Access email OTP (an operator-sdk Ansible operator run by cfzt-runner)"
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
	fmt.Printf("%s: %s %s\n", out, name, desc.Digest)
	return nil
}

// operatorEntries are the files of dir under image.SDKHome, owned by the
// image's user (group 0), read-only for everyone else.
func operatorEntries(dir string) ([]image.Entry, error) {
	var entries []image.Entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		target := image.SDKHome + "/" + filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			entries = append(entries, image.Entry{Path: target, Mode: fs.ModeDir | 0o755, UID: image.SDKUID})
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			entries = append(entries, image.Entry{Path: target, Mode: 0o644, UID: image.SDKUID, Data: data})
		default:
			return fmt.Errorf("%s: only directories and regular files go into the image", p)
		}
		return nil
	})
	return entries, err
}
