package py

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestURLSplit(t *testing.T) {
	u, err := URLSplit("HTTPS://user:pw@[::1]:8443/p/a?q=1#frag")
	require.NoError(t, err)
	require.Equal(t, SplitResult{Scheme: "https", Netloc: "user:pw@[::1]:8443", Path: "/p/a", Query: "q=1", Fragment: "frag"}, u)
	d, err := u.Dict()
	require.NoError(t, err)
	require.Equal(t, 8443, d.Default("port", nil))
	require.Equal(t, "::1", d.Default("hostname", nil))
	_, err = URLSplit("http://[::1/")
	require.EqualError(t, err, "Invalid IPv6 URL")
}

func TestUnquotePlus(t *testing.T) {
	require.Equal(t, "a b/c%zz", UnquotePlus("a+b%2Fc%zz"))
	require.Equal(t, "\ufffd", UnquotePlus("%ff"))
}
