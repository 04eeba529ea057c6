package cfsim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIDFormats(t *testing.T) {
	for name, g := range map[string]IDGenerator{"random": RandomIDs(), "sequential": SequentialIDs()} {
		t.Run(name, func(t *testing.T) {
			a, b := g.Hex32(), g.Hex32()
			require.True(t, isHex32(a), a)
			require.NotEqual(t, a, b)
			u := g.UUID()
			require.True(t, isUUID(u), u)
			require.Equal(t, byte('4'), u[14], "version 4")
			require.Contains(t, "89ab", string(u[19]), "RFC 4122 variant")
			require.Len(t, g.Secret(), 32)
			require.NotEqual(t, g.Secret(), g.Secret())
		})
	}
	seq := SequentialIDs()
	require.Equal(t, "00000000000000000000000000000001", seq.Hex32())
	require.Equal(t, "00000000-0000-4000-8000-000000000001", seq.UUID())
}

func TestIDValidators(t *testing.T) {
	require.False(t, isHex32("0123456789ABCDEF0123456789abcdef"), "Cloudflare IDs are lowercase")
	require.False(t, isHex32("0123"))
	require.True(t, isUUID("AAAAAAAA-aaaa-4aaa-8aaa-aaaaaaaaaaaa"))
	require.False(t, isUUID("aaaaaaaa_aaaa-4aaa-8aaa-aaaaaaaaaaaa"))
	require.False(t, isUUID("aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaz"))
}
