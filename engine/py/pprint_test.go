package py

import (
	"strings"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestPformat(t *testing.T) {
	require.Equal(t, "{'a': [1, 2]}", Pformat(value.DictOf("a", []any{1, 2})))
	require.Equal(t, "'short'", Pformat("short"))
	long := strings.Repeat("word ", 20)
	got := Pformat(long)
	require.True(t, strings.HasPrefix(got, "('word word"), got)
	require.Contains(t, got, "\n 'word")
}
