package files

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ensureAbsent removes a file, link or directory tree.
func (r *fileRun) ensureAbsent() (*value.Dict, error) {
	prev := pathState(r.path)
	if prev == "absent" {
		return value.DictOf("path", r.path, "changed", false, "state", "absent"), nil
	}
	diff := initialDiff(r.path, "absent", prev)
	if !r.check {
		if prev == "directory" {
			if err := os.RemoveAll(r.path); err != nil {
				return nil, module.Fail("rmtree failed: " + pyOSError(err))
			}
		} else if err := os.Remove(r.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, failCause("Unlinking failed.", pyOSErrorBytes(err), "path", r.path)
		}
	}
	return value.DictOf("path", r.path, "changed", true, "diff", diff, "state", "absent"), nil
}

// touch creates an empty file when there is none, then applies the
// attributes and times (touch defaults both times to now).
func (r *fileRun) touch() (*value.Dict, error) {
	prev := pathState(r.path)
	changed := false
	res := value.DictOf("dest", r.path)
	if prev == "absent" {
		if r.check {
			res.Set("changed", true)
			return res, nil
		}
		f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			return nil, failCause("Error, could not touch target.", pyOSErrorBytes(err), "path", r.path)
		}
		f.Close()
		changed = true
	}
	diff := initialDiff(r.path, "touch", prev)
	changed, err := r.applyAttributes(r.fileArgs(""), changed, diff)
	if err != nil {
		if prev == "absent" {
			os.Remove(r.path)
		}
		return nil, err
	}
	res.Set("changed", changed)
	res.Set("diff", diff)
	return res, nil
}

// ensureFile applies attributes to an existing file; it never creates one.
func (r *fileRun) ensureFile() (*value.Dict, error) {
	path := r.path
	prev := pathState(path)
	fa := r.fileArgs("")
	if prev != "file" && r.follow && prev == "link" {
		real := py.Realpath(path)
		path = real
		prev = pathState(path)
		fa.path = path
	}
	if prev != "file" && prev != "hard" {
		return nil, module.Fail("file ("+path+") is "+prev+", cannot continue", "path", path, "state", prev)
	}
	diff := initialDiff(path, "file", prev)
	changed, err := r.applyAttributes(fa, false, diff)
	if err != nil {
		return nil, err
	}
	return value.DictOf("path", path, "changed", changed, "diff", diff), nil
}

// ensureDirectory creates a directory and its missing parents, each with
// the attributes, or applies them (recursively with recurse) to an
// existing one.
func (r *fileRun) ensureDirectory() (*value.Dict, error) {
	path := r.path
	prev := pathState(path)
	fa := r.fileArgs("")
	if r.follow && prev == "link" {
		path = py.Realpath(path)
		fa.path = path
		prev = pathState(path)
	}
	diff := initialDiff(path, "directory", prev)
	if prev == "absent" {
		if r.check {
			return value.DictOf("path", path, "changed", true, "diff", diff), nil
		}
		changed, err := r.makeDirectories(path, fa, diff)
		if err != nil {
			return nil, err
		}
		return value.DictOf("path", path, "changed", changed, "diff", diff), nil
	}
	if prev != "directory" {
		return nil, module.Fail(path+" already exists as a "+prev, "path", path)
	}
	changed, err := r.applyAttributes(fa, false, diff)
	if err != nil {
		return nil, err
	}
	if r.recurse {
		c, err := r.recursiveAttributes(path, fa)
		if err != nil {
			return nil, err
		}
		changed = changed || c
	}
	return value.DictOf("path", path, "changed", changed, "diff", diff), nil
}

// makeDirectories creates each missing component of path, giving each
// new one the attributes.
func (r *fileRun) makeDirectories(path string, fa fileArgs, diff *value.Dict) (bool, error) {
	changed := false
	cur := ""
	for _, name := range strings.Split(strings.Trim(path, "/"), "/") {
		cur = cur + "/" + name
		if !filepath.IsAbs(path) {
			cur = strings.TrimLeft(cur, "/")
		}
		if exists(cur) {
			continue
		}
		if err := os.Mkdir(cur, 0o777); err != nil && !(errors.Is(err, os.ErrExist) && isDir(cur)) {
			return changed, module.Fail("There was an issue creating "+cur+" as requested: "+pyOSError(err), "path", path)
		}
		changed = true
		sub := fa
		sub.path = cur
		var err error
		if changed, err = r.setFSAttributes(sub, changed, diff); err != nil {
			return changed, err
		}
		c, err := r.updateTimestamps(fa.path, diff)
		if err != nil {
			return changed, err
		}
		changed = changed || c
	}
	return changed, nil
}

// recursiveAttributes applies the attributes and times to everything
// under dir (recursive_set_attributes); with follow, symlinked
// directories are entered and link targets get them too.
func (r *fileRun) recursiveAttributes(dir string, fa fileArgs) (bool, error) {
	changed := false
	var firstErr error
	apply := func(p string) {
		if firstErr != nil {
			return
		}
		sub := fa
		sub.path = p
		c, err := r.applyAttributes(sub, changed, nil)
		changed = changed || c
		firstErr = err
	}
	walkTopDown(dir, false, nil, func(root string, dirs, files []string) []string {
		for _, name := range append(append([]string(nil), dirs...), files...) {
			p := filepath.Join(root, name)
			apply(p)
			if !isLink(p) || !r.follow {
				continue
			}
			target, _ := os.Readlink(p)
			tp := filepath.Join(root, target)
			if !exists(tp) {
				continue
			}
			if isDir(tp) {
				c, err := r.recursiveAttributes(tp, fa)
				changed = changed || c
				if err != nil && firstErr == nil {
					firstErr = err
				}
			}
			apply(tp)
		}
		return dirs
	})
	return changed, firstErr
}

// applyAttributes sets the file common attributes and the requested times
// on fa.path, the way every state ends.
func (r *fileRun) applyAttributes(fa fileArgs, changed bool, diff *value.Dict) (bool, error) {
	changed, err := r.setFSAttributes(fa, changed, diff)
	if err != nil {
		return changed, err
	}
	c, err := r.updateTimestamps(fa.path, diff)
	return changed || c, err
}
