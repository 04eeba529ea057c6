package py

import (
	"math/big"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestBinaryOp(t *testing.T) {
	huge, _ := new(big.Int).SetString("9223372036854775808", 10)
	cases := []struct {
		op   string
		l, r any
		want any
		err  string
	}{
		{"+", 1, 2.5, 3.5, ""},
		{"//", -7, 2, -4, ""},
		{"%", -7, 2, 1, ""},
		{"+", 9223372036854775807, 1, huge, ""},
		{"*", "ab", 2, "abab", ""},
		{"%", "%s-%d", value.Tuple{"a", 1}, "a-1", ""},
		{"+", "a", 1, nil, `can only concatenate str (not "int") to str`},
		{"/", 1, 0, nil, "division by zero"},
	}
	for _, c := range cases {
		got, err := BinaryOp(c.op, c.l, c.r)
		if c.err != "" {
			require.EqualError(t, err, c.err, "%v %s %v", c.l, c.op, c.r)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, c.want, got, "%v %s %v", c.l, c.op, c.r)
	}
}

func TestSlice(t *testing.T) {
	at := func(i int) *int { return &i }
	cases := []struct {
		obj              any
		start, stop, stp *int
		want             any
		err              string
	}{
		{[]any{1, 2, 3, 4}, at(1), nil, nil, []any{2, 3, 4}, ""},
		{"héllo", nil, nil, at(-1), "olléh", ""},
		{value.Tuple{1, 2, 3}, at(-2), nil, nil, value.Tuple{2, 3}, ""},
		{[]any{1}, nil, nil, at(0), nil, "slice step cannot be zero"},
		{5, nil, nil, nil, nil, "'int' object is not subscriptable"},
	}
	for _, c := range cases {
		got, err := Slice(c.obj, c.start, c.stop, c.stp)
		if c.err != "" {
			require.EqualError(t, err, c.err)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, c.want, got)
	}
	_, err := SliceIndex("a")
	require.EqualError(t, err, "slice indices must be integers or None or have an __index__ method")
}

func TestCallMethod(t *testing.T) {
	res, mutated, err := CallMethod([]any{1}, "append", &Args{Pos: []any{2}})
	require.NoError(t, err)
	require.Nil(t, res)
	require.Equal(t, []any{1, 2}, mutated)
	res, _, err = CallMethod("a,b", "split", &Args{Pos: []any{","}})
	require.NoError(t, err)
	require.Equal(t, []any{"a", "b"}, res)
	_, _, err = CallMethod(3, "foo", &Args{})
	require.EqualError(t, err, "'int' object has no attribute 'foo'")
}
