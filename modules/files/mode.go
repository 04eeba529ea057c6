package files

import (
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Permission bits, as Python's stat module names them.
const (
	permBits = 0o7777
	sISUID   = 0o4000
	sISGID   = 0o2000
	sISVTX   = 0o1000
	sIRWXU   = 0o700
	sIRWXG   = 0o070
	sIRWXO   = 0o007
	sIXANY   = 0o111
)

// resolveMode turns a `mode` argument into permission bits for the file
// described by st, as set_mode_if_different does: an int is taken as it
// is, a string is octal when int(mode, 8) accepts it and a chmod-style
// symbolic mode otherwise. The error is the module's fail_json.
func resolveMode(mode any, st fs.FileInfo, path string) (int64, error) {
	switch x := mode.(type) {
	case int:
		return int64(x), nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case *big.Int:
		if x.IsInt64() {
			return x.Int64(), nil
		}
		return 0, module.Fail("chmod failed", "path", path, "details", "Python int too large to convert to C int")
	case string:
		if n, ok := pyIntBase8(x); ok {
			return n, nil
		}
		n, err := symbolicMode(st, x)
		if err != nil {
			return 0, module.Fail("mode must be in octal or symbolic form", "path", path, "details", err.Error())
		}
		if n != n&permBits {
			return 0, module.Fail("Invalid mode supplied, only permission info is allowed", "path", path, "details", n)
		}
		return n, nil
	}
	return 0, module.Fail("mode must be in octal or symbolic form", "path", path,
		"details", fmt.Sprintf("'%s' object has no attribute 'split'", value.TypeName(mode)))
}

// pyIntBase8 is Python's int(s, 8): surrounding whitespace, a sign, an
// optional 0o prefix and underscores between digits are accepted.
func pyIntBase8(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O') {
		s = s[2:]
		s = strings.TrimPrefix(s, "_")
	}
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 8, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// symbolicMode applies a chmod-style symbolic mode ("u=rw,g+X,o-w") to
// the current permissions of st, as _symbolic_mode_to_octal does.
func symbolicMode(st fs.FileInfo, symbolic string) (int64, error) {
	cur := int64(unixMode(st) & permBits)
	isDir := st != nil && st.IsDir()
	for _, clause := range strings.Split(symbolic, ",") {
		perms, opers := splitModeOperators(clause)
		users := perms[0]
		perms = perms[1:]
		useUmask := users == ""
		if users == "a" || users == "" {
			users = "ugo"
		}
		if strings.Trim(users, "ugo") != "" {
			return 0, errors.New("bad symbolic permission for mode: " + clause)
		}
		for i, p := range perms {
			if strings.Trim(p, "rwxXstugo") != "" {
				return 0, errors.New("bad symbolic permission for mode: " + clause)
			}
			for _, u := range users {
				bits := symbolicPermBits(isDir, byte(u), p, useUmask, cur)
				cur = applyModeOperator(byte(u), opers[i], bits, cur)
			}
		}
	}
	return cur, nil
}

// splitModeOperators splits a clause on + - = as re.split does and
// returns the pieces and the operators between them.
func splitModeOperators(clause string) ([]string, []byte) {
	var pieces []string
	var opers []byte
	start := 0
	for i := 0; i < len(clause); i++ {
		if c := clause[i]; c == '+' || c == '-' || c == '=' {
			pieces = append(pieces, clause[start:i])
			opers = append(opers, c)
			start = i + 1
		}
	}
	return append(pieces, clause[start:]), opers
}

func applyModeOperator(user, op byte, bits, cur int64) int64 {
	switch op {
	case '=':
		mask := map[byte]int64{'u': sIRWXU | sISUID, 'g': sIRWXG | sISGID, 'o': sIRWXO | sISVTX}[user]
		return (cur & (mask ^ permBits)) | bits
	case '+':
		return cur | bits
	}
	return cur - (cur & bits)
}

// symbolicPermBits are the bits that perms ("rwX", "g", ...) stand for
// for one of u, g, o, given the mode being built.
func symbolicPermBits(isDir bool, user byte, perms string, useUmask bool, prev int64) int64 {
	revUmask := int64(permBits)
	if useUmask {
		revUmask = int64(currentUmask()) ^ permBits
	}
	shift := map[byte]uint{'u': 6, 'g': 3, 'o': 0}[user]
	var out int64
	for i := 0; i < len(perms); i++ {
		switch perms[i] {
		case 'r':
			out |= revUmask & (4 << shift)
		case 'w':
			out |= revUmask & (2 << shift)
		case 'x':
			out |= revUmask & (1 << shift)
		case 'X':
			if isDir || prev&sIXANY > 0 {
				out |= 1 << shift
			}
		case 's':
			out |= map[byte]int64{'u': sISUID, 'g': sISGID}[user]
		case 't':
			if user == 'o' {
				out |= sISVTX
			}
		case 'u', 'g', 'o':
			src := map[byte]uint{'u': 6, 'g': 3, 'o': 0}[perms[i]]
			out |= ((prev >> src) & 7) << shift
		}
	}
	return out
}

// unixMode is st's mode in the st_mode encoding (permission bits plus
// setuid, setgid and sticky at their Unix positions).
func unixMode(st fs.FileInfo) uint32 {
	if st == nil {
		return 0
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return sys.Mode
	}
	m := uint32(st.Mode().Perm())
	if st.Mode()&fs.ModeSetuid != 0 {
		m |= sISUID
	}
	if st.Mode()&fs.ModeSetgid != 0 {
		m |= sISGID
	}
	if st.Mode()&fs.ModeSticky != 0 {
		m |= sISVTX
	}
	return m
}

// permOf is stat.S_IMODE of st: its permission bits with setuid, setgid
// and sticky.
func permOf(st fs.FileInfo) int64 { return int64(unixMode(st) & permBits) }

// octalMode formats permission bits as '0%03o'.
func octalMode(m int64) string { return fmt.Sprintf("0%03o", m) }

// currentUmask reads the process umask without changing it (Go runs
// modules concurrently, so the umask(0)/umask(old) dance would race).
func currentUmask() int {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if n, err := strconv.ParseInt(strings.TrimSpace(v), 8, 32); err == nil {
					return int(n)
				}
			}
		}
	}
	old := syscall.Umask(0)
	syscall.Umask(old)
	return old
}
