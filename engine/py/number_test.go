package py

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRoundIsPythonsRound(t *testing.T) {
	floats := []struct {
		x    float64
		nd   int
		want float64
	}{
		{2.675, 2, 2.67}, // 2.675 is 2.67499999... in binary
		{2.5, 0, 2.0},    // half to even
		{3.5, 0, 4.0},
		{1250.0, -2, 1200.0},
	}
	for _, c := range floats {
		require.Equal(t, c.want, RoundFloat(c.x, c.nd), "round(%v, %d)", c.x, c.nd)
	}
	ints := []struct{ x, nd, want int }{{1250, -2, 1200}, {1350, -2, 1400}, {7, 2, 7}}
	for _, c := range ints {
		require.Equal(t, c.want, RoundInt(c.x, c.nd), "round(%d, %d)", c.x, c.nd)
	}
}

func TestIntConvertsAsPythonInt(t *testing.T) {
	cases := []struct {
		in   any
		want any
		err  string
	}{
		{true, 1, ""},
		{" 42 ", 42, ""},
		{"1_000", 1000, ""},
		{-3.9, -3, ""},
		{"0x10", nil, "invalid literal for int() with base 10: '0x10'"},
		{"4.5", nil, "invalid literal for int() with base 10: '4.5'"},
		{[]any{}, nil, "int() argument must be a string, a bytes-like object or a real number, not 'list'"},
	}
	for _, c := range cases {
		got, err := Int(c.in)
		if c.err != "" {
			require.EqualError(t, err, c.err, "%v", c.in)
			continue
		}
		require.NoError(t, err, "%v", c.in)
		require.Equal(t, c.want, got, "%v", c.in)
	}
}

func TestParseFloatAcceptsPythonSpellings(t *testing.T) {
	cases := []struct {
		in   string
		want float64
		ok   bool
	}{
		{" 1.5\n", 1.5, true},
		{"1_0.5", 10.5, true},
		{"-Infinity", math.Inf(-1), true},
		{"1__0", 0, false},
		{"0x10", 0, false},
	}
	for _, c := range cases {
		got, ok := ParseFloat(c.in)
		require.Equal(t, c.ok, ok, "%q", c.in)
		if ok {
			require.Equal(t, c.want, got, "%q", c.in)
		}
	}
}
