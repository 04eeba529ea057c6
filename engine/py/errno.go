package py

import (
	"strings"
	"syscall"
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
