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
	files := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("image: reading layout: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		files[hdr.Name] = data
	}
	if string(files["oci-layout"]) == "" {
		return nil, errors.New("image: no oci-layout file")
	}
	l := &Layout{Files: map[string]*tar.Header{}, Contents: map[string][]byte{}}
	if err := json.Unmarshal(files["index.json"], &l.Index); err != nil {
		return nil, fmt.Errorf("image: index.json: %w", err)
	}
	if len(l.Index.Manifests) != 1 {
		return nil, fmt.Errorf("image: index.json lists %d manifests, want 1", len(l.Index.Manifests))
	}
	getBlob := func(d Descriptor) ([]byte, error) {
		data, ok := files["blobs/sha256/"+strings.TrimPrefix(d.Digest, "sha256:")]
		if !ok {
			return nil, fmt.Errorf("image: blob %s missing", d.Digest)
		}
		if got := digest(data); got != d.Digest || int64(len(data)) != d.Size {
			return nil, fmt.Errorf("image: blob %s: digest %s, size %d (descriptor says %d)", d.Digest, got, len(data), d.Size)
		}
		return data, nil
	}
	mData, err := getBlob(l.Index.Manifests[0])
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(mData, &l.Manifest); err != nil {
		return nil, fmt.Errorf("image: manifest: %w", err)
	}
	cData, err := getBlob(l.Manifest.Config)
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
		gz, err := getBlob(d)
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
