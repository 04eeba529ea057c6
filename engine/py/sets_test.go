package py

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSetOpFollowsCPythonOrder(t *testing.T) {
	l := func(v ...any) []any { return v }
	// Each want was checked against CPython 3.11: list(set(a) <op> set(b)).
	cases := []struct {
		op   string
		a, b []any
		want []any
	}{
		{"union", l(9, 8, 7, 6, 5), l(4, 3, 2, 1, 0), l(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)},
		{"union", l(1.5, 2, true, 0), l(2.0, -1, -2), l(0, 1.5, 2, true, -2, -1)},
		{"difference", l(40, 37, 34, 31, 28, 25, 22, 19, 16, 13, 10, 7, 4, 1), l(7), l(1, 34, 4, 37, 40, 10, 13, 16, 19, 22, 25, 28, 31)},
		{"symmetric_difference", l(1099511627776, 17, -5, 3.25), l(17, 8589934592), l(8589934592, 3.25, -5, 1099511627776)},
		{"intersect", l(3, 2, 1), l(1, 3), l(1, 3)},
	}
	for _, c := range cases {
		require.Equal(t, c.want, SetOp(c.op, c.a, c.b), "%s %v %v", c.op, c.a, c.b)
	}
}

func TestHashKeyEqualValuesShareAKey(t *testing.T) {
	one, _ := HashKey(1)
	oneFloat, _ := HashKey(1.0)
	oneBool, _ := HashKey(true)
	require.Equal(t, one, oneFloat)
	require.Equal(t, one, oneBool)
	_, ok := HashKey([]any{1})
	require.False(t, ok, "a list is unhashable")
}
