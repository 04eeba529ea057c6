package py

import (
	"math"
	"math/big"
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
		{"-9_223_372_036_854_775_809", bigInt("-9223372036854775809"), ""},
		{"0x10", nil, "invalid literal for int() with base 10: '0x10'"},
		{"1__0", nil, "invalid literal for int() with base 10: '1__0'"},
		{"+-1", nil, "invalid literal for int() with base 10: '+-1'"},
		{"0x-1", nil, "invalid literal for int() with base 10: '0x-1'"},
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

func bigInt(s string) *big.Int {
	n, _ := new(big.Int).SetString(s, 10)
	return n
}

func TestParseIntIsPythonIntWithBase(t *testing.T) {
	cases := []struct {
		in   string
		base int
		want int
		ok   bool
	}{
		{"0x1F", 0, 31, true},
		{"0o17", 0, 15, true},
		{"-0b101", 0, -5, true},
		{"0x_f", 16, 15, true},
		{"010", 0, 0, false}, // no leading zeros in base 0
		{"0x-1", 0, 0, false},
		{"+-1", 10, 0, false},
		{"1_", 10, 0, false},
		{"z", 36, 35, true},
	}
	for _, c := range cases {
		got, ok := ParseInt(c.in, c.base)
		require.Equal(t, c.ok, ok, "int(%q, %d)", c.in, c.base)
		require.Equal(t, c.want, got, "int(%q, %d)", c.in, c.base)
	}
}

func TestHumanToBytes(t *testing.T) {
	for in, want := range map[string]int{"1": 1, "1K": 1024, "1KB": 1024, "1.5M": 1572864, "2 kilobyte": 2048} {
		got, err := HumanToBytes(in, "", false)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	_, err := HumanToBytes("1Kb", "", false)
	require.EqualError(t, err, "human_to_bytes() failed to convert 1Kb. Value is not a valid string (expect KB or K)")
	got, err := HumanToBytes("1Kb", "", true)
	require.NoError(t, err)
	require.Equal(t, 1024, got)
	got, err = HumanToBytes("2", "G", false)
	require.NoError(t, err)
	require.Equal(t, 2147483648, got)
}
