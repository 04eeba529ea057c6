package files

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// atomicMove replaces dest with src by a rename, as AnsibleModule.atomic_move
// does: with keepDestAttrs an existing dest's owner, mode and times are
// carried over to src first; a new dest gets 0666 less the umask. When the
// rename cannot work (another file system), src is copied to a temporary
// file beside dest, which is then renamed; unsafeWrites allows a plain
// overwrite as the last resort.
func atomicMove(src, dest string, unsafeWrites, keepDestAttrs bool) error {
	destSt, statErr := os.Stat(dest)
	if statErr == nil && keepDestAttrs {
		if err := carryAttributes(src, destSt); err != nil {
			return err
		}
	}
	creating := statErr != nil
	if err := os.Rename(src, dest); err != nil {
		if !renameNeedsCopy(err) {
			return fmt.Errorf("Could not replace %s with %s.", value.Repr(dest), value.Repr(src))
		}
		if err := moveByCopy(src, dest, destSt, unsafeWrites, keepDestAttrs); err != nil {
			return err
		}
	}
	if creating {
		_ = os.Chmod(dest, os.FileMode(0o666&^currentUmask()))
		gid := os.Getegid()
		if dst, err := os.Stat(filepath.Dir(dest)); err == nil && dst.Mode()&os.ModeSetgid != 0 {
			_, gid = statOwner(dst)
		}
		_ = os.Chown(dest, os.Geteuid(), gid)
	}
	return nil
}

// carryAttributes gives src the owner, permission bits and times of the
// file it replaces, then stamps it with the current time.
func carryAttributes(src string, destSt os.FileInfo) error {
	uid, gid := statOwner(destSt)
	if err := os.Chown(src, uid, gid); err != nil && !errors.Is(err, syscall.EPERM) {
		return err
	}
	if err := syscall.Chmod(src, uint32(permOf(destSt))); err != nil && !errors.Is(err, syscall.EPERM) {
		return err
	}
	now := time.Now()
	if err := os.Chtimes(src, now, now); err != nil && !errors.Is(err, syscall.EPERM) {
		return err
	}
	return nil
}

// renameNeedsCopy reports the rename errors atomic_move works around.
func renameNeedsCopy(err error) bool {
	for _, e := range []syscall.Errno{syscall.EPERM, syscall.EXDEV, syscall.EACCES, syscall.ETXTBSY, syscall.EBUSY} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// moveByCopy is atomic_move's fallback: copy to a temporary file in dest's
// directory, then rename that.
func moveByCopy(src, dest string, destSt os.FileInfo, unsafeWrites, keepDestAttrs bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".ansible_tmp*"+filepath.Base(dest))
	if err != nil {
		if unsafeWrites {
			return unsafeWrite(src, dest)
		}
		return fmt.Errorf("The destination directory %s is not writable by the current user.", value.Repr(filepath.Dir(dest)))
	}
	tmpName := tmp.Name()
	tmp.Close()
	defer os.Remove(tmpName)
	if err := copyFileContents(src, tmpName); err != nil {
		if unsafeWrites {
			return unsafeWrite(src, dest)
		}
		return fmt.Errorf("Failed to replace %s with %s.", value.Repr(dest), value.Repr(src))
	}
	_ = os.Remove(src)
	if keepDestAttrs && destSt != nil {
		uid, gid := statOwner(destSt)
		_ = os.Chown(tmpName, uid, gid)
		_ = syscall.Chmod(tmpName, uint32(permOf(destSt)))
	}
	if err := os.Rename(tmpName, dest); err != nil {
		if unsafeWrites && errors.Is(err, syscall.EBUSY) {
			return unsafeWrite(tmpName, dest)
		}
		return fmt.Errorf("Unable to make %s into to %s, failed final rename from %s.", value.Repr(src), value.Repr(dest), value.Repr(tmpName))
	}
	return nil
}

// unsafeWrite overwrites dest in place with src's content.
func unsafeWrite(src, dest string) error {
	if err := copyFileContents(src, dest); err != nil {
		return fmt.Errorf("Could not write data to file %s from %s.", value.Repr(dest), value.Repr(src))
	}
	return nil
}

// copyFileContents is shutil.copyfile: dest is truncated or created.
func copyFileContents(src, dest string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// writeTempBeside writes data to a new temporary file in dir (mode 0600,
// as mkstemp makes it) and returns its name.
func writeTempBeside(dir string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, ".ansible_tmp")
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// backupLocal copies fn to fn.PID.YYYY-MM-DD@HH:MM:SS~ keeping its mode,
// times and owner (backup_local); in check mode only the name is made.
// A missing fn has no backup: the name is "".
func backupLocal(fn string, check bool) (string, error) {
	if !exists(fn) {
		return "", nil
	}
	dest := fmt.Sprintf("%s.%d.%s", fn, os.Getpid(), time.Now().Format("2006-01-02@15:04:05~"))
	if check {
		return dest, nil
	}
	if err := preservedCopy(fn, dest); err != nil {
		return "", fmt.Errorf("Could not make backup of %s to %s.", value.Repr(fn), value.Repr(dest))
	}
	return dest, nil
}

// preservedCopy is shutil.copy2 plus the owner and lsattr attributes of
// src (AnsibleModule.preserved_copy).
func preservedCopy(src, dest string) error {
	if err := copyFileStat(src, dest); err != nil {
		return err
	}
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	uid, gid := statOwner(st)
	if err := os.Chown(dest, uid, gid); err != nil && !errors.Is(err, syscall.EPERM) {
		return err
	}
	if a := readAttributes(src, false); a.ok && a.flags != "" {
		if d := readAttributes(dest, false); d.flags != a.flags {
			_ = setAttributes(dest, "="+a.flags)
		}
	}
	return nil
}

// atime is a FileInfo's access time.
func atime(st os.FileInfo) time.Time {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return time.Unix(sys.Atim.Sec, sys.Atim.Nsec)
	}
	return st.ModTime()
}
