package image

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
)

// The size figures of the docs are written by the build (`make image`,
// cfzt-image -docs) between these markers, never typed: TestOperatorImageLayout
// fails when the figures drift from the image it builds. The figures of
// the ansible-operator base image's flavours have markers of their own
// (sizeMarkers), which TestOperatorImageLayout and TestPythonFlavourImage
// check the same way.
const (
	sizeStart = "<!-- image-size: written by `make image` -->"
	sizeEnd   = "<!-- /image-size -->"
)

// Images whose size figures the docs give, as cfzt-image's -image names
// them.
const (
	SizesOperator        = "operator"
	SizesAnsibleOperator = "ansible-operator"
	SizesPythonFlavour   = "ansible-operator-python"
)

// sizeMarkers returns the start marker of an image's figures.
func sizeMarkers(kind string) (string, error) {
	switch kind {
	case SizesOperator, "":
		return sizeStart, nil
	case SizesAnsibleOperator, SizesPythonFlavour:
		return "<!-- image-size " + kind + ": written by `make image-" + kind + "` -->", nil
	}
	return "", fmt.Errorf("image: no size figures for the image %q", kind)
}

// Sizes are an image's size figures.
type Sizes struct {
	// Arch is the image's CPU architecture.
	Arch string
	// Compressed is what a node pulls (config and gzipped layers),
	// Unpacked the layers' tar streams, Binary the cfzt-runner in it.
	Compressed, Unpacked, Binary int64
}

// SizesOf returns the figures of a layout read back.
func SizesOf(l *Layout) Sizes {
	return Sizes{Arch: l.Config.Architecture, Compressed: l.CompressedSize, Unpacked: l.UncompressedSize,
		Binary: int64(len(l.Contents[BinaryPath]))}
}

func mb(n int64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) }

// fragment is the text between the markers.
func (s Sizes) fragment() string {
	return fmt.Sprintf("%s MB compressed, %s MB unpacked for linux/%s, of which the stripped binary is %s MB",
		mb(s.Compressed), mb(s.Unpacked), s.Arch, mb(s.Binary))
}

var sizeRe = regexp.MustCompile(`^([0-9.]+) MB compressed, ([0-9.]+) MB unpacked for linux/([a-z0-9]+), of which the stripped binary is ([0-9.]+) MB$`)

// WriteSizeFigures rewrites the operator image's figures between the
// markers of the file at path; the file must hold the markers once.
func WriteSizeFigures(path string, s Sizes) error { return WriteSizeFiguresOf(path, SizesOperator, s) }

// ReadSizeFigures reads the operator image's figures of the file at path.
func ReadSizeFigures(path string) (Sizes, error) { return ReadSizeFiguresOf(path, SizesOperator) }

// figures returns the offsets of the text between kind's markers in data.
func figures(path string, data []byte, kind string) (int, int, error) {
	startMark, err := sizeMarkers(kind)
	if err != nil {
		return 0, 0, err
	}
	start := bytes.Index(data, []byte(startMark))
	if start < 0 || bytes.Count(data, []byte(startMark)) != 1 {
		return 0, 0, fmt.Errorf("image: %s: want the size markers %q ... %q once", path, startMark, sizeEnd)
	}
	start += len(startMark)
	end := bytes.Index(data[start:], []byte(sizeEnd))
	if end < 0 {
		return 0, 0, fmt.Errorf("image: %s: %q has no %q after it", path, startMark, sizeEnd)
	}
	return start, start + end, nil
}

// WriteSizeFiguresOf rewrites the figures of the image kind (SizesOperator,
// SizesAnsibleOperator, SizesPythonFlavour) between its markers in the
// file at path; the file must hold its start marker once.
func WriteSizeFiguresOf(path, kind string, s Sizes) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	start, end, err := figures(path, data, kind)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	out.Write(data[:start])
	out.WriteString(s.fragment())
	out.Write(data[end:])
	if bytes.Equal(out.Bytes(), data) {
		return nil
	}
	return os.WriteFile(path, out.Bytes(), 0o644)
}

// ReadSizeFiguresOf reads the figures of the image kind between its
// markers in the file at path, in bytes (to the 0.1 MB the text gives).
func ReadSizeFiguresOf(path, kind string) (Sizes, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Sizes{}, err
	}
	start, end, err := figures(path, data, kind)
	if err != nil {
		return Sizes{}, err
	}
	m := sizeRe.FindSubmatch(data[start:end])
	if m == nil {
		return Sizes{}, fmt.Errorf("image: %s has no %s size figures between its markers, but %q", path, kind, data[start:end])
	}
	num := func(b []byte) int64 {
		f, _ := strconv.ParseFloat(string(b), 64)
		return int64(f * (1 << 20))
	}
	return Sizes{Compressed: num(m[1]), Unpacked: num(m[2]), Arch: string(m[3]), Binary: num(m[4])}, nil
}
