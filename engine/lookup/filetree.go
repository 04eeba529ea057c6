package lookup

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// treeLookups returns community.general's filetree lookup.
func treeLookups() template.Library {
	return template.Library{Collection: "community.general", Lookups: map[string]template.LookupFunc{
		"filetree": lookupFiletree,
	}}
}

// lookupFiletree walks the directory each term names, found as
// path_dwim_relative finds it under files/ of the role (role_path) or the
// play's directory, and lists every entry below it: its root, its path
// relative to the root, state (file, directory or link), src (a file's
// full path, a link's target), ownership, mode, size and times. A path
// already listed from an earlier term is skipped, so the first tree wins.
func lookupFiletree(c *template.Ctx, terms []any, _ *template.Args) ([]any, error) {
	basedir := c.SearchPath().Base
	if v, err := c.Var("role_path"); err == nil {
		if s, ok := v.(string); ok {
			basedir = s
		}
	}
	out := []any{}
	seen := map[string]bool{}
	for _, t := range terms {
		term, ok := t.(string)
		if !ok {
			return nil, template.TypeErrorf("expected str, bytes or os.PathLike object, not %s", value.TypeName(t))
		}
		root := py.Join([]string{search.DwimRelative(basedir, "files", py.Dirname(term), false, c.SearchPath().Base), py.Basename(term)})
		walkTree(root, ".", func(rel string) {
			if seen[rel] {
				return
			}
			seen[rel] = true
			if props := fileProps(c, root, rel); props != nil {
				out = append(out, props)
			}
		})
	}
	return out, nil
}

// walkTree calls visit with the path relative to root of every entry
// below root's directory dir, as os.walk(topdown=True) lists them: a
// directory's subdirectories, then its other entries, in the order the
// directory gives them, then the walk of each subdirectory that is not a
// link. An unreadable directory is skipped, as os.walk skips it.
func walkTree(root, dir string, visit func(rel string)) {
	f, err := os.Open(filepath.Join(root, dir))
	if err != nil {
		return
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return
	}
	var dirs, files []string
	for _, e := range entries {
		rel := py.Normpath(py.Join([]string{dir, e.Name()}))
		if st, err := os.Stat(filepath.Join(root, rel)); err == nil && st.IsDir() {
			dirs = append(dirs, rel)
		} else {
			files = append(files, rel)
		}
	}
	for _, rel := range append(append([]string{}, dirs...), files...) {
		visit(rel)
	}
	for _, rel := range dirs {
		if st, err := os.Lstat(filepath.Join(root, rel)); err == nil && st.Mode()&os.ModeSymlink == 0 {
			walkTree(root, rel, visit)
		}
	}
}

// fileProps is filetree's file_props: the entry rel below root, or nil
// (with filetree's warning) for one that cannot be read or is neither a
// file, a directory nor a link.
func fileProps(c *template.Ctx, root, rel string) *value.Dict {
	abspath := py.Join([]string{root, rel})
	st, err := os.Lstat(abspath)
	if err != nil {
		c.Warn(diag.Warn(fmt.Sprintf("filetree: Error using stat() on path %s (%s)", abspath, py.OSErrorText(err, abspath)), nil))
		return nil
	}
	props := value.DictOf("root", root, "path", rel)
	switch mode := st.Mode(); {
	case mode&os.ModeSymlink != 0:
		target, _ := os.Readlink(abspath)
		props.Set("state", "link")
		props.Set("src", target)
	case mode.IsDir():
		props.Set("state", "directory")
	case mode.IsRegular():
		props.Set("state", "file")
		props.Set("src", abspath)
	default:
		c.Warn(diag.Warn("filetree: Error file type of "+abspath+" is not supported", nil))
		return nil
	}
	sys, _ := st.Sys().(*syscall.Stat_t)
	if sys == nil {
		return props
	}
	uid, gid := int(sys.Uid), int(sys.Gid)
	props.Set("uid", uid)
	props.Set("gid", gid)
	var owner, group any = uid, gid
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		owner = u.Username
	}
	if g, err := user.LookupGroupId(strconv.Itoa(gid)); err == nil {
		group = g.Name
	}
	props.Set("owner", owner)
	props.Set("group", group)
	props.Set("mode", fmt.Sprintf("0%03o", uint32(st.Mode().Perm())|setBits(st.Mode())))
	props.Set("size", int(sys.Size))
	props.Set("mtime", float64(sys.Mtim.Sec)+float64(sys.Mtim.Nsec)/1e9)
	props.Set("ctime", float64(sys.Ctim.Sec)+float64(sys.Ctim.Nsec)/1e9)
	return props
}

// setBits are the setuid, setgid and sticky bits of mode as stat's
// S_IMODE gives them.
func setBits(mode os.FileMode) uint32 {
	var b uint32
	if mode&os.ModeSetuid != 0 {
		b |= 0o4000
	}
	if mode&os.ModeSetgid != 0 {
		b |= 0o2000
	}
	if mode&os.ModeSticky != 0 {
		b |= 0o1000
	}
	return b
}
