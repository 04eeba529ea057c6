package files

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
)

// tarHandler is the TgzArchive/TarArchive handler: a tar archive read with
// archive/tar (gzip and bzip2 natively, xz and zstd through their
// commands, as GNU tar itself calls them). A gzip archive is TgzArchive
// (tar -z); any other tar is TarArchive, the handler that GNU tar's own
// detection of the compression lets read it.
type tarHandler struct {
	u        *unarchiveRun
	class    string
	zipflag  string
	tarPath  string
	comp     tarCompression
	strip    int
	excludes []string
	includes []string
	names    []string
}

// tarCompression is how a tar archive is compressed, told by its first
// bytes as GNU tar tells it.
type tarCompression int

const (
	tarPlain tarCompression = iota
	tarGzip
	tarBzip2
	tarXz
	tarZstd
)

func sniffTarCompression(src string) tarCompression {
	f, err := os.Open(src)
	if err != nil {
		return tarPlain
	}
	defer f.Close()
	head := make([]byte, 6)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return tarGzip
	case bytes.HasPrefix(head, []byte("BZh")):
		return tarBzip2
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return tarXz
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return tarZstd
	}
	return tarPlain
}

// newTarHandler lists the archive; when it cannot, it returns the reasons
// the gtar handlers give for a file that is not a tar archive.
func newTarHandler(u *unarchiveRun) (*tarHandler, []string) {
	h := &tarHandler{u: u, class: "TarArchive", tarPath: binPathOr("tar"), includes: u.p.Strs("include")}
	for _, e := range u.p.Strs("exclude") {
		h.excludes = append(h.excludes, strings.TrimRight(e, "/"))
	}
	h.strip = stripComponents(u.p.Strs("extra_opts"))
	comp := sniffTarCompression(u.src)
	h.comp = comp
	if comp == tarGzip {
		h.class, h.zipflag = "TgzArchive", "-z"
	}
	names, err := h.list()
	if err != nil {
		return nil, h.failureReasons(comp, err)
	}
	if len(names) == 0 {
		return nil, []string{`Command "` + h.tarPath + `" found no files in archive. Empty archive files are not supported.`}
	}
	h.names = names
	return h, nil
}

// failureReasons words why each gtar handler could not list the archive.
func (h *tarHandler) failureReasons(comp tarCompression, err error) []string {
	t := h.tarPath
	notRecoverable := t + ": Error is not recoverable: exiting now\n"
	notTar := t + ": This does not look like a tar archive\n" + t + ": Exiting with failure status due to previous errors\n"
	var listErr *tarListError
	if errors.As(err, &listErr) {
		notTar = listErr.msg
	}
	gz := "gzip: stdin: not in gzip format\n" + t + ": Child returned status 1\n" + notRecoverable
	if comp == tarGzip {
		gz = notTar
	}
	texts := []string{gz, notTar,
		"bzip2: (stdin) is not a bzip2 file.\n" + t + ": Child returned status 2\n" + notRecoverable,
		"xz: (stdin): File format not recognized\n" + t + ": Child returned status 1\n" + notRecoverable,
		"zstd: /*stdin*\\: unsupported format \n" + t + ": Child returned status 1\n" + notRecoverable}
	out := make([]string, len(texts))
	for i, s := range texts {
		out[i] = `Command "` + t + `" could not handle archive: Unable to list files in the archive: ` + s
	}
	return out
}

// tarListError is tar's own complaint about the members asked for.
type tarListError struct{ msg string }

func (e *tarListError) Error() string { return e.msg }

// stripComponents reads --strip-components (or --strip) from extra_opts,
// the one GNU tar option the native handler applies.
func stripComponents(opts []string) int {
	for i, o := range opts {
		name, val, hasVal := strings.Cut(o, "=")
		if name != "--strip-components" && name != "--strip" {
			continue
		}
		if !hasVal && i+1 < len(opts) {
			val = opts[i+1]
		}
		if n, err := strconv.Atoi(val); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

func (h *tarHandler) name() string    { return h.class }
func (h *tarHandler) files() []string { return h.names }

// open returns the archive's tar stream, decompressed.
func openTarStream(src string, comp tarCompression) (io.Reader, func(), error) {
	f, err := os.Open(src)
	if err != nil {
		return nil, nil, err
	}
	closeFile := func() { f.Close() }
	switch comp {
	case tarGzip:
		zr, err := gzip.NewReader(bufio.NewReader(f))
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		return zr, closeFile, nil
	case tarBzip2:
		return bzip2.NewReader(bufio.NewReader(f)), closeFile, nil
	case tarXz, tarZstd:
		prog := map[tarCompression]string{tarXz: "xz", tarZstd: "zstd"}[comp]
		cmd := exec.Command(prog, "-dc")
		cmd.Stdin = f
		out, err := cmd.StdoutPipe()
		if err == nil {
			err = cmd.Start()
		}
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		return out, func() { out.Close(); _ = cmd.Wait(); f.Close() }, nil
	}
	return bufio.NewReader(f), closeFile, nil
}

// tarEntry is one member to act on: its header and its name after
// --strip-components.
type tarEntry struct {
	hdr  *tar.Header
	name string
	body io.Reader
}

// walk calls fn for each member that is not excluded, in archive order,
// and fails as tar does when a member asked for by include is missing.
func (h *tarHandler) walk(fn func(e tarEntry) error) error {
	r, done, err := openTarStream(h.u.src, h.comp)
	if err != nil {
		return err
	}
	defer done()
	tr := tar.NewReader(r)
	found := make([]bool, len(h.includes))
	count := 0
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if count == 0 {
				return err
			}
			return &tarListError{h.tarPath + ": " + err.Error() + "\n"}
		}
		count++
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			// git archive's pax_global_header: metadata, not a member.
			continue
		}
		if h.excludedMember(hdr.Name) || !h.includedMember(hdr.Name, found) {
			continue
		}
		name, ok := stripTarName(hdr.Name, h.strip)
		if !ok {
			continue
		}
		if err := fn(tarEntry{hdr: hdr, name: name, body: tr}); err != nil {
			return err
		}
	}
	var missing strings.Builder
	for i, ok := range found {
		if !ok {
			fmt.Fprintf(&missing, "%s: %s: Not found in archive\n", h.tarPath, h.includes[i])
		}
	}
	if missing.Len() > 0 {
		return &tarListError{missing.String() + h.tarPath + ": Exiting with failure status due to previous errors\n"}
	}
	return nil
}

// list is files_in_archive: the transformed names without a leading
// slash, less those the exclude patterns match.
func (h *tarHandler) list() ([]string, error) {
	var names []string
	err := h.walk(func(e tarEntry) error {
		name := strings.TrimPrefix(e.name, "/")
		for _, ex := range h.excludes {
			if py.Fnmatch(name, ex) {
				return nil
			}
		}
		names = append(names, name)
		return nil
	})
	return names, err
}

// stripTarName removes n leading components as GNU tar's
// --strip-components does; a member with fewer components is skipped.
func stripTarName(name string, n int) (string, bool) {
	if n == 0 {
		return name, true
	}
	i := 0
	for i < len(name) && name[i] == '/' {
		i++
	}
	for i < len(name) {
		slash := name[i] == '/'
		i++
		if slash {
			n--
			if n == 0 {
				return name[i:], true
			}
			for i < len(name) && name[i] == '/' {
				i++
			}
		}
	}
	return "", false
}

// excludedMember is tar's --exclude: a wildcard pattern matched against
// the member name or any trailing part of it that starts a component,
// and against the directories leading to it.
func (h *tarHandler) excludedMember(name string) bool {
	name = strings.Trim(name, "/")
	for _, pat := range h.excludes {
		for start := 0; ; {
			rest := name[start:]
			if py.Fnmatch(rest, pat) {
				return true
			}
			for j := 0; j < len(rest); j++ {
				if rest[j] == '/' && py.Fnmatch(rest[:j], pat) {
					return true
				}
			}
			k := strings.IndexByte(rest, '/')
			if k < 0 {
				break
			}
			start += k + 1
		}
	}
	return false
}

// includedMember is tar's member arguments: with include given, a member
// is processed when it is one of them or inside one.
func (h *tarHandler) includedMember(name string, found []bool) bool {
	if len(h.includes) == 0 {
		return true
	}
	name = strings.TrimRight(name, "/")
	hit := false
	for i, inc := range h.includes {
		inc = strings.TrimRight(inc, "/")
		if name == inc || strings.HasPrefix(name, inc+"/") {
			found[i] = true
			hit = true
		}
	}
	return hit
}

// command is the gtar command line the handler runs for action
// (--extract or --diff).
func (h *tarHandler) command(action string) []string {
	cmd := []string{h.tarPath, action, "-C", h.u.absDest}
	if h.zipflag != "" {
		cmd = append(cmd, h.zipflag)
	}
	if opts := h.u.p.Strs("extra_opts"); len(opts) > 0 {
		cmd = append(append(cmd, "--show-transformed-names"), opts...)
	}
	if h.u.fa.owner != nil {
		cmd = append(cmd, "--owner="+py.Quote(*h.u.fa.owner))
	}
	if h.u.fa.group != nil {
		cmd = append(cmd, "--group="+py.Quote(*h.u.fa.group))
	}
	if h.u.p.Bool("keep_newer") {
		cmd = append(cmd, "--keep-newer-files")
	}
	for _, ex := range h.excludes {
		cmd = append(cmd, "--exclude="+ex)
	}
	cmd = append(cmd, "-f", h.u.src)
	return append(cmd, h.includes...)
}
