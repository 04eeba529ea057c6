package files

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// maxDiffSize is MAX_FILE_SIZE_FOR_DIFF (ANSIBLE_MAX_DIFF_SIZE): larger
// files are not diffed.
func maxDiffSize() int64 {
	if v := os.Getenv("ANSIBLE_MAX_DIFF_SIZE"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	}
	return 104448
}

// diffData is the diff of an action that replaces destination with the
// local file source (ActionBase._get_diff_data): the current content
// unless the destination is missing, binary or too large, and the
// source's. The after header is the destination for generated content
// and the source path otherwise.
func (a *copyAction) diffData(destination, source string, generated bool) *value.Dict {
	diff := value.NewDict(4)
	limit := maxDiffSize()
	st := pathState(destination)
	switch {
	case st == "absent":
		diff.Set("before", "")
	case st != "directory" && appearsBinary(destination):
		diff.Set("dst_binary", 1)
	default:
		if lst, err := os.Lstat(destination); err == nil && limit > 0 && lst.Size() > limit && lst.Size() != 0 {
			diff.Set("dst_larger", int(limit))
		} else if b, err := os.ReadFile(destination); err == nil {
			diff.Set("before_header", destination)
			diff.Set("before", string(b))
		}
	}
	sst, err := os.Stat(source)
	if err != nil {
		return diff
	}
	if limit > 0 && sst.Size() > limit {
		diff.Set("src_larger", int(limit))
		return diff
	}
	b, err := os.ReadFile(source)
	if err != nil {
		return diff
	}
	if bytes.IndexByte(b, 0) >= 0 {
		diff.Set("src_binary", 1)
		return diff
	}
	header := source
	if generated {
		header = destination
	}
	diff.Set("after_header", header)
	diff.Set("after", string(b))
	return diff
}

// sourceFiles are the entries of a source tree (_walk_dirs): each with
// its path on the controller and its path relative to dest.
type sourceFiles struct {
	files, directories, symlinks []pathPair
}

type pathPair struct{ from, to string }

// walkSourceDirs lists a source directory for copying. Without a
// trailing slash the directory itself is copied (relative paths start
// with its name), with one only its content. With localFollow symlinks
// are copied as what they point to, except links that would loop.
func walkSourceDirs(topdir string, localFollow bool) sourceFiles {
	var out sourceFiles
	base := topdir
	if !hasTrailingSlash(topdir) {
		base = filepath.Dir(base)
	}
	offset := len(base)
	if !hasTrailingSlash(base) {
		offset++
	}
	if isLink(topdir) && !localFollow {
		target, _ := os.Readlink(topdir)
		out.symlinks = []pathPair{{target, filepath.Base(topdir)}}
		return out
	}
	st, err := os.Stat(topdir)
	if err != nil {
		return out
	}
	parents := map[devIno]bool{inodeOf(st): true}
	out.walk(topdir, offset, parents, "", localFollow)
	return out
}

type devIno struct{ dev, ino uint64 }

func (out *sourceFiles) walk(top string, offset int, parents map[devIno]bool, relBase string, follow bool) {
	walkTopDown(top, false, nil, func(dir string, dirs, files []string) []string {
		for _, name := range files {
			p := filepath.Join(dir, name)
			rel := py.Join([]string{relBase, p[offset:]})
			if isLink(p) {
				real := py.Realpath(p)
				if follow && isFile(real) {
					out.files = append(out.files, pathPair{real, rel})
				} else {
					target, _ := os.Readlink(p)
					out.symlinks = append(out.symlinks, pathPair{target, rel})
				}
				continue
			}
			out.files = append(out.files, pathPair{p, rel})
		}
		for _, name := range dirs {
			p := filepath.Join(dir, name)
			rel := py.Join([]string{relBase, p[offset:]})
			if !isLink(p) {
				out.directories = append(out.directories, pathPair{p, rel})
				continue
			}
			target, _ := os.Readlink(p)
			if !follow {
				out.symlinks = append(out.symlinks, pathPair{target, rel})
				continue
			}
			real := py.Realpath(p)
			st, err := os.Stat(real)
			if err != nil || parents[inodeOf(st)] || ancestorLoop(p, parents, inodeOf(st)) {
				out.symlinks = append(out.symlinks, pathPair{target, rel})
				continue
			}
			out.directories = append(out.directories, pathPair{real, rel})
			inner := map[devIno]bool{inodeOf(st): true}
			for k := range parents {
				inner[k] = true
			}
			out.walk(real, len(real)+1, inner, rel, follow)
		}
		return dirs
	})
}

// ancestorLoop reports whether a symlinked directory points to one of the
// directories above the link that are not yet known parents.
func ancestorLoop(link string, parents map[devIno]bool, target devIno) bool {
	dir := filepath.Dir(link)
	for dir != "/" && dir != "." {
		st, err := os.Stat(dir)
		if err != nil {
			return false
		}
		id := inodeOf(st)
		if parents[id] {
			return false
		}
		if id == target {
			return true
		}
		dir = filepath.Dir(dir)
	}
	return false
}
