package py

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The filters' patterns: str semantics, no final-newline $ rewrite.
func TestCompileRegexFilterFlavour(t *testing.T) {
	for _, tc := range []struct {
		name, pattern, subject string
		ignorecase, multiline  bool
		match                  bool
	}{
		{name: "unicode digits", pattern: `^\d$`, subject: "٣", match: true},
		{name: "vertical tab is space", pattern: `^\s$`, subject: "\v", match: true},
		{name: "unicode escape", pattern: `caf\u00e9`, subject: "café", match: true},
		{name: "escaped space", pattern: `a\ b`, subject: "a b", match: true},
		{name: "dollar is the very end", pattern: `a$`, subject: "a\nb", match: false},
		{name: "multiline dollar", pattern: `a$`, subject: "a\nb", multiline: true, match: true},
		{name: "ignorecase", pattern: `^ABC$`, subject: "abc", ignorecase: true, match: true},
		{name: "backslash Z", pattern: `a\Z`, subject: "a", match: true},
	} {
		re, err := CompileRegex(tc.pattern, tc.ignorecase, tc.multiline)
		require.NoError(t, err, tc.name)
		ok, err := re.MatchString(tc.subject)
		require.NoError(t, err)
		require.Equal(t, tc.match, ok, tc.name)
	}
}

func TestCompilePatternBacktracksOnlyWhereNeeded(t *testing.T) {
	for p, bt := range map[string]bool{`(a)\1`: true, `(?<!a)b`: true, `(?P<x>a)(?P=x)`: true, `a(?=b)`: true, `a{2000}`: true,
		`(a+)+$`: false, `(?P<k>\w+)=`: false, `^\d+$`: false} {
		re, err := CompilePattern(p, RegexText)
		require.NoError(t, err, p)
		require.Equal(t, bt, re.Backtracking(), p)
	}
}

func TestCompilePatternCachesPerFlags(t *testing.T) {
	a, err := CompilePattern(`^x$`, RegexText)
	require.NoError(t, err)
	b, err := CompilePattern(`^x$`, RegexText|RegexIgnoreCase)
	require.NoError(t, err)
	ok, err := a.MatchString("X")
	require.NoError(t, err)
	require.False(t, ok)
	ok, err = b.MatchString("X")
	require.NoError(t, err)
	require.True(t, ok)
}

// TestPythonDollarAndEmptyMatches: where RE2's answer differs from
// Python's on an RE2 pattern, Python's is given: $ (without
// re.MULTILINE) also matches before a final newline, but not before an
// inner one; an empty match right after a match is kept.
func TestPythonDollarAndEmptyMatches(t *testing.T) {
	re, err := CompilePattern(`x$`, RegexText)
	require.NoError(t, err)
	require.False(t, re.Backtracking(), "RE2 still matches where it agrees")
	for subject, want := range map[string]bool{"x": true, "x\n": true, "x\ny": false, "x\n\n": false} {
		ok, err := re.MatchString(subject)
		require.NoError(t, err)
		require.Equal(t, want, ok, "%q", subject)
	}
	loc, err := re.FindStringIndex("ax\n")
	require.NoError(t, err)
	require.Equal(t, []int{1, 2}, loc, "the newline is not part of the match")

	re, err = CompilePattern(`\w*`, RegexText)
	require.NoError(t, err)
	all, err := re.FindAllStringSubmatchIndex("ab cd", -1)
	require.NoError(t, err)
	require.Equal(t, [][]int{{0, 2}, {2, 2}, {3, 5}, {5, 5}}, all, "re.findall(r'\\w*', 'ab cd') is ['ab', '', 'cd', '']")

	re, err = CompilePattern(`a+`, RegexText)
	require.NoError(t, err)
	require.Nil(t, re.twin, "a pattern that cannot match empty needs no second engine")
}
