//go:build linux

package facts

import (
	"syscall"
)

// uname is the kernel's uname(2) answer.
type uname struct{ sysname, nodename, release, version, machine string }

func unameInfo() uname {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return uname{sysname: "Linux"}
	}
	return uname{sysname: utsString(u.Sysname[:]), nodename: utsString(u.Nodename[:]), release: utsString(u.Release[:]),
		version: utsString(u.Version[:]), machine: utsString(u.Machine[:])}
}

// utsString reads a NUL-terminated uname field (int8 or uint8 by
// architecture).
func utsString[T int8 | uint8](b []T) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}

// mountSize is get_mount_size: statvfs figures of a mount point (nil
// when it cannot be read).
func mountSize(path string) map[string]int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return nil
	}
	frsize := int64(st.Frsize)
	if frsize == 0 {
		frsize = int64(st.Bsize)
	}
	return map[string]int64{
		"size_total":      frsize * int64(st.Blocks),
		"size_available":  frsize * int64(st.Bavail),
		"block_size":      int64(st.Bsize),
		"block_total":     int64(st.Blocks),
		"block_available": int64(st.Bavail),
		"block_used":      int64(st.Blocks) - int64(st.Bavail),
		"inode_total":     int64(st.Files),
		"inode_available": int64(st.Ffree),
		"inode_used":      int64(st.Files) - int64(st.Ffree),
	}
}

// sameRoot reports whether / is the root of PID 1 (is_chroot's test);
// ok is false when /proc/1/root cannot be read.
func sameRoot() (same, ok bool) {
	var mine, init syscall.Stat_t
	if syscall.Stat("/", &mine) != nil || syscall.Stat("/proc/1/root/.", &init) != nil {
		return false, false
	}
	return uint64(mine.Ino) == uint64(init.Ino) && uint64(mine.Dev) == uint64(init.Dev), true
}

// rootInode is the inode number of /.
func rootInode() uint64 {
	var st syscall.Stat_t
	if syscall.Stat("/", &st) != nil {
		return 0
	}
	return uint64(st.Ino)
}
