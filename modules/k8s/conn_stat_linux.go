package k8s

import (
	"fmt"
	"os"
	"syscall"
)

// statFingerprint is what stat says of a file, for telling a changed file
// from the one read before: "missing", or its size, modification time and,
// where the system has them, its inode and change time.
func statFingerprint(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "missing"
	}
	fp := fmt.Sprintf("%d:%d", st.Size(), st.ModTime().UnixNano())
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		fp += fmt.Sprintf(":%d:%d:%d", sys.Ino, sys.Ctim.Sec, sys.Ctim.Nsec)
	}
	return fp
}
