package pyos

import (
	"errors"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// The expected values are Python's repr(bytes) and str(OSError).
func TestBytesRepr(t *testing.T) {
	for in, want := range map[string]string{
		"nosuchcmd":   `b'nosuchcmd'`,
		"it's":        `b"it's"`,
		`a'b"c`:       `b'a\'b"c'`,
		"tab\tnl\n\\": `b'tab\tnl\n\\'`,
		"é\x00":       `b'\xc3\xa9\x00'`,
	} {
		require.Equal(t, want, BytesRepr(in), in)
	}
}

func TestError(t *testing.T) {
	_, err := os.Stat("/nonexistent/x")
	e := &Error{Errno: Errno(err), File: "/nonexistent/x"}
	require.EqualError(t, e, "[Errno 2] No such file or directory: b'/nonexistent/x'")
	require.ErrorIs(t, e, syscall.ENOENT)
	require.Equal(t, "Permission denied", Strerror(syscall.EACCES))
	require.Equal(t, syscall.ENOENT, Errno(errors.New("no errno")))
}
