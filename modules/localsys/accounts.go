package localsys

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// The account databases, as the C library's files backend reads them.
const (
	groupFile  = "/etc/group"
	passwdFile = "/etc/passwd"
	shadowFile = "/etc/shadow"
)

// groupEntry is one line of /etc/group (grp.struct_group).
type groupEntry struct {
	name, passwd string
	gid          int
	members      []string
}

// passwdEntry is one line of /etc/passwd (pwd.struct_passwd).
type passwdEntry struct {
	name, passwd       string
	uid, gid           int
	gecos, home, shell string
}

// shadowEntry is one line of /etc/shadow; a number field left empty is
// -1, as getspnam(3) returns it.
type shadowEntry struct {
	name, passwd           string
	min, max, warn, expire int
}

// readColonFile returns the fields of each line of a colon-separated
// database, skipping blank lines and comments.
func readColonFile(path string) [][]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		out = append(out, strings.Split(line, ":"))
	}
	return out
}

// atoiOr parses a numeric field, def when it is empty or not a number.
func atoiOr(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}

// allGroups is grp.getgrall().
func allGroups() []groupEntry {
	var out []groupEntry
	for _, f := range readColonFile(groupFile) {
		if len(f) < 4 {
			continue
		}
		g := groupEntry{name: f[0], passwd: f[1], gid: atoiOr(f[2], -1)}
		if f[3] != "" {
			g.members = strings.Split(f[3], ",")
		}
		out = append(out, g)
	}
	return out
}

// groupByName is grp.getgrnam.
func groupByName(name string) (groupEntry, bool) {
	for _, g := range allGroups() {
		if g.name == name {
			return g, true
		}
	}
	return groupEntry{}, false
}

// groupByGID is grp.getgrgid.
func groupByGID(gid int) (groupEntry, bool) {
	for _, g := range allGroups() {
		if g.gid == gid {
			return g, true
		}
	}
	return groupEntry{}, false
}

// groupByNameOrID is the user module's group lookup: a number is a GID
// first, then any string a name.
func groupByNameOrID(s string) (groupEntry, bool) {
	if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		if g, ok := groupByGID(n); ok {
			return g, true
		}
	}
	return groupByName(s)
}

// userByName is pwd.getpwnam.
func userByName(name string) (passwdEntry, bool) {
	for _, f := range readColonFile(passwdFile) {
		if len(f) < 7 || f[0] != name {
			continue
		}
		return passwdEntry{name: f[0], passwd: f[1], uid: atoiOr(f[2], -1), gid: atoiOr(f[3], -1),
			gecos: f[4], home: f[5], shell: f[6]}, true
	}
	return passwdEntry{}, false
}

// shadowByName is getspnam(3).
func shadowByName(name string) (shadowEntry, bool) {
	for _, f := range readColonFile(shadowFile) {
		if len(f) < 8 || f[0] != name {
			continue
		}
		return shadowEntry{name: f[0], passwd: f[1], min: atoiOr(f[3], -1), max: atoiOr(f[4], -1),
			warn: atoiOr(f[5], -1), expire: atoiOr(f[7], -1)}, true
	}
	return shadowEntry{}, false
}

// localEntryExists is the modules' check for local: true: a line of the
// file starts with "name:".
func localEntryExists(path, name string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, name+":") {
			return true, nil
		}
	}
	return false, nil
}
