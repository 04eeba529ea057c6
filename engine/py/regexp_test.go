package py

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBacktrackingGroups: on the backtracking engine groups number left to
// right, named or not, as Python numbers them (.NET itself numbers named
// groups last), and offsets are bytes of the subject.
func TestBacktrackingGroups(t *testing.T) {
	re, err := CompilePattern(`(?P<word>\w+)(\s)(?P=word)(?=!)`, RegexText)
	require.NoError(t, err)
	require.True(t, re.Backtracking())
	require.Equal(t, []string{"", "word", ""}, re.SubexpNames())
	require.Equal(t, 1, re.SubexpIndex("word"))
	m, err := re.FindStringSubmatch("é café café!")
	require.NoError(t, err)
	require.Equal(t, []string{"café café", "café", " "}, m)
	loc, err := re.FindStringSubmatchIndex("é café café!")
	require.NoError(t, err)
	require.Equal(t, []int{3, 14, 3, 8, 8, 9}, loc, "byte offsets, not rune offsets")

	// A group that does not take part is -1; findall gives every match.
	re, err = CompilePattern(`(a)|(?<=x)(b)`, RegexText)
	require.NoError(t, err)
	all, err := re.FindAllStringSubmatchIndex("a xb b", -1)
	require.NoError(t, err)
	require.Equal(t, [][]int{{0, 1, 0, 1, -1, -1}, {3, 4, -1, -1, 3, 4}}, all)

	// A conditional group on a name, and \Z.
	re, err = CompilePattern(`^(?P<q>")?\w+(?(q)")\Z`, RegexText)
	require.NoError(t, err)
	for subject, want := range map[string]bool{`"abc"`: true, `abc`: true, `"abc`: false, "abc\n": false} {
		ok, err := re.MatchString(subject)
		require.NoError(t, err)
		require.Equal(t, want, ok, subject)
	}

	// Replacements name the groups by Python's numbers.
	re, err = CompilePattern(`(?P<k>\w+)=(?=(\d+))`, RegexText)
	require.NoError(t, err)
	repl, err := ParseReplacement(`\g<k>:\2:`, re)
	require.NoError(t, err)
	loc, err = re.FindStringSubmatchIndex("port=80")
	require.NoError(t, err)
	require.Equal(t, "port:80:", repl.Expand("port=80", loc))
}

// TestBacktrackingBytes: a bytes pattern sees each byte of invalid UTF-8
// as one character, and \w stays ASCII.
func TestBacktrackingBytes(t *testing.T) {
	re, err := CompilePattern(`^(\w)\1(?=\xff)`, RegexBytes)
	require.NoError(t, err)
	loc, err := re.FindStringSubmatchIndex("aa\xff")
	require.NoError(t, err)
	require.Equal(t, []int{0, 2, 0, 1}, loc)
	ok, err := re.MatchString("éé\xff")
	require.NoError(t, err)
	require.False(t, ok)
}

// TestBacktrackingTimeout: a hostile pattern that backtracks
// catastrophically ends with a clean error naming the pattern, instead of
// running for as long as Python would (forever). The bound is lowered for
// the test; what is asserted is the error, not a duration.
func TestBacktrackingTimeout(t *testing.T) {
	old := RegexTimeout
	RegexTimeout = 50 * time.Millisecond
	defer func() { RegexTimeout = old }()
	hostile := `^(?=(a+)+$)\1b`
	re, err := compileBacktracking(hostile, RegexText)
	require.NoError(t, err)
	subject := strings.Repeat("a", 40) + "!"
	_, err = re.FindStringSubmatchIndex(subject)
	require.Error(t, err)
	require.Contains(t, err.Error(), "regular expression match timed out")
	require.Contains(t, err.Error(), hostile)
	_, err = re.MatchString(subject)
	require.Error(t, err)
	_, err = re.FindAllStringSubmatchIndex(subject, -1)
	require.Error(t, err)
}

// TestOpenMinimumRepetition: Python reads {,n} as {0,n} and {,} as {0,},
// on either engine.
func TestOpenMinimumRepetition(t *testing.T) {
	for _, p := range []string{`a{,2}`, `(?<=^)a{,2}`} {
		re, err := CompilePattern(p, RegexText)
		require.NoError(t, err)
		all, err := re.FindAllStringSubmatchIndex("aaa", -1)
		require.NoError(t, err)
		require.Equal(t, []int{0, 2}, all[0], p)
	}
	re, err := CompilePattern(`^x{,}$`, RegexText)
	require.NoError(t, err)
	ok, err := re.MatchString("xxx")
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = re.MatchString("x{,}")
	require.NoError(t, err)
	require.False(t, ok)
}

// TestBacktrackingQuantifiers: a quantified backreference repeats the
// reference; Python 3.11's possessive quantifiers and atomic groups do
// not give back what they took.
func TestBacktrackingQuantifiers(t *testing.T) {
	for _, tc := range []struct {
		pattern, subject string
		want             []int
	}{
		{`(a)\1+`, "aaaa", []int{0, 4, 0, 1}},
		{`(?P<x>a)(?P=x){2}`, "aaaa", []int{0, 3, 0, 1}},
		{`(a)\1+?`, "aaaa", []int{0, 2, 0, 1}},
		{`^a*+a`, "aaa", nil},
		{`^(?:ab)++c`, "ababc", []int{0, 5}},
		{`^(?>a+)b`, "aab", []int{0, 3}},
		{`^x{1,2}+x`, "xxx", []int{0, 3}},
		{`^\d{,2}+\d`, "123", []int{0, 3}},
		{`^[+*]{2}`, "+*", []int{0, 2}},
	} {
		re, err := CompilePattern(tc.pattern, RegexText)
		require.NoError(t, err, tc.pattern)
		m, err := re.FindStringSubmatchIndex(tc.subject)
		require.NoError(t, err)
		require.Equal(t, tc.want, m, "%s on %q", tc.pattern, tc.subject)
	}
}

// TestLeadingPythonFlags: (?a) makes \d \w \s ASCII in a str pattern;
// (?u) and (?L), which neither engine reads, are dropped; other leading
// flags stay.
func TestLeadingPythonFlags(t *testing.T) {
	for _, tc := range []struct {
		pattern, subject string
		want             bool
	}{
		{`(?a)^\w+$`, "café", false},
		{`^\w+$`, "café", true},
		{`(?u)^\w+$`, "café", true},
		{`(?ai)^CAF\w$`, "caf_", true},
		{`(?ai)^CAF\w$`, "café", false},
		{`(?a)(?<=x)\d`, "x٣", false},
		{`(?a)(?<=x)\d`, "x3", true},
	} {
		re, err := CompilePattern(tc.pattern, RegexText)
		require.NoError(t, err, tc.pattern)
		ok, err := re.MatchString(tc.subject)
		require.NoError(t, err)
		require.Equal(t, tc.want, ok, "%s on %q", tc.pattern, tc.subject)
	}
}
