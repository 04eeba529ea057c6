package command

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/py"
)

// osError is Python's OSError about a file, such as a program that could
// not be executed: "[Errno 2] No such file or directory: b'nosuchcmd'".
// The file name shows as bytes, as the command module passes it.
type osError struct {
	errno syscall.Errno
	file  string
}

func (e *osError) Error() string {
	return fmt.Sprintf("[Errno %d] %s: %s", int(e.errno), py.Strerror(e.errno), py.BytesRepr([]byte(e.file)))
}

// Unwrap returns the errno.
func (e *osError) Unwrap() error { return e.errno }

// errnoOf extracts the errno behind err; ENOENT when it carries none.
func errnoOf(err error) syscall.Errno {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return syscall.ENOENT
}
