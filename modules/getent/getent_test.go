package getent

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/value"
)

func TestEntries(t *testing.T) {
	for _, tc := range []struct {
		name, out, split string
		hasSplit         bool
		want             *value.Dict
	}{
		{name: "colon", out: "root:x:0:0:root:/root:/bin/sh\n", split: ":", hasSplit: true,
			want: value.DictOf("root", []any{"x", "0", "0", "root", "/root", "/bin/sh"})},
		{name: "whitespace", out: "127.0.0.1       localhost  lh\n",
			want: value.DictOf("127.0.0.1", []any{"localhost", "lh"})},
		{name: "repeated key becomes a list", out: "::1 a\n::1 b\n::1 c\n",
			want: value.DictOf("::1", []any{[]any{"a"}, []any{"b"}, []any{"c"}})},
		{name: "empty", out: "", want: value.NewDict(0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, entries(tc.out, tc.split, tc.hasSplit))
		})
	}
}
