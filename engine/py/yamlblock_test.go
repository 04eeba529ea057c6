package py

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// TestYAMLDumpBlockMultiline checks the literal block style the
// callbacks' YAML result format uses: chomping and indentation hints,
// and the lossy clean-up of trailing spaces and tabs.
func TestYAMLDumpBlockMultiline(t *testing.T) {
	cases := []struct {
		in    string
		lossy bool
		want  string
	}{
		{"a\nb", false, "k: |-\n    a\n    b\n"},
		{"a\nb\n", false, "k: |\n    a\n    b\n"},
		{"a\n\n", false, "k: |+\n    a\n\n"},
		{" a\nb", false, "k: |4-\n     a\n    b\n"},
		{"a  \nb\tc  ", true, "k: |-\n    a\n    b       c\n"},
		{"single", false, "k: single\n"},
	}
	for _, c := range cases {
		out, err := YAMLDump(value.DictOf("k", c.in), YAMLDumpOptions{Indent: 4, BlockMultiline: true, Lossy: c.lossy})
		require.NoError(t, err)
		require.Equal(t, c.want, out, c.in)
	}
}
