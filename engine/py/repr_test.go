package py

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBytesReprQuotesAsPython(t *testing.T) {
	cases := []struct {
		in   []byte
		want string
	}{
		{[]byte("ok"), `b'ok'`},
		{[]byte("it's"), `b"it's"`},
		{[]byte("a'\"b"), `b'a\'"b'`},
		{[]byte{0, '\n', 0xff}, `b'\x00\n\xff'`},
	}
	for _, c := range cases {
		require.Equal(t, c.want, BytesRepr(c.in))
	}
	require.Equal(t, "<class 'str'>", ClassRepr("str"))
}

func TestStrerrorIsGlibcText(t *testing.T) {
	require.Equal(t, "Connection refused", Strerror(syscall.ECONNREFUSED))
	require.Equal(t, "No such file or directory", Strerror(syscall.ENOENT))
	require.Equal(t, "Operation not permitted", Strerror(syscall.EPERM), "others are Go's text, capitalized")
}
