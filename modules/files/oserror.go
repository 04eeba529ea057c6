package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// pyOSError words an error as Python's str(OSError) does:
// "[Errno 2] No such file or directory: '/path'".
func pyOSError(err error) string {
	var en syscall.Errno
	if !errors.As(err, &en) {
		return err.Error()
	}
	s := fmt.Sprintf("[Errno %d] %s", int(en), strerror(en))
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &le):
		s += ": " + value.Repr(le.Old) + " -> " + value.Repr(le.New)
	case errors.As(err, &pe):
		s += ": " + value.Repr(pe.Path)
	}
	return s
}

// strerror is the C library's message for an errno: Go's text with its
// first letter capitalised, which is what glibc prints.
func strerror(en syscall.Errno) string {
	s := en.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// accessOK is os.access(path, mode) with R_OK=4, W_OK=2, X_OK=1.
func accessOK(path string, mode uint32) bool { return syscall.Access(path, mode) == nil }

// errnoOf is an OSError's errno (0 when there is none).
func errnoOf(err error) int {
	var en syscall.Errno
	if errors.As(err, &en) {
		return int(en)
	}
	return 0
}
