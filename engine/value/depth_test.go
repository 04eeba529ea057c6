package value

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTooDeep(t *testing.T) {
	nest := func(n int, leaf any) any {
		v := leaf
		for i := 0; i < n; i++ {
			if i%2 == 0 {
				v = []any{v}
			} else {
				v = DictOf("k", v)
			}
		}
		return v
	}
	require.False(t, TooDeep(nest(MaxDepth, 1)))
	require.True(t, TooDeep(nest(MaxDepth+1, 1)))
	require.True(t, TooDeep(Tuple{1, nest(MaxDepth, 1)}))
	require.False(t, TooDeep("["))
}

// Deeply nested flow YAML is refused before the YAML library, which takes
// minutes on it, parses it; ordinary brackets are fine.
func TestYAMLTooDeep(t *testing.T) {
	deep := "a: 1\nb: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n"
	line, col, bad := YAMLTooDeep([]byte(deep))
	require.True(t, bad)
	require.Equal(t, 2, line)
	require.Equal(t, 4+MaxDepth, col)
	_, _, err := DecodeYAML("x.yml", []byte(deep))
	require.EqualError(t, err, "yaml: line 2: collections nested more than 1000 levels deep")
	ok := "a: " + strings.Repeat("[", 500) + strings.Repeat("]", 500) + "\nb: " + strings.Repeat("{x: [", 200) + "1" + strings.Repeat("]}", 200) + "\n"
	_, _, bad = YAMLTooDeep([]byte(ok))
	require.False(t, bad)
	docs, _, err := DecodeYAML("x.yml", []byte(ok))
	require.NoError(t, err)
	require.Len(t, docs, 1)
}
