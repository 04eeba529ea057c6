//go:build unix

package uri

import (
	"io/fs"
	"syscall"
)

// fileOwner returns a file's uid and gid.
func fileOwner(st fs.FileInfo) (int, int) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(s.Uid), int(s.Gid)
	}
	return 0, 0
}
