// Package pyos words operating-system errors as Python does, for the
// messages modules reproduce from ansible-core ("[Errno 2] No such file or
// directory: b'x'").
package pyos

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// Strerror is the C library's wording of an errno, which Python uses; Go's
// own wording differs only in its lower-case first letter.
func Strerror(errno syscall.Errno) string {
	s := errno.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Errno extracts the errno behind err; ENOENT when it carries none.
func Errno(err error) syscall.Errno {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return syscall.ENOENT
}

// Error is Python's OSError about a file, such as a program that could not
// be executed: "[Errno 2] No such file or directory: b'nosuchcmd'". The
// file name is shown as bytes, as ansible-core's modules pass it.
type Error struct {
	Errno syscall.Errno
	File  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("[Errno %d] %s: %s", int(e.Errno), Strerror(e.Errno), BytesRepr(e.File))
}

// Unwrap returns the errno.
func (e *Error) Unwrap() error { return e.Errno }

// BytesRepr is Python's repr() of a bytes value holding s.
func BytesRepr(s string) string {
	quote := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		quote = '"'
	}
	var b strings.Builder
	b.WriteString("b")
	b.WriteByte(quote)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == quote || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(quote)
	return b.String()
}
