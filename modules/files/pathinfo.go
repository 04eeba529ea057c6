package files

import (
	"os"
	"strconv"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// addPathInfo adds what AnsibleModule.add_path_info adds to every result
// that names an existing path under `path` (or else `dest`): its owner,
// group, mode, kind and size.
func addPathInfo(res *value.Dict) {
	p, ok := res.Get("path")
	if !ok {
		p, ok = res.Get("dest")
	}
	path, isStr := p.(string)
	if !ok || !isStr || !exists(path) {
		return
	}
	st, err := os.Lstat(path)
	if err != nil {
		return
	}
	uid, gid := statOwner(st)
	res.Set("uid", uid)
	res.Set("gid", gid)
	res.Set("owner", nameOr(userName(uid), uid))
	res.Set("group", nameOr(groupName(gid), gid))
	res.Set("mode", octalMode(permOf(st)))
	res.Set("state", pathState(path))
	res.Set("size", int(st.Size()))
}

func nameOr(name string, id int) string {
	if name == "" {
		return strconv.Itoa(id)
	}
	return name
}

// pathState is the file module's get_state: absent, link, directory,
// hard (a file with more than one link) or file.
func pathState(path string) string {
	lst, err := os.Lstat(path)
	switch {
	case err != nil:
		return "absent"
	case lst.Mode()&os.ModeSymlink != 0:
		return "link"
	}
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return "absent"
	case st.IsDir():
		return "directory"
	case nlink(st) > 1:
		return "hard"
	}
	return "file"
}

func nlink(st os.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Nlink)
	}
	return 1
}

// inodeOf identifies a file by device and inode.
func inodeOf(st os.FileInfo) devIno {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return devIno{uint64(sys.Dev), sys.Ino}
	}
	return devIno{}
}
