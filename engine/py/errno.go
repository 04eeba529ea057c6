package py

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Strerror is os.strerror: glibc's text for an errno, as Python's OSError
// prints it after "[Errno N] ".
func Strerror(en syscall.Errno) string {
	switch en {
	case syscall.ENOENT:
		return "No such file or directory"
	case syscall.EACCES:
		return "Permission denied"
	case syscall.ECONNREFUSED:
		return "Connection refused"
	case syscall.ECONNRESET:
		return "Connection reset by peer"
	case syscall.EHOSTUNREACH:
		return "No route to host"
	case syscall.ENETUNREACH:
		return "Network is unreachable"
	case syscall.EPIPE:
		return "Broken pipe"
	}
	s := en.Error()
	return strings.ToUpper(s[:1]) + s[1:]
}

// OSErrorText is str(OSError) for a failure on a file, such as
// "[Errno 21] Is a directory: '/x'".
func OSErrorText(err error, path string) string {
	var en syscall.Errno
	if !errors.As(err, &en) {
		return err.Error()
	}
	return fmt.Sprintf("[Errno %d] %s: %s", int(en), Strerror(en), value.Repr(path))
}
