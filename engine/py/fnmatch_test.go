package py

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFnmatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		match         bool
	}{
		{"a*", "abc", true},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"[]a]", "]", true},
		{"[^a]b", "^b", true},
		{"[^a]b", "cb", false},
		{"[a-", "[a-", true},
		{"a.b", "axb", false},
		{"[z-a]", "z", false},
	} {
		require.Equal(t, tc.match, Fnmatch(tc.name, tc.pattern), "%s ~ %s", tc.pattern, tc.name)
	}
}
