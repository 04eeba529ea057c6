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
		require.Equal(t, tc.match, re.MatchString(tc.subject), tc.name)
	}
}

func TestCompilePatternRefusesWhatRE2Lacks(t *testing.T) {
	for p, what := range map[string]string{`(a)\1`: "backreferences", `(?<!a)b`: "lookaround assertions"} {
		_, err := CompilePattern(p, RegexText)
		require.EqualError(t, err, what+" are not supported in regular expressions (cfzt-runner matches with RE2): "+p)
	}
}

func TestCompilePatternCachesPerFlags(t *testing.T) {
	a, err := CompilePattern(`x$`, RegexText)
	require.NoError(t, err)
	b, err := CompilePattern(`x$`, RegexText|RegexFinalNewline)
	require.NoError(t, err)
	require.False(t, a.MatchString("x\n"))
	require.True(t, b.MatchString("x\n"))
}
