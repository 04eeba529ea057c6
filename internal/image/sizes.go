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
// fails when the figures drift from the image it builds.
const (
	sizeStart = "<!-- image-size: written by `make image` -->"
	sizeEnd   = "<!-- /image-size -->"
)

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

var sizeRe = regexp.MustCompile(regexp.QuoteMeta(sizeStart) + `([0-9.]+) MB compressed, ([0-9.]+) MB unpacked for linux/([a-z0-9]+), of which the stripped binary is ([0-9.]+) MB` + regexp.QuoteMeta(sizeEnd))

// WriteSizeFigures rewrites the figures between the markers of the file
// at path; the file must hold the markers once.
func WriteSizeFigures(path string, s Sizes) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	start := bytes.Index(data, []byte(sizeStart))
	end := bytes.Index(data, []byte(sizeEnd))
	if start < 0 || end < start || bytes.Count(data, []byte(sizeStart)) != 1 {
		return fmt.Errorf("image: %s: want the size markers %q ... %q once", path, sizeStart, sizeEnd)
	}
	var out bytes.Buffer
	out.Write(data[:start+len(sizeStart)])
	out.WriteString(s.fragment())
	out.Write(data[end:])
	if bytes.Equal(out.Bytes(), data) {
		return nil
	}
	return os.WriteFile(path, out.Bytes(), 0o644)
}

// ReadSizeFigures reads the figures between the markers of the file at
// path, in bytes (to the 0.1 MB the text gives).
func ReadSizeFigures(path string) (Sizes, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Sizes{}, err
	}
	m := sizeRe.FindSubmatch(data)
	if m == nil {
		return Sizes{}, fmt.Errorf("image: %s has no size figures between %q and %q", path, sizeStart, sizeEnd)
	}
	num := func(b []byte) int64 {
		f, _ := strconv.ParseFloat(string(b), 64)
		return int64(f * (1 << 20))
	}
	return Sizes{Compressed: num(m[1]), Unpacked: num(m[2]), Arch: string(m[3]), Binary: num(m[4])}, nil
}
