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
		ok, err := re.MatchString(tc.subject)
		require.NoError(t, err)
		require.Equal(t, tc.match, ok, tc.name)
	}
}

// TestCompilePythonOnly: backreferences and lookaround, which RE2 lacks,
// match as in Python (on the backtracking engine); a pattern that is
// wrong in every engine is still an error.
func TestCompilePythonOnly(t *testing.T) {
	for p, subject := range map[string]string{`^(a)\1$`: "aa", `^(?P<x>a)(?P=x)$`: "aa", `(?<=a)b`: "ab", `^a(?!b)`: "ac", `x$`: "x\n"} {
		re, err := Compile(p, Text)
		require.NoError(t, err, p)
		ok, err := re.MatchString(subject)
		require.NoError(t, err)
		require.True(t, ok, p)
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
	got, n, err := Sub(re, repl, "a=1\nb=2\nc")
	require.NoError(t, err)
	require.Equal(t, "1:a\n2:b\nc", got)
	require.Equal(t, 2, n)
}
