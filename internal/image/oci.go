// Package image packs the operator's container root filesystem into an OCI
// image layout tarball, without a container engine.
//
// container/Dockerfile is the way to build the image with Docker or BuildKit.
// This package builds the same root filesystem (a static cfzt-runner, the
// Ansible roles and playbooks under /ansible, a passwd entry for UID 1000, CA
// certificates and a sticky /tmp) so that tests and `make image` can check
// and ship it on machines without Docker. The tarball loads with
// `docker load`, `podman load` or `skopeo copy oci-archive:...`.
package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
)

// OCI media types written by this package.
const (
	MediaTypeIndex    = "application/vnd.oci.image.index.v1+json"
	MediaTypeManifest = "application/vnd.oci.image.manifest.v1+json"
	MediaTypeConfig   = "application/vnd.oci.image.config.v1+json"
	MediaTypeLayer    = "application/vnd.oci.image.layer.v1.tar+gzip"
)

// Annotation keys that name the image in index.json. containerd and Docker
// read the full name from the first; the OCI spec defines the second.
const (
	AnnotationImageName = "io.containerd.image.name"
	AnnotationRefName   = "org.opencontainers.image.ref.name"
)

// Descriptor is an OCI content descriptor.
type Descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Platform    *Platform         `json:"platform,omitempty"`
}

// Platform names the operating system and CPU architecture of an image.
type Platform struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
}

// Index is an OCI image index (index.json).
type Index struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Manifests     []Descriptor `json:"manifests"`
}

// Manifest is an OCI image manifest.
type Manifest struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Config        Descriptor   `json:"config"`
	Layers        []Descriptor `json:"layers"`
}

// ConfigFile is an OCI image configuration.
type ConfigFile struct {
	Created      string          `json:"created,omitempty"`
	Architecture string          `json:"architecture"`
	OS           string          `json:"os"`
	Config       RuntimeConfig   `json:"config"`
	RootFS       RootFS          `json:"rootfs"`
	History      []HistoryRecord `json:"history,omitempty"`
}

// RuntimeConfig is the part of the image configuration a runtime uses to
// start the container.
type RuntimeConfig struct {
	User       string            `json:"User,omitempty"`
	Env        []string          `json:"Env,omitempty"`
	Entrypoint []string          `json:"Entrypoint,omitempty"`
	Cmd        []string          `json:"Cmd,omitempty"`
	WorkingDir string            `json:"WorkingDir,omitempty"`
	Labels     map[string]string `json:"Labels,omitempty"`
}

// RootFS lists the uncompressed digests of the layers.
type RootFS struct {
	Type    string   `json:"type"`
	DiffIDs []string `json:"diff_ids"`
}

// HistoryRecord describes how a layer was made.
type HistoryRecord struct {
	Created   string `json:"created,omitempty"`
	CreatedBy string `json:"created_by,omitempty"`
	Comment   string `json:"comment,omitempty"`
}

// Entry is one file, directory or symbolic link of a layer.
type Entry struct {
	// Path is the absolute path inside the image, e.g. "/etc/passwd".
	Path string
	// Mode holds the permission bits plus fs.ModeDir, fs.ModeSymlink,
	// fs.ModeSticky, fs.ModeSetuid or fs.ModeSetgid.
	Mode     fs.FileMode
	UID, GID int
	// Data is a regular file's content.
	Data []byte
	// Link is a symbolic link's target.
	Link string
}

// Layer is a named set of entries. Parent directories that are not listed
// are added as root-owned 0755 directories.
type Layer struct {
	// CreatedBy is recorded in the image history.
	CreatedBy string
	Entries   []Entry
}

// Image is everything needed to write an OCI image layout.
type Image struct {
	// Name is the full image reference, e.g. "ghcr.io/cfzt/cfzt-operator:dev".
	Name     string
	Platform Platform
	Created  time.Time
	Config   RuntimeConfig
	Layers   []Layer
}

// blob is a content-addressed byte string of the layout.
type blob struct {
	mediaType string
	data      []byte
}

func (b blob) descriptor() Descriptor {
	return Descriptor{MediaType: b.mediaType, Digest: digest(b.data), Size: int64(len(b.data))}
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// WriteLayout writes img as an OCI image layout tarball to w and returns the
// manifest's descriptor. The output is byte-for-byte reproducible for the
// same Image.
func (img *Image) WriteLayout(w io.Writer) (Descriptor, error) {
	mDesc, blobs, err := img.blobs()
	if err != nil {
		return Descriptor{}, err
	}
	if img.Name != "" {
		mDesc.Annotations = nameAnnotations(img.Name)
	}
	idx, err := json.Marshal(Index{SchemaVersion: 2, MediaType: MediaTypeIndex, Manifests: []Descriptor{mDesc}})
	if err != nil {
		return Descriptor{}, err
	}
	return mDesc, writeTar(w, img.Created, idx, blobs)
}

// WriteMultiLayout writes one image for several platforms as an OCI image
// layout tarball: index.json names (with the image name's annotations) one
// image index, which lists each platform's manifest, as `docker buildx`'s
// OCI exporter lays a multi-platform image out. Every image must have a
// different platform; the name and creation time are the first image's.
// It returns the descriptor of the image index.
func WriteMultiLayout(w io.Writer, imgs []*Image) (Descriptor, error) {
	if len(imgs) == 0 {
		return Descriptor{}, fmt.Errorf("image: no platform to write")
	}
	seen := map[Platform]bool{}
	var all []blob
	inner := Index{SchemaVersion: 2, MediaType: MediaTypeIndex}
	for _, img := range imgs {
		if seen[img.Platform] {
			return Descriptor{}, fmt.Errorf("image: platform %s/%s given twice", img.Platform.OS, img.Platform.Architecture)
		}
		seen[img.Platform] = true
		mDesc, blobs, err := img.blobs()
		if err != nil {
			return Descriptor{}, err
		}
		inner.Manifests = append(inner.Manifests, mDesc)
		all = append(all, blobs...)
	}
	innerJSON, err := json.Marshal(inner)
	if err != nil {
		return Descriptor{}, err
	}
	iBlob := blob{MediaTypeIndex, innerJSON}
	iDesc := iBlob.descriptor()
	if imgs[0].Name != "" {
		iDesc.Annotations = nameAnnotations(imgs[0].Name)
	}
	idx, err := json.Marshal(Index{SchemaVersion: 2, MediaType: MediaTypeIndex, Manifests: []Descriptor{iDesc}})
	if err != nil {
		return Descriptor{}, err
	}
	return iDesc, writeTar(w, imgs[0].Created, idx, append([]blob{iBlob}, all...))
}

func nameAnnotations(name string) map[string]string {
	return map[string]string{AnnotationImageName: name, AnnotationRefName: refName(name)}
}

// blobs makes img's layers, configuration and manifest, and returns the
// manifest's descriptor (with its platform) and every blob, the manifest
// first.
func (img *Image) blobs() (Descriptor, []blob, error) {
	var layers []blob
	cfg := ConfigFile{
		Architecture: img.Platform.Architecture,
		OS:           img.Platform.OS,
		Config:       img.Config,
		RootFS:       RootFS{Type: "layers"},
	}
	if !img.Created.IsZero() {
		cfg.Created = img.Created.UTC().Format(time.RFC3339)
	}
	for i, l := range img.Layers {
		raw, err := layerTar(l.Entries, img.Created)
		if err != nil {
			return Descriptor{}, nil, fmt.Errorf("image: layer %d: %w", i, err)
		}
		gz, err := gzipBytes(raw)
		if err != nil {
			return Descriptor{}, nil, err
		}
		layers = append(layers, blob{MediaTypeLayer, gz})
		cfg.RootFS.DiffIDs = append(cfg.RootFS.DiffIDs, digest(raw))
		cfg.History = append(cfg.History, HistoryRecord{Created: cfg.Created, CreatedBy: l.CreatedBy})
	}
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		return Descriptor{}, nil, err
	}
	cfgBlob := blob{MediaTypeConfig, cfgJSON}
	m := Manifest{SchemaVersion: 2, MediaType: MediaTypeManifest, Config: cfgBlob.descriptor()}
	for _, l := range layers {
		m.Layers = append(m.Layers, l.descriptor())
	}
	mJSON, err := json.Marshal(m)
	if err != nil {
		return Descriptor{}, nil, err
	}
	mBlob := blob{MediaTypeManifest, mJSON}
	mDesc := mBlob.descriptor()
	mDesc.Platform = &Platform{Architecture: img.Platform.Architecture, OS: img.Platform.OS}
	return mDesc, append([]blob{mBlob, cfgBlob}, layers...), nil
}

// writeTar writes the layout tarball: oci-layout, index.json, then each
// blob once under blobs/sha256/.
func writeTar(w io.Writer, created time.Time, idx []byte, blobs []blob) error {
	tw := tar.NewWriter(w)
	put := func(name string, data []byte) error {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: created, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	dir := func(name string) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: 0o755, ModTime: created, Format: tar.FormatPAX})
	}
	if err := put("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)); err != nil {
		return err
	}
	if err := put("index.json", idx); err != nil {
		return err
	}
	if err := dir("blobs/"); err != nil {
		return err
	}
	if err := dir("blobs/sha256/"); err != nil {
		return err
	}
	written := map[string]bool{}
	for _, b := range blobs {
		d := digest(b.data)
		if written[d] { // a layer two platforms share (the Ansible content)
			continue
		}
		written[d] = true
		if err := put("blobs/sha256/"+strings.TrimPrefix(d, "sha256:"), b.data); err != nil {
			return err
		}
	}
	return tw.Close()
}

// refName is the tag of an image reference; "latest" when it has none.
func refName(name string) string {
	slash := strings.LastIndexByte(name, '/')
	if colon := strings.LastIndexByte(name, ':'); colon > slash {
		return name[colon+1:]
	}
	return "latest"
}

// layerTar writes entries, sorted by path and with their missing parent
// directories, as an uncompressed tar.
func layerTar(entries []Entry, mtime time.Time) ([]byte, error) {
	byPath := map[string]Entry{}
	for _, e := range entries {
		p := path.Clean("/" + e.Path)
		if p == "/" {
			return nil, fmt.Errorf("entry with an empty path")
		}
		if _, dup := byPath[p]; dup {
			return nil, fmt.Errorf("%s listed twice", p)
		}
		e.Path = p
		byPath[p] = e
	}
	for p := range byPath {
		for d := path.Dir(p); d != "/"; d = path.Dir(d) {
			if _, ok := byPath[d]; !ok {
				byPath[d] = Entry{Path: d, Mode: fs.ModeDir | 0o755}
			}
		}
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range paths {
		e := byPath[p]
		hdr := &tar.Header{
			Name:    strings.TrimPrefix(p, "/"),
			Mode:    tarMode(e.Mode),
			Uid:     e.UID,
			Gid:     e.GID,
			ModTime: mtime,
			Format:  tar.FormatPAX,
		}
		switch {
		case e.Mode.IsDir():
			hdr.Typeflag = tar.TypeDir
			hdr.Name += "/"
		case e.Mode&fs.ModeSymlink != 0:
			hdr.Typeflag = tar.TypeSymlink
			hdr.Linkname = e.Link
		case e.Mode.IsRegular():
			hdr.Typeflag = tar.TypeReg
			hdr.Size = int64(len(e.Data))
		default:
			return nil, fmt.Errorf("%s: unsupported file type %v", p, e.Mode.Type())
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if hdr.Typeflag == tar.TypeReg {
			if _, err := tw.Write(e.Data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// tarMode converts permission and special bits to the tar header's mode.
func tarMode(m fs.FileMode) int64 {
	mode := int64(m.Perm())
	if m&fs.ModeSetuid != 0 {
		mode |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		mode |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		mode |= 0o1000
	}
	return mode
}

func gzipBytes(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
