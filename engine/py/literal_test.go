package py

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestLiteralEvalReadsINIValues(t *testing.T) {
	cases := []struct {
		in   string
		want any
	}{
		{"True", true},
		{"None", nil},
		{"42", 42},
		{"1.5e3", 1500.0},
		{"0x10", "0x10"}, // kept as text, as the INI plugin's fallback does here
		{`"quoted"`, "quoted"},
		{"[1, 'a']", []any{1, "a"}},
		{"{a: 1}", value.DictOf("a", 1)},
		{"plain words", "plain words"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, LiteralEval(c.in), c.in)
	}
}
