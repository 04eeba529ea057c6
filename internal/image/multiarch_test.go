package image

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

// standIn is a small image for one platform: a shared layer and one that
// differs per platform.
func standIn(arch string) *Image {
	return &Image{
		Name:     "example.test/cfzt:multi",
		Platform: Platform{Architecture: arch, OS: "linux"},
		Config:   RuntimeConfig{Entrypoint: Entrypoint},
		Layers: []Layer{
			{CreatedBy: "binary", Entries: []Entry{{Path: BinaryPath, Mode: 0o755, Data: []byte("binary for " + arch)}}},
			{CreatedBy: "ansible", Entries: []Entry{{Path: "/ansible/playbooks/reconcile.yml", Mode: 0o644, Data: []byte("- hosts: localhost\n")}}},
		},
	}
}

// TestMultiLayoutRoundTrip: a multi-platform layout is index.json naming
// one image index (with the image's name) that lists a manifest per
// platform; read back, each platform's image has its own binary, a layer
// both share is stored once, and ReadLayout refuses the layout clearly.
func TestMultiLayoutRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	desc, err := WriteMultiLayout(&buf, []*Image{standIn("amd64"), standIn("arm64")})
	require.NoError(t, err)
	require.Equal(t, MediaTypeIndex, desc.MediaType)
	data := buf.Bytes()

	ml, err := ReadMultiLayout(bytes.NewReader(data))
	require.NoError(t, err)
	require.Len(t, ml.Index.Manifests, 1)
	require.Equal(t, "example.test/cfzt:multi", ml.Index.Manifests[0].Annotations[AnnotationImageName])
	require.Equal(t, "multi", ml.Index.Manifests[0].Annotations[AnnotationRefName])
	require.Len(t, ml.ImageIndex.Manifests, 2)
	var platforms []Platform
	for i, l := range ml.Images {
		p := *ml.ImageIndex.Manifests[i].Platform
		platforms = append(platforms, p)
		require.Equal(t, p.Architecture, l.Config.Architecture)
		require.Equal(t, "binary for "+p.Architecture, string(l.Contents[BinaryPath]))
		require.Equal(t, Entrypoint, l.Config.Config.Entrypoint)
	}
	require.Equal(t, []Platform{{"amd64", "linux"}, {"arm64", "linux"}}, platforms)

	// The Ansible layer is the same blob for both platforms: stored once.
	names := map[string]int{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if err != nil {
			break
		}
		names[hdr.Name]++
	}
	for n, c := range names {
		require.Equal(t, 1, c, "%s written %d times", n, c)
	}
	require.Equal(t, ml.Images[0].Manifest.Layers[1].Digest, ml.Images[1].Manifest.Layers[1].Digest)

	_, err = ReadLayout(bytes.NewReader(data))
	require.ErrorContains(t, err, "a multi-platform layout (read it with ReadMultiLayout)")

	// Reproducible, as WriteLayout is.
	var again bytes.Buffer
	_, err = WriteMultiLayout(&again, []*Image{standIn("amd64"), standIn("arm64")})
	require.NoError(t, err)
	require.Equal(t, data, again.Bytes())
}

// TestMultiLayoutRefusesBadInput: the same platform twice, no image, and
// a single-image layout given to ReadMultiLayout are errors.
func TestMultiLayoutRefusesBadInput(t *testing.T) {
	var buf bytes.Buffer
	_, err := WriteMultiLayout(&buf, []*Image{standIn("arm64"), standIn("arm64")})
	require.ErrorContains(t, err, "platform linux/arm64 given twice")
	_, err = WriteMultiLayout(&buf, nil)
	require.ErrorContains(t, err, "no platform")
	buf.Reset()
	_, err = standIn("amd64").WriteLayout(&buf)
	require.NoError(t, err)
	_, err = ReadMultiLayout(&buf)
	require.ErrorContains(t, err, "index.json must name one image index")
}

// TestBinaryArchChecked: an image is never labelled with another platform
// than its binary's: packing this test's own executable (built for the
// machine) as the other architecture fails, as does an architecture
// images are not built for or a file that is not ELF.
func TestBinaryArchChecked(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	other := map[string]string{"amd64": "arm64", "arm64": "amd64"}[runtime.GOARCH]
	if other == "" {
		t.Skipf("no counterpart for %s", runtime.GOARCH)
	}
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(ca, []byte("pem"), 0o644))
	_, err = AnsibleOperator(SDKOptions{Binary: exe, CABundle: ca, Arch: other})
	require.ErrorContains(t, err, "is built for")
	require.ErrorContains(t, err, "not "+other)
	img, err := AnsibleOperator(SDKOptions{Binary: exe, CABundle: ca, Arch: runtime.GOARCH})
	require.NoError(t, err)
	require.Equal(t, runtime.GOARCH, img.Platform.Architecture)
	_, err = AnsibleOperator(SDKOptions{Binary: exe, CABundle: ca, Arch: "s390x"})
	require.ErrorContains(t, err, `unsupported architecture "s390x"`)
	fake := filepath.Join(dir, "fake")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755))
	_, err = AnsibleOperator(SDKOptions{Binary: fake, CABundle: ca, Arch: "amd64"})
	require.ErrorContains(t, err, "is not an ELF executable")
}

// TestMultiArchOperatorImage cross-builds cfzt-runner for amd64 and arm64
// (as `make image-multiarch` does), packs one OCI index holding both
// operator images, reads it back and checks the two platforms, each
// with a binary for its CPU. Skipped with -short: it is two full builds.
func TestMultiArchOperatorImage(t *testing.T) {
	if testing.Short() {
		t.Skip("two cross builds")
	}
	root, err := kubetest.RepoRoot()
	require.NoError(t, err)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	var imgs []*Image
	for _, arch := range []string{"amd64", "arm64"} {
		bin := filepath.Join(dir, "cfzt-runner-"+arch)
		require.NoError(t, BuildBinaryFor(ctx, root, bin, "test", arch))
		img, err := Operator(Options{Binary: bin, AnsibleDir: filepath.Join(root, "ansible"), Name: "example.test/cfzt-operator:multi", Arch: arch})
		require.NoError(t, err)
		imgs = append(imgs, img)
	}
	var buf bytes.Buffer
	_, err = WriteMultiLayout(&buf, imgs)
	require.NoError(t, err)
	ml, err := ReadMultiLayout(&buf)
	require.NoError(t, err)
	require.Len(t, ml.Images, 2)
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}
	for i, l := range ml.Images {
		arch := ml.ImageIndex.Manifests[i].Platform.Architecture
		require.Equal(t, []string{"amd64", "arm64"}[i], arch)
		f, err := elf.NewFile(bytes.NewReader(l.Contents[BinaryPath]))
		require.NoError(t, err)
		require.Equal(t, want[arch], f.Machine, arch)
		require.Equal(t, fs.FileMode(0o755), fs.FileMode(l.Files[BinaryPath].Mode)&fs.ModePerm)
		require.Less(t, l.CompressedSize, int64(maxCompressedSize), arch)
		t.Logf("linux/%s: %.1f MB compressed, %.1f MB unpacked", arch, float64(l.CompressedSize)/(1<<20), float64(l.UncompressedSize)/(1<<20))
	}
}
