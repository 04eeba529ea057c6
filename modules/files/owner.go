package files

import (
	"os"
	"os/user"
	"strconv"
	"strings"
	"syscall"
)

// pyInt is Python's int(s) for a decimal string: surrounding whitespace,
// a sign and underscores between digits are accepted.
func pyInt(s string) (int, bool) {
	s = strings.TrimSpace(s)
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 || body == "" || body[0] == '_' || body[len(body)-1] == '_' || strings.Contains(body, "__") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.ReplaceAll(s, "_", ""))
	return n, err == nil
}

// lookupUID resolves an owner argument: a number, else a user name.
func lookupUID(owner string) (int, bool) {
	if n, ok := pyInt(owner); ok {
		return n, true
	}
	u, err := user.Lookup(owner)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(u.Uid)
	return n, err == nil
}

// lookupGID resolves a group argument: a number, else a group name.
func lookupGID(group string) (int, bool) {
	if n, ok := pyInt(group); ok {
		return n, true
	}
	g, err := user.LookupGroup(group)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(g.Gid)
	return n, err == nil
}

// userName is pwd.getpwuid(uid).pw_name, or "" when there is none.
func userName(uid int) string {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return ""
	}
	return u.Username
}

// groupName is grp.getgrgid(gid).gr_name, or "" when there is none.
func groupName(gid int) string {
	g, err := user.LookupGroupId(strconv.Itoa(gid))
	if err != nil {
		return ""
	}
	return g.Name
}

// ownerOf returns the uid and gid of a path without following a symlink.
func ownerOf(path string) (uid, gid int, err error) {
	st, err := os.Lstat(path)
	if err != nil {
		return 0, 0, err
	}
	sys := st.Sys().(*syscall.Stat_t)
	return int(sys.Uid), int(sys.Gid), nil
}

// statOwner returns the uid and gid recorded in a FileInfo.
func statOwner(st os.FileInfo) (uid, gid int) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(sys.Uid), int(sys.Gid)
	}
	return 0, 0
}
