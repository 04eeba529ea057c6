package files

import (
	"os"
	"path/filepath"
)

// walkTopDown walks a tree as Python's os.walk(top, topdown=True) does:
// for each directory, fn gets the names of its subdirectories (symlinks
// to directories included) and of its other entries, in the order the
// file system lists them, and returns the subdirectories to descend
// into. Symlinked directories are entered only with followLinks. A
// directory that cannot be read is passed to onErr (nil: ignored) and
// skipped.
func walkTopDown(top string, followLinks bool, onErr func(error), fn func(dir string, dirs, files []string) []string) {
	f, err := os.Open(top)
	if err != nil {
		if onErr != nil {
			onErr(err)
		}
		return
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		if onErr != nil {
			onErr(err)
		}
		return
	}
	var dirs, files []string
	for _, e := range entries {
		if entryIsDir(top, e) {
			dirs = append(dirs, e.Name())
		} else {
			files = append(files, e.Name())
		}
	}
	for _, d := range fn(top, dirs, files) {
		p := filepath.Join(top, d)
		if followLinks || !isLink(p) {
			walkTopDown(p, followLinks, onErr, fn)
		}
	}
}

// entryIsDir is os.DirEntry.is_dir(): true for a directory or a symlink
// to one.
func entryIsDir(dir string, e os.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&os.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, e.Name()))
	return err == nil && st.IsDir()
}
