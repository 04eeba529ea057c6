package files

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/py"
)

// dircmpIgnored are the names filecmp.dircmp skips by default.
var dircmpIgnored = []string{"RCS", "CVS", "tags", ".git", ".hg", ".bzr", "_darcs", "__pycache__"}

// copyDirectoryTree copies a remote_src directory (copy_directory): the
// whole tree when dest does not exist, else the files that differ, those
// only in src, and the common subdirectories, recursively.
func (c *copyRun) copyDirectoryTree() (bool, error) {
	src, dest := c.p.Str("src"), c.p.Str("dest")
	if !hasTrailingSlash(src) {
		dest = py.Join([]string{dest, filepath.Base(src)})
		src += "/"
	}
	if !exists(dest) {
		if !c.check {
			if err := copyTree(src, dest, c.followLinks()); err != nil {
				return false, err
			}
			if _, err := c.chownRecursive(dest); err != nil {
				return false, err
			}
		}
		return true, nil
	}
	return c.syncDirectories(src, dest, true)
}

// followLinks is local_follow for the copy module: unset means copy
// symlinks as symlinks.
func (c *copyRun) followLinks() bool { return c.p.Bool("local_follow") }

// syncDirectories copies what differs from src into the existing dest;
// top also fixes ownership of the whole tree at the end.
func (c *copyRun) syncDirectories(src, dest string, top bool) (bool, error) {
	cmp := compareDirs(src, dest)
	changed := len(cmp.diffFiles) > 0 || len(cmp.leftOnly) > 0
	if !c.check {
		for _, name := range cmp.diffFiles {
			if err := c.copyDiffFile(filepath.Join(src, name), filepath.Join(dest, name)); err != nil {
				return changed, err
			}
		}
		for _, name := range cmp.leftOnly {
			if err := c.copyLeftOnly(filepath.Join(src, name), filepath.Join(dest, name)); err != nil {
				return changed, err
			}
		}
	}
	for _, name := range cmp.commonDirs {
		ch, err := c.syncDirectories(filepath.Join(src, name), filepath.Join(dest, name), false)
		if err != nil {
			return changed, err
		}
		changed = changed || ch
	}
	if top {
		ch, err := c.chownRecursive(dest)
		if err != nil {
			return changed, err
		}
		changed = changed || ch
	}
	return changed, nil
}

func (c *copyRun) copyDiffFile(src, dest string) error {
	explicitNoFollow := c.p.IsSet("local_follow") && !c.followLinks()
	if isLink(src) && explicitNoFollow {
		target, _ := os.Readlink(src)
		if err := os.Symlink(target, dest); err != nil {
			return err
		}
	} else {
		if err := copyFileContents(src, dest); err != nil {
			return err
		}
		if st, err := os.Stat(src); err == nil {
			_ = syscall.Chmod(dest, uint32(permOf(st)))
		}
	}
	_, err := c.chownPath(dest)
	return err
}

func (c *copyRun) copyLeftOnly(src, dest string) error {
	follow := c.followLinks()
	link := isLink(src)
	switch {
	case link && !follow && (isDir(src) || isFile(src)) && c.p.IsSet("local_follow"):
		target, _ := os.Readlink(src)
		return os.Symlink(target, dest)
	case isDir(src):
		if err := copyTree(src, dest, !follow); err != nil {
			return err
		}
		_, err := c.chownRecursive(dest)
		return err
	case isFile(src):
		if err := copyFileContents(src, dest); err != nil {
			return err
		}
		if st, err := os.Stat(src); err == nil && !link {
			_ = syscall.Chmod(dest, uint32(permOf(st)))
		}
		_, err := c.chownPath(dest)
		return err
	}
	return nil
}

// chownPath applies owner and group to one path (chown_path).
func (c *copyRun) chownPath(path string) (bool, error) {
	changed, err := c.setOwner(path, c.optStr("owner"), false, nil)
	if err != nil {
		return changed, err
	}
	return c.setGroup(path, c.optStr("group"), changed, nil)
}

// chownRecursive applies owner and group to a tree (chown_recursive).
func (c *copyRun) chownRecursive(root string) (bool, error) {
	changed := false
	var firstErr error
	apply := func(p string) {
		if firstErr == nil {
			ch, err := c.chownPath(p)
			changed = changed || ch
			firstErr = err
		}
	}
	walkTopDown(root, false, nil, func(dir string, dirs, files []string) []string {
		apply(dir)
		for _, d := range dirs {
			apply(filepath.Join(dir, d))
		}
		for _, f := range files {
			apply(filepath.Join(dir, f))
		}
		return dirs
	})
	return changed, firstErr
}

// dirComparison is what filecmp.dircmp finds between two directories.
type dirComparison struct {
	leftOnly, commonDirs, diffFiles []string
}

// compareDirs compares the entries of two directories as filecmp.dircmp
// does: the names only in a, the directories in both, and the common
// files whose content differs.
func compareDirs(a, b string) dirComparison {
	var out dirComparison
	right := map[string]bool{}
	for _, n := range listNames(b) {
		right[n] = true
	}
	for _, n := range listNames(a) {
		if !right[n] {
			out.leftOnly = append(out.leftOnly, n)
			continue
		}
		sa, errA := os.Stat(filepath.Join(a, n))
		sb, errB := os.Stat(filepath.Join(b, n))
		switch {
		case errA != nil || errB != nil:
		case sa.IsDir() && sb.IsDir():
			out.commonDirs = append(out.commonDirs, n)
		case sa.Mode().IsRegular() && sb.Mode().IsRegular():
			if !sameContent(filepath.Join(a, n), filepath.Join(b, n), sa, sb) {
				out.diffFiles = append(out.diffFiles, n)
			}
		}
	}
	return out
}

// listNames lists a directory without dircmp's ignored names, sorted as
// dircmp sorts them.
func listNames(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if !slices.Contains(dircmpIgnored, e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// sameContent is filecmp.cmp with shallow=True: equal stat signatures
// (type, size, mtime) mean equal, different sizes mean different, else
// the bytes decide.
func sameContent(a, b string, sa, sb os.FileInfo) bool {
	if sa.Mode().Type() == sb.Mode().Type() && sa.Size() == sb.Size() && sa.ModTime().Equal(sb.ModTime()) {
		return true
	}
	if sa.Size() != sb.Size() {
		return false
	}
	da, errA := os.ReadFile(a)
	db, errB := os.ReadFile(b)
	return errA == nil && errB == nil && bytes.Equal(da, db)
}

// copyTree is shutil.copytree: directories with their mode and times,
// files with copy2, symlinks kept as symlinks when keepLinks is set.
func copyTree(src, dest string, keepLinks bool) error {
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dest, 0o777); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		s, d := filepath.Join(src, e.Name()), filepath.Join(dest, e.Name())
		switch {
		case isLink(s) && keepLinks:
			target, _ := os.Readlink(s)
			err = os.Symlink(target, d)
		case isDir(s):
			err = copyTree(s, d, keepLinks)
		default:
			err = copyFileStat(s, d)
		}
		if err != nil {
			return err
		}
	}
	_ = syscall.Chmod(dest, uint32(permOf(st)))
	return os.Chtimes(dest, atime(st), st.ModTime())
}

// copyFileStat is shutil.copy2: content, permission bits and times.
func copyFileStat(src, dest string) error {
	if err := copyFileContents(src, dest); err != nil {
		return err
	}
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := syscall.Chmod(dest, uint32(permOf(st))); err != nil {
		return err
	}
	return os.Chtimes(dest, atime(st), st.ModTime())
}

func hasTrailingSlash(p string) bool { return len(p) > 0 && p[len(p)-1] == '/' }
