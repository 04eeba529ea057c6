package files

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// tarOwnership is who the unpacked files belong to: the archive's owner
// (its user name when it exists here, else its number), or --owner and
// --group when given. Only root sets ownership, as GNU tar.
type tarOwnership struct {
	root           bool
	owner, group   *string
	ownerID, grpID int
}

func (h *tarHandler) ownership() tarOwnership {
	o := tarOwnership{root: os.Geteuid() == 0, owner: h.u.fa.owner, group: h.u.fa.group}
	if o.owner != nil {
		o.ownerID, _ = lookupUID(*o.owner)
	}
	if o.group != nil {
		o.grpID, _ = lookupGID(*o.group)
	}
	return o
}

// ids are the uid and gid a member unpacks to.
func (o tarOwnership) ids(hdr *tar.Header) (int, int) {
	uid, gid := hdr.Uid, hdr.Gid
	if id, ok := lookupUID(hdr.Uname); ok && hdr.Uname != "" {
		uid = id
	}
	if id, ok := lookupGID(hdr.Gname); ok && hdr.Gname != "" {
		gid = id
	}
	if o.owner != nil {
		uid = o.ownerID
	}
	if o.group != nil {
		gid = o.grpID
	}
	return uid, gid
}

// memberMode is the permission a member unpacks with: the archive's as
// root, less the umask otherwise.
func (o tarOwnership) memberMode(hdr *tar.Header) uint32 {
	mode := hdr.Mode & permBits
	if !o.root {
		mode &^= int64(currentUmask())
	}
	return uint32(mode)
}

// isUnarchived is gtar --diff: the members that are missing or differ in
// content, size, mtime or link target, and in mode, uid and gid unless
// the task sets those itself.
func (h *tarHandler) isUnarchived() (unarchivedState, error) {
	own := h.ownership()
	differs := false
	keepNewer := h.u.p.Bool("keep_newer")
	err := h.walk(func(e tarEntry) error {
		if e.name == "" || differs || unsafeTarName(e.name) {
			return nil
		}
		differs = h.memberDiffers(e, own, keepNewer)
		return nil
	})
	if err != nil {
		return unarchivedState{}, err
	}
	return unarchivedState{unarchived: !differs}, nil
}

// memberDiffers compares one member with the file system.
func (h *tarHandler) memberDiffers(e tarEntry, own tarOwnership, keepNewer bool) bool {
	path := filepath.Join(h.u.absDest, e.name)
	st, err := os.Lstat(path)
	if err != nil {
		return true
	}
	hdr := e.hdr
	switch hdr.Typeflag {
	case tar.TypeDir:
		return st.IsDir() && h.u.fa.mode == nil && permOf(st) != hdr.Mode&permBits
	case tar.TypeSymlink:
		target, err := os.Readlink(path)
		return err != nil || target != hdr.Linkname
	case tar.TypeReg, tar.TypeChar:
	default:
		return false
	}
	if !st.Mode().IsRegular() {
		return false
	}
	uid, gid := statOwner(st)
	wantUID, wantGID := own.ids(hdr)
	switch {
	case own.root && own.owner == nil && uid != wantUID,
		own.root && own.group == nil && gid != wantGID,
		h.u.fa.mode == nil && permOf(st) != hdr.Mode&permBits,
		!keepNewer && !st.ModTime().Equal(hdr.ModTime),
		st.Size() != hdr.Size:
		return true
	}
	return !fileMatchesReader(path, e.body)
}

// fileMatchesReader compares a file with a member's content.
func fileMatchesReader(path string, body io.Reader) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	a, b := make([]byte, 32*1024), make([]byte, 32*1024)
	for {
		n, errA := io.ReadFull(f, a)
		m, errB := io.ReadFull(body, b[:n])
		if m != n || !bytes.Equal(a[:n], b[:m]) {
			return false
		}
		if errA != nil || errB != nil {
			extra, _ := body.Read(b[:1])
			return extra == 0
		}
	}
}

// unsafeTarName is a member GNU tar refuses to unpack: one that climbs
// out of dest.
func unsafeTarName(name string) bool {
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

// delayedDir is a directory whose mode and time are set once its content
// is unpacked, as GNU tar delays them.
type delayedDir struct {
	path string
	hdr  *tar.Header
}

// unarchive is gtar --extract: each member written, replacing what is
// there, with the archive's mode and times (and owner as root).
func (h *tarHandler) unarchive() extractResult {
	own := h.ownership()
	res := extractResult{cmd: h.command("--extract")}
	var errs, warnings strings.Builder
	var dirs []delayedDir
	keepNewer := h.u.p.Bool("keep_newer")
	err := h.walk(func(e tarEntry) error {
		name := strings.TrimPrefix(e.name, "/")
		if name == "" {
			return nil
		}
		if unsafeTarName(name) {
			fmt.Fprintf(&errs, "%s: %s: Member name contains '..'\n", h.tarPath, e.hdr.Name)
			return nil
		}
		path := filepath.Join(h.u.absDest, name)
		if keepNewer && e.hdr.Typeflag == tar.TypeReg {
			// GNU tar keeps the file and warns, without failing.
			if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() && !st.ModTime().Before(e.hdr.ModTime) {
				fmt.Fprintf(&warnings, "%s: Current ‘%s’ is newer or same age\n", h.tarPath, name)
				return nil
			}
		}
		if err := h.extractMember(e, path, own, &dirs); err != nil {
			fmt.Fprintf(&errs, "%s: %s: %s\n", h.tarPath, name, err)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		_ = syscall.Chmod(d.path, own.memberMode(d.hdr))
		_ = os.Chtimes(d.path, time.Now(), d.hdr.ModTime)
	}
	if err != nil {
		errs.WriteString(err.Error())
	}
	res.err = warnings.String()
	if errs.Len() > 0 {
		res.rc = 2
		res.err += errs.String() + h.tarPath + ": Exiting with failure status due to previous errors\n"
	}
	return res
}

// extractMember writes one member at path.
func (h *tarHandler) extractMember(e tarEntry, path string, own tarOwnership, dirs *[]delayedDir) error {
	hdr := e.hdr
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	if !parentInside(h.u.absDest, path) {
		return fmt.Errorf("Cannot open: Not a directory below the destination")
	}
	if hdr.Typeflag == tar.TypeDir {
		if st, err := os.Lstat(path); err != nil || !st.IsDir() {
			os.Remove(path)
			if err := os.Mkdir(path, 0o700); err != nil {
				return err
			}
		}
		*dirs = append(*dirs, delayedDir{path, hdr})
		return h.chownMember(path, hdr, own)
	}
	if st, err := os.Lstat(path); err == nil {
		if st.IsDir() {
			return fmt.Errorf("Cannot open: File exists")
		}
		os.Remove(path)
	}
	switch hdr.Typeflag {
	case tar.TypeSymlink:
		if err := os.Symlink(hdr.Linkname, path); err != nil {
			return err
		}
		return h.chownMember(path, hdr, own)
	case tar.TypeLink:
		target, ok := stripTarName(hdr.Linkname, h.strip)
		if !ok {
			return nil
		}
		return os.Link(filepath.Join(h.u.absDest, strings.TrimPrefix(target, "/")), path)
	case tar.TypeReg:
	default:
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, e.body); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := h.chownMember(path, hdr, own); err != nil {
		return err
	}
	if err := syscall.Chmod(path, own.memberMode(hdr)); err != nil {
		return err
	}
	return os.Chtimes(path, time.Now(), hdr.ModTime)
}

// chownMember gives a member its owner when running as root.
func (h *tarHandler) chownMember(path string, hdr *tar.Header, own tarOwnership) error {
	if !own.root {
		return nil
	}
	uid, gid := own.ids(hdr)
	return os.Lchown(path, uid, gid)
}
