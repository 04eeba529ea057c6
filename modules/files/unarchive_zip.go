package files

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cfzt/cfzt-runner/engine/py"
)

// zipHandler is the ZipArchive handler, reading the archive with
// archive/zip where ansible-core runs zipinfo and unzip.
type zipHandler struct {
	u         *unarchiveRun
	zr        *zip.ReadCloser
	unzipPath string
	excludes  []string
	includes  []string
	// changed lists the members is_unarchived found missing or different.
	changed []string
}

// newZipHandler opens src as a zip archive; when it cannot, it returns
// the reason unzip -l gives.
func newZipHandler(u *unarchiveRun) (*zipHandler, string) {
	unzip := binPathOr("unzip")
	zr, err := zip.OpenReader(u.src)
	if err != nil {
		return nil, fmt.Sprintf("Command \"%s\" could not handle archive: unzip:  cannot find zipfile directory in one of %s or\n"+
			"        %s.zip, and cannot find %s.ZIP, period.\n", unzip, u.src, u.src, u.src)
	}
	h := &zipHandler{u: u, zr: zr, unzipPath: unzip, excludes: u.p.Strs("exclude"), includes: u.p.Strs("include")}
	return h, ""
}

func (h *zipHandler) name() string { return "ZipArchive" }

// Close releases the archive.
func (h *zipHandler) Close() error { return h.zr.Close() }

// files is files_in_archive: every member matching an include pattern
// (once per pattern it matches), or every member no exclude matches.
func (h *zipHandler) files() []string {
	var out []string
	for _, f := range h.zr.File {
		if len(h.includes) > 0 {
			for _, inc := range h.includes {
				if py.Fnmatch(f.Name, inc) {
					out = append(out, f.Name)
				}
			}
			continue
		}
		if !matchesAny(f.Name, h.excludes) {
			out = append(out, f.Name)
		}
	}
	return out
}

func matchesAny(name string, patterns []string) bool {
	for _, p := range patterns {
		if py.Fnmatch(name, p) {
			return true
		}
	}
	return false
}

// selected is what zipinfo and unzip act on: the members the include
// patterns name (all without them), less the excluded ones.
func (h *zipHandler) selected() []*zip.File {
	var out []*zip.File
	for _, f := range h.zr.File {
		if len(h.includes) > 0 && !matchesAny(f.Name, h.includes) {
			continue
		}
		if matchesAny(f.Name, h.excludes) || unsafeTarName(f.Name) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// zipMember is what zipinfo tells of one member: its type ('d', 'l', '-'
// or '?'), the mode unzip gives it, and its time.
type zipMember struct {
	ztype byte
	mode  int64
	mtime int64
}

// describeZipMember reads a member's type and mode as zipinfo shows them:
// Unix permissions as they are, DOS attributes as 0666 or 0777 less the
// umask.
func describeZipMember(f *zip.File) zipMember {
	m := zipMember{mtime: zipEntryTime(f)}
	switch f.CreatorVersion >> 8 {
	case 3, 19: // Unix, macOS
		unix := f.ExternalAttrs >> 16
		m.mode = int64(unix) & 0o777
		switch unix & 0o170000 {
		case 0o040000:
			m.ztype = 'd'
		case 0o120000:
			m.ztype = 'l'
		case 0o100000:
			m.ztype = '-'
		default:
			m.ztype = '?'
		}
	default:
		m.ztype, m.mode = '-', 0o666
		if strings.HasSuffix(f.Name, "/") || f.ExternalAttrs&0x10 != 0 {
			m.ztype, m.mode = 'd', 0o777
		}
		m.mode &^= int64(currentUmask())
	}
	if strings.HasSuffix(f.Name, "/") {
		m.ztype = 'd'
	}
	return m
}

// zipEntryTime is the member's modification time as unzip restores it:
// the extended timestamp when there is one, else the DOS time read in the
// local time zone (no earlier than 1980).
func zipEntryTime(f *zip.File) int64 {
	if hasExtendedTimestamp(f.Extra) {
		return f.Modified.Unix()
	}
	d := f.Modified
	if d.Year() < 1980 {
		return time.Date(1980, 1, 1, 0, 0, 0, 0, time.Local).Unix()
	}
	return time.Date(d.Year(), d.Month(), d.Day(), d.Hour(), d.Minute(), d.Second(), 0, time.Local).Unix()
}

// hasExtendedTimestamp reports the "UT" extra field (0x5455).
func hasExtendedTimestamp(extra []byte) bool {
	for len(extra) >= 4 {
		tag := binary.LittleEndian.Uint16(extra)
		size := int(binary.LittleEndian.Uint16(extra[2:]))
		if tag == 0x5455 {
			return true
		}
		if 4+size > len(extra) {
			return false
		}
		extra = extra[4+size:]
	}
	return false
}

// crc32File is the CRC-32 of a file's content.
func crc32File(path string) (uint32, error) {
	h := crc32.NewIEEE()
	err := hashFile(path, h)
	return h.Sum32(), err
}

// unarchive is unzip -o: every selected member written over what is
// there, with unzip's listing as the output.
func (h *zipHandler) unarchive() extractResult {
	cmd := append([]string{h.unzipPath, "-o"}, h.u.p.Strs("extra_opts")...)
	cmd = append(cmd, h.u.src)
	if len(h.excludes) > 0 {
		cmd = append(append(cmd, "-x"), h.excludes...)
	}
	cmd = append(cmd, h.includes...)
	cmd = append(cmd, "-d", h.u.absDest)
	res := extractResult{cmd: cmd}
	var out, errs strings.Builder
	fmt.Fprintf(&out, "Archive:  %s\n", h.u.src)
	var links [][2]string
	var dirs []*zip.File
	for _, f := range h.selected() {
		shown := h.u.absDest + "/" + f.Name
		if err := h.extractZipMember(f, shown, &out, &links, &dirs); err != nil {
			fmt.Fprintf(&errs, "error:  cannot create %s\n        %s\n", shown, err)
			res.rc = 50
		}
	}
	if len(links) > 0 {
		out.WriteString("finishing deferred symbolic links:\n")
		for _, l := range links {
			fmt.Fprintf(&out, "  %-22s -> %s\n", l[0], l[1])
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		m := describeZipMember(dirs[i])
		path := h.u.absDest + "/" + dirs[i].Name
		_ = syscall.Chmod(path, uint32(m.mode))
		_ = os.Chtimes(path, time.Now(), time.Unix(m.mtime, 0))
	}
	h.unmatchedPatterns(&errs, &res)
	res.out, res.err = out.String(), errs.String()
	return res
}

// unmatchedPatterns adds unzip's cautions about exclude and include
// patterns that name no member; an include that matches nothing fails.
func (h *zipHandler) unmatchedPatterns(errs *strings.Builder, res *extractResult) {
	for _, ex := range h.excludes {
		if !h.anyMemberMatches(ex) {
			fmt.Fprintf(errs, "caution: excluded filename not matched:  %s\n", ex)
		}
	}
	for _, inc := range h.includes {
		if !h.anyMemberMatches(inc) {
			fmt.Fprintf(errs, "caution: filename not matched:  %s\n", inc)
			res.rc = 11
		}
	}
}

func (h *zipHandler) anyMemberMatches(pattern string) bool {
	return slices.ContainsFunc(h.zr.File, func(f *zip.File) bool { return py.Fnmatch(f.Name, pattern) })
}

// extractZipMember writes one member, logging it as unzip does.
func (h *zipHandler) extractZipMember(f *zip.File, shown string, out *strings.Builder, links *[][2]string, dirs *[]*zip.File) error {
	m := describeZipMember(f)
	path := strings.TrimSuffix(shown, "/")
	if err := os.MkdirAll(path[:strings.LastIndexByte(path, '/')], 0o777); err != nil {
		return err
	}
	if !parentInside(h.u.absDest, path) {
		return fmt.Errorf("not a directory below the destination")
	}
	if m.ztype == 'd' {
		*dirs = append(*dirs, f)
		if isDir(path) {
			return nil
		}
		fmt.Fprintf(out, "   creating: %s\n", shown)
		return os.Mkdir(path, 0o700)
	}
	if st, err := os.Lstat(path); err == nil && !st.IsDir() {
		os.Remove(path)
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	if m.ztype == 'l' {
		target, err := io.ReadAll(rc)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "    linking: %-22s  -> %s \n", shown, target)
		*links = append(*links, [2]string{shown, string(target)})
		return os.Symlink(string(target), path)
	}
	verb := "  inflating"
	if f.Method == zip.Store {
		verb = " extracting"
	}
	fmt.Fprintf(out, "%s: %-22s  \n", verb, shown)
	w, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, rc); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := syscall.Chmod(path, uint32(m.mode)); err != nil {
		return err
	}
	return os.Chtimes(path, time.Now(), time.Unix(m.mtime, 0))
}

// includesMatchNothing is zipinfo failing because an include pattern
// names no member.
func (h *zipHandler) includesMatchNothing() bool {
	for _, inc := range h.includes {
		if !h.anyMemberMatches(inc) {
			return true
		}
	}
	return false
}
