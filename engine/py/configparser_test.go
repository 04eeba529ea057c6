package py

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParseConfig checks configparser's reading: DEFAULT inheritance,
// lowercased keys, continuation and blank lines inside a value,
// interpolation on and off, and options without values.
func TestParseConfig(t *testing.T) {
	cp, err := ParseConfig("[DEFAULT]\nbase = /b\n\n[one]\nA: 1\npath = %(base)s/x\npct = 100%%\nlong = first\n\n  second\n# comment\n; other\nflag\n", false, true)
	require.NoError(t, err)
	sec, ok := cp.Section("one")
	require.True(t, ok)
	require.Equal(t, []string{"a", "path", "pct", "long", "flag", "base"}, sec.Items())
	cases := []struct {
		key    string
		interp bool
		want   any
	}{
		{"a", true, "1"},
		{"path", true, "/b/x"},
		{"path", false, "%(base)s/x"},
		{"pct", true, "100%"},
		{"long", true, "first\n\nsecond"},
		{"flag", true, nil},
		{"base", true, "/b"},
	}
	for _, c := range cases {
		got, err := sec.Get(c.key, c.interp)
		require.NoError(t, err, c.key)
		require.Equal(t, c.want, got, c.key)
	}
	_, ok = cp.Section("DEFAULT")
	require.False(t, ok)
}

// TestParseConfigErrors checks the errors: no section header, a line
// without a delimiter, a duplicate option, and a bad %-reference.
func TestParseConfigErrors(t *testing.T) {
	for _, bad := range []string{"k = v\n", "[s]\nnodelim\n"} {
		_, err := ParseConfig(bad, false, false)
		require.Error(t, err, bad)
	}
	_, err := ParseConfig("[s]\nk = 1\nK = 2\n", false, false)
	var ce *ConfigError
	require.ErrorAs(t, err, &ce)
	require.True(t, ce.Duplicate)
	cp, err := ParseConfig("[s]\nk = 5%\n", false, false)
	require.NoError(t, err)
	sec, _ := cp.Section("s")
	_, err = sec.Get("k", true)
	var ie *InterpolationError
	require.ErrorAs(t, err, &ie)
}
