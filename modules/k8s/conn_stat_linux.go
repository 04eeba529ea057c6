package k8s

import (
	"os"
	"strconv"
	"syscall"
)

// statFingerprint is what stat says of a file, for telling a changed file
// from the one read before: "missing", or its size, modification time,
// inode and change time.
func statFingerprint(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "missing"
	}
	b := make([]byte, 0, 80)
	b = strconv.AppendInt(b, st.Size(), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, st.ModTime().UnixNano(), 10)
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		b = append(b, ':')
		b = strconv.AppendUint(b, uint64(sys.Ino), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(sys.Ctim.Sec), 10)
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(sys.Ctim.Nsec), 10)
	}
	return string(b)
}
