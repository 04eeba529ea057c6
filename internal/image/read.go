package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Layout is an OCI image layout tarball read back and verified.
type Layout struct {
	Index    Index
	Manifest Manifest
	Config   ConfigFile
	// Files maps each absolute path of the flattened root filesystem to
	// its header; later layers win.
	Files map[string]*tar.Header
	// Contents holds the bytes of every regular file of the root filesystem.
	Contents map[string][]byte
	// CompressedSize is the sum of the config's and the layers' blob sizes:
	// what a registry stores and a node pulls.
	CompressedSize int64
	// UncompressedSize is the sum of the sizes of the layers' tar streams.
	UncompressedSize int64
}

// ReadLayout reads an OCI image layout tarball holding one image, checks
// every blob against its digest and size, and flattens the layers.
func ReadLayout(r io.Reader) (*Layout, error) {
	files, idx, err := readLayoutFiles(r)
	if err != nil {
		return nil, err
	}
	if len(idx.Manifests) != 1 {
		return nil, fmt.Errorf("image: index.json lists %d manifests, want 1", len(idx.Manifests))
	}
	if idx.Manifests[0].MediaType == MediaTypeIndex {
		return nil, errors.New("image: index.json names an image index: a multi-platform layout (read it with ReadMultiLayout)")
	}
	l, err := readImage(files, idx.Manifests[0])
	if err != nil {
		return nil, err
	}
	l.Index = idx
	return l, nil
}

// MultiLayout is a multi-platform OCI image layout tarball read back and
// verified (see WriteMultiLayout).
type MultiLayout struct {
	// Index is index.json; ImageIndex the image index it names.
	Index, ImageIndex Index
	// Images are the platforms' images, in the image index's order.
	Images []*Layout
}

// ReadMultiLayout reads a layout whose index.json names one image index,
// and reads every image that index lists, checking each blob as
// ReadLayout does and that each manifest's platform is its config's.
func ReadMultiLayout(r io.Reader) (*MultiLayout, error) {
	files, idx, err := readLayoutFiles(r)
	if err != nil {
		return nil, err
	}
	if len(idx.Manifests) != 1 || idx.Manifests[0].MediaType != MediaTypeIndex {
		return nil, fmt.Errorf("image: index.json must name one image index, got %d descriptors", len(idx.Manifests))
	}
	data, err := getBlob(files, idx.Manifests[0])
	if err != nil {
		return nil, err
	}
	ml := &MultiLayout{Index: idx}
	if err := json.Unmarshal(data, &ml.ImageIndex); err != nil {
		return nil, fmt.Errorf("image: image index: %w", err)
	}
	for _, d := range ml.ImageIndex.Manifests {
		if d.Platform == nil {
			return nil, fmt.Errorf("image: manifest %s has no platform", d.Digest)
		}
		l, err := readImage(files, d)
		if err != nil {
			return nil, fmt.Errorf("image: %s/%s: %w", d.Platform.OS, d.Platform.Architecture, err)
		}
		if l.Config.OS != d.Platform.OS || l.Config.Architecture != d.Platform.Architecture {
			return nil, fmt.Errorf("image: manifest %s is for %s/%s but its config says %s/%s", d.Digest,
				d.Platform.OS, d.Platform.Architecture, l.Config.OS, l.Config.Architecture)
		}
		l.Index = Index{SchemaVersion: 2, MediaType: MediaTypeIndex, Manifests: []Descriptor{d}}
		ml.Images = append(ml.Images, l)
	}
	return ml, nil
}

// readLayoutFiles reads the regular files of a layout tarball and its
// index.json.
func readLayoutFiles(r io.Reader) (map[string][]byte, Index, error) {
	var idx Index
	files := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, idx, fmt.Errorf("image: reading layout: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, idx, err
		}
		files[hdr.Name] = data
	}
	if string(files["oci-layout"]) == "" {
		return nil, idx, errors.New("image: no oci-layout file")
	}
	if err := json.Unmarshal(files["index.json"], &idx); err != nil {
		return nil, idx, fmt.Errorf("image: index.json: %w", err)
	}
	return files, idx, nil
}

// getBlob returns the blob d describes, checked against its digest and
// size.
func getBlob(files map[string][]byte, d Descriptor) ([]byte, error) {
	data, ok := files["blobs/sha256/"+strings.TrimPrefix(d.Digest, "sha256:")]
	if !ok {
		return nil, fmt.Errorf("image: blob %s missing", d.Digest)
	}
	if got := digest(data); got != d.Digest || int64(len(data)) != d.Size {
		return nil, fmt.Errorf("image: blob %s: digest %s, size %d (descriptor says %d)", d.Digest, got, len(data), d.Size)
	}
	return data, nil
}

// readImage reads the image whose manifest m describes.
func readImage(files map[string][]byte, m Descriptor) (*Layout, error) {
	l := &Layout{Files: map[string]*tar.Header{}, Contents: map[string][]byte{}}
	mData, err := getBlob(files, m)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(mData, &l.Manifest); err != nil {
		return nil, fmt.Errorf("image: manifest: %w", err)
	}
	cData, err := getBlob(files, l.Manifest.Config)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(cData, &l.Config); err != nil {
		return nil, fmt.Errorf("image: config: %w", err)
	}
	l.CompressedSize = l.Manifest.Config.Size
	if len(l.Config.RootFS.DiffIDs) != len(l.Manifest.Layers) {
		return nil, fmt.Errorf("image: %d diff_ids for %d layers", len(l.Config.RootFS.DiffIDs), len(l.Manifest.Layers))
	}
	for i, d := range l.Manifest.Layers {
		gz, err := getBlob(files, d)
		if err != nil {
			return nil, err
		}
		l.CompressedSize += d.Size
		if err := l.addLayer(gz, l.Config.RootFS.DiffIDs[i]); err != nil {
			return nil, fmt.Errorf("image: layer %d: %w", i, err)
		}
	}
	return l, nil
}

func (l *Layout) addLayer(gz []byte, diffID string) error {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return err
	}
	if got := digest(raw); got != diffID {
		return fmt.Errorf("diff_id %s, content %s", diffID, got)
	}
	l.UncompressedSize += int64(len(raw))
	tr := tar.NewReader(bytes.NewReader(raw))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		p := "/" + strings.TrimSuffix(hdr.Name, "/")
		l.Files[p] = hdr
		delete(l.Contents, p)
		if hdr.Typeflag == tar.TypeReg {
			data, err := io.ReadAll(tr)
			if err != nil {
				return err
			}
			l.Contents[p] = data
		}
	}
}
