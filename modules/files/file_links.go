package files

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ensureSymlink creates or retargets a symlink (ensure_symlink).
func (r *fileRun) ensureSymlink() (*value.Dict, error) {
	path := r.path
	prev := pathState(path)
	src := r.src
	if src == nil && r.follow && exists(path) {
		if t, err := os.Readlink(path); err == nil {
			src = &t
		}
	}
	relDir := filepath.Dir(path)
	if !isLink(path) && isDir(path) {
		relDir = path
	}
	if src != nil && !r.force {
		absrc := py.Join([]string{relDir, *src})
		if !exists(absrc) {
			return nil, module.Fail("src file does not exist, use 'force=yes' if you really want to create the link: "+absrc,
				"path", path, "src", *src)
		}
	}
	if err := r.symlinkAllowed(path, prev); err != nil {
		return nil, err
	}
	diff := initialDiff(path, "link", prev)
	changed := false
	switch prev {
	case "hard", "file", "directory", "absent":
		if src == nil {
			return nil, module.Fail("src is required for creating new symlinks")
		}
		changed = true
	case "link":
		if src != nil {
			if old, _ := os.Readlink(path); old != *src {
				recordDiff(diff, "src", old, *src)
				changed = true
			}
		}
	}
	if changed && !r.check {
		if err := replaceWithLink(path, prev, func(at string) error { return os.Symlink(*src, at) }); err != nil {
			return nil, err
		}
	}
	res := value.DictOf("dest", path, "src", ptrValue(src), "changed", changed, "diff", diff)
	if r.check && !exists(path) {
		return res, nil
	}
	fa := r.fileArgs("")
	if r.follow && isLink(path) && !exists(fa.path) {
		r.warn("Cannot set fs attributes on a non-existent symlink target. follow should be set to False to avoid this.")
		return res, nil
	}
	return r.finishLink(res, fa, changed, diff)
}

// symlinkAllowed refuses to replace a directory that is not empty, or a
// file or directory without force.
func (r *fileRun) symlinkAllowed(path, prev string) error {
	switch {
	case prev == "directory" && !r.force:
		return module.Fail(fmt.Sprintf("refusing to convert from %s to symlink for %s", prev, path), "path", path)
	case prev == "directory":
		if entries, err := os.ReadDir(path); err == nil && len(entries) > 0 {
			return module.Fail(fmt.Sprintf("the directory %s is not empty, refusing to convert it", path), "path", path)
		}
	case (prev == "file" || prev == "hard") && !r.force:
		return module.Fail(fmt.Sprintf("refusing to convert from %s to symlink for %s", prev, path), "path", path)
	}
	return nil
}

// finishLink applies the attributes and times once the link is in place.
func (r *fileRun) finishLink(res *value.Dict, fa fileArgs, changed bool, diff *value.Dict) (*value.Dict, error) {
	changed, err := r.applyAttributes(fa, changed, diff)
	if err != nil {
		return nil, err
	}
	res.Set("changed", changed)
	return res, nil
}

// replaceWithLink makes a link at path with mk: directly when nothing is
// there, else at a temporary name that is renamed over path (a directory
// is removed first).
func replaceWithLink(path, prev string, mk func(at string) error) error {
	if prev == "absent" {
		if err := mk(path); err != nil {
			return module.Fail("Error while linking: "+pyOSError(err), "path", path)
		}
		return nil
	}
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%d.%s.tmp", os.Getpid(), value.FormatFloat(unixSeconds(time.Now()))))
	err := func() error {
		if prev == "directory" {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
		if err := mk(tmp); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	}()
	if err != nil {
		if lexists(tmp) {
			os.Remove(tmp)
		}
		return module.Fail("Error while replacing: "+pyOSError(err), "path", path)
	}
	return nil
}

// ensureHardlink creates a hard link to src (ensure_hardlink).
func (r *fileRun) ensureHardlink() (*value.Dict, error) {
	path := r.path
	prev := pathState(path)
	fa := r.fileArgs("")
	src := r.src
	if prev != "hard" && src == nil {
		return nil, module.Fail("src is required for creating new hardlinks")
	}
	if src != nil && !exists(*src) {
		return nil, module.Fail("src does not exist", "dest", path, "src", *src)
	}
	diff := initialDiff(path, "hard", prev)
	changed, err := r.hardlinkChange(path, prev, src, diff)
	if err != nil || changed == nil {
		return value.DictOf("path", path, "changed", false), err
	}
	if *changed && !r.check {
		err := replaceWithLink(path, prev, func(at string) error {
			from := *src
			if prev == "absent" && r.follow && isLink(from) {
				from, _ = os.Readlink(from)
			}
			return os.Link(from, at)
		})
		if err != nil {
			return nil, err
		}
	}
	res := value.DictOf("dest", path, "src", ptrValue(src), "changed", *changed, "diff", diff)
	if r.check && !exists(path) {
		return res, nil
	}
	return r.finishLink(res, fa, *changed, diff)
}

// hardlinkChange decides whether the hard link must be made; nil means
// path already is src (the directory case returns early in ansible-core).
func (r *fileRun) hardlinkChange(path, prev string, src *string, diff *value.Dict) (*bool, error) {
	yes, no := true, false
	switch prev {
	case "absent":
		return &yes, nil
	case "link":
		if old, _ := os.Readlink(path); src != nil && old != *src {
			recordDiff(diff, "src", old, *src)
			return &yes, nil
		}
		return &no, nil
	case "hard":
		if src != nil && !sameInode(path, *src) {
			if !r.force {
				return nil, module.Fail("Cannot link, different hard link exists at destination", "dest", path, "src", *src)
			}
			return &yes, nil
		}
		return &no, nil
	case "file":
		if !r.force {
			return nil, module.Fail("Cannot link, file exists at destination", "dest", path, "src", ptrValue(src))
		}
		return &yes, nil
	}
	// A directory: ansible-core compares inodes and refuses without force.
	if src != nil && sameInode(path, *src) {
		return nil, nil
	}
	if !r.force {
		return nil, module.Fail("Cannot link: different hard link exists at destination", "dest", path, "src", ptrValue(src))
	}
	return &yes, nil
}

func sameInode(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// ptrValue is a *string as a result value: None when nil.
func ptrValue(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
