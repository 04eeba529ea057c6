package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// pyOSError words an error as Python's str(OSError) does:
// "[Errno 2] No such file or directory: '/path'".
func pyOSError(err error) string { return formatOSError(err, "") }

// pyOSErrorBytes is pyOSError for a call made with a bytes path, which
// Python shows as b'/path'.
func pyOSErrorBytes(err error) string { return formatOSError(err, "b") }

func formatOSError(err error, pathPrefix string) string {
	var en syscall.Errno
	if !errors.As(err, &en) {
		return err.Error()
	}
	s := fmt.Sprintf("[Errno %d] %s", int(en), py.Strerror(en))
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &le):
		s += ": " + pathPrefix + value.Repr(le.Old) + " -> " + pathPrefix + value.Repr(le.New)
	case errors.As(err, &pe):
		s += ": " + pathPrefix + value.Repr(pe.Path)
	}
	return s
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
