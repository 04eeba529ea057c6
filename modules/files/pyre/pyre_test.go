package pyre

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/py"
)

func TestCompile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pattern string
		flags   Flags
		subject string
		match   bool
	}{
		{"dollar before a final newline", `^a=1$`, Bytes, "a=1\n", true},
		{"dollar at the end", `b$`, Text, "ab", true},
		{"backslash Z is the very end", `a\Z`, Text, "a\n", false},
		{"bytes digits are ASCII", `^\d$`, Bytes, "٣", false},
		{"text digits are Unicode", `^\d$`, Text, "٣", true},
		{"text words are Unicode", `^\w+$`, Text, "café", true},
		{"bytes words are ASCII", `^\w+$`, Bytes, "café", false},
		{"vertical tab is space", `^\s$`, Bytes, "\v", true},
		{"unicode escape", `caf\u00e9`, Text, "café", true},
		{"escaped space", `a\ b`, Text, "a b", true},
		{"class with a bracket first", `[]a]`, Text, "]", true},
		{"named group", `(?P<k>\w+)=`, Text, "key=", true},
		{"multiline flag", `^b$`, Text | Multiline, "a\nb\nc", true},
		{"dotall flag", `a.b`, Text | DotAll, "a\nb", true},
		{"no dotall", `a.b`, Text, "a\nb", false},
	} {
		re, err := Compile(tc.pattern, tc.flags)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.match, re.MatchString(tc.subject), tc.name)
	}
}

func TestCompileRefuses(t *testing.T) {
	for _, p := range []string{`(a)\1`, `(?P<x>a)(?P=x)`, `(?<=a)b`, `a(?!b)`} {
		_, err := Compile(p, Text)
		require.Contains(t, err.Error(), "not supported in regular expressions", p)
	}
	_, err := Compile(`a(`, Text)
	require.EqualError(t, err, "missing closing ): `a(`")
}

func TestIsMultiline(t *testing.T) {
	require.True(t, IsMultiline(`(?m)^a$`))
	require.True(t, IsMultiline(`(?im)^a`))
	require.False(t, IsMultiline(`(?i)a`))
	require.False(t, IsMultiline(`^(?m)a`))
	require.False(t, IsMultiline(`(?P<m>a)`))
}

func TestSub(t *testing.T) {
	re, err := Compile(`(\w+)=(\d+)`, Text|Multiline)
	require.NoError(t, err)
	repl, err := py.ParseReplacement(`\2:\g<1>`, re)
	require.NoError(t, err)
	got, n := Sub(re, repl, "a=1\nb=2\nc")
	require.Equal(t, "1:a\n2:b\nc", got)
	require.Equal(t, 2, n)
}
