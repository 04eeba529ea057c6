package inventory

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplitSubscript(t *testing.T) {
	cases := []struct {
		in     string
		expr   string
		sub    *subscript
		dashed bool
	}{
		{in: "web", expr: "web"},
		{in: "web[0]", expr: "web", sub: &subscript{start: 0, single: true}},
		{in: "web[-2]", expr: "web", sub: &subscript{start: -2, single: true}},
		{in: "web[1:3]", expr: "web", sub: &subscript{start: 1, end: 3}},
		{in: "web[2:]", expr: "web", sub: &subscript{start: 2, end: -1}},
		{in: "web[1-2]", expr: "web", sub: &subscript{start: 1, end: 2}, dashed: true},
		{in: "~web[0]", expr: "~web[0]"},
		{in: "web[a]", expr: "web[a]"},
	}
	for _, c := range cases {
		expr, sub, dashed := splitSubscript(c.in)
		require.Equal(t, c.expr, expr, c.in)
		require.Equal(t, c.sub, sub, c.in)
		require.Equal(t, c.dashed, dashed, c.in)
	}
	_, err := (&subscript{start: 3, single: true}).apply([]string{"a"}, "g[3]")
	require.EqualError(t, err, "No hosts matched the subscripted pattern 'g[3]'")
	got, err := (&subscript{start: 0, end: 0}).apply([]string{"a", "b"}, "g[0:0]")
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, got)
}
