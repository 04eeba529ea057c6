package py

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// RegexTimeout bounds one match of a pattern that runs on the
// backtracking engine: a pattern such as (a+)+\1 over a long subject
// would otherwise run for as long as Python's re does, which is forever.
// Patterns RE2 can match run in linear time and need no bound.
var RegexTimeout = 5 * time.Second

// ErrRegexTimeout is the error of a match that RegexTimeout ended.
var ErrRegexTimeout = errors.New("regular expression match timed out (catastrophic backtracking)")

// Regexp is a compiled Python pattern: RE2 where the pattern allows it,
// else the backtracking engine. Its methods mirror regexp.Regexp's, with
// byte offsets into the subject; those of the backtracking engine also
// return the error of a match that timed out.
type Regexp struct {
	re2 *regexp.Regexp
	bt  *regexp2.Regexp
	// twin is the backtracking engine's compilation of an RE2 pattern
	// whose answers can differ from Python's: a nullable pattern's
	// successive matches (Python keeps an empty match right after a
	// match, RE2 drops it) and a $ before a subject's final newline
	// (dollar). nil when neither applies.
	twin             *regexp2.Regexp
	nullable, dollar bool
	// names are the groups' names by number (0 is the whole match), as
	// regexp.Regexp.SubexpNames gives them.
	names []string
	// src is the pattern as given, for errors.
	src string
}

// Backtracking reports whether the pattern needed the backtracking engine.
func (re *Regexp) Backtracking() bool { return re.bt != nil }

// NumSubexp is the number of groups.
func (re *Regexp) NumSubexp() int { return len(re.names) - 1 }

// SubexpNames are the groups' names ("" for an unnamed group), index 0
// being the whole match.
func (re *Regexp) SubexpNames() []string { return re.names }

// SubexpIndex is the number of the group named name, or -1.
func (re *Regexp) SubexpIndex(name string) int {
	if name == "" {
		return -1
	}
	for i, n := range re.names {
		if n == name {
			return i
		}
	}
	return -1
}

// MatchString reports whether s contains a match.
func (re *Regexp) MatchString(s string) (bool, error) {
	if re.re2 != nil && !re.useTwin(s, false) {
		return re.re2.MatchString(s), nil
	}
	m, err := re.FindStringSubmatchIndex(s)
	return m != nil, err
}

// FindStringSubmatchIndex is the first match's group offsets (-1 for a
// group that did not take part), nil for none.
func (re *Regexp) FindStringSubmatchIndex(s string) ([]int, error) {
	if re.re2 != nil && !re.useTwin(s, false) {
		return re.re2.FindStringSubmatchIndex(s), nil
	}
	all, err := re.findAll(s, 1)
	if len(all) == 0 {
		return nil, err
	}
	return all[0], err
}

// FindStringSubmatch is the first match's groups as strings ("" for a
// group that did not take part), nil for none.
func (re *Regexp) FindStringSubmatch(s string) ([]string, error) {
	m, err := re.FindStringSubmatchIndex(s)
	if m == nil {
		return nil, err
	}
	out := make([]string, len(m)/2)
	for i := range out {
		if m[2*i] >= 0 {
			out[i] = s[m[2*i]:m[2*i+1]]
		}
	}
	return out, nil
}

// FindStringIndex is the first match's offsets, nil for none.
func (re *Regexp) FindStringIndex(s string) ([]int, error) {
	m, err := re.FindStringSubmatchIndex(s)
	if m == nil {
		return nil, err
	}
	return m[:2], nil
}

// FindAllStringSubmatchIndex is the group offsets of up to n successive
// non-overlapping matches (all of them when n < 0).
func (re *Regexp) FindAllStringSubmatchIndex(s string, n int) ([][]int, error) {
	if re.re2 != nil && !re.useTwin(s, true) {
		return re.re2.FindAllStringSubmatchIndex(s, n), nil
	}
	return re.findAll(s, n)
}

// Match, FindIndex and FindSubmatchIndex are the []byte forms.
func (re *Regexp) Match(b []byte) (bool, error) { return re.MatchString(string(b)) }

// FindIndex is FindStringIndex of b.
func (re *Regexp) FindIndex(b []byte) ([]int, error) { return re.FindStringIndex(string(b)) }

// FindSubmatchIndex is FindStringSubmatchIndex of b.
func (re *Regexp) FindSubmatchIndex(b []byte) ([]int, error) {
	return re.FindStringSubmatchIndex(string(b))
}

// useTwin reports whether the backtracking twin answers for s: a $ that
// may match before s's final newline, or (all) successive matches of a
// nullable pattern.
func (re *Regexp) useTwin(s string, all bool) bool {
	return re.twin != nil && (re.dollar && strings.HasSuffix(s, "\n") || all && re.nullable)
}

// findAll runs the backtracking engine over s. The subject is decoded
// to runes (an invalid byte is a rune of its own, as a bytes pattern
// sees it) and the engine's rune offsets are mapped back to bytes.
func (re *Regexp) findAll(s string, n int) ([][]int, error) {
	runes := make([]rune, 0, len(s))
	offsets := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// Keep the byte's value, so that a bytes pattern's
			// \xNN still matches it.
			r = rune(s[i])
		}
		runes = append(runes, r)
		offsets = append(offsets, i)
		i += size
	}
	offsets = append(offsets, len(s))
	bt := re.bt
	if bt == nil {
		bt = re.twin
	}
	var out [][]int
	m, err := bt.FindRunesMatch(runes)
	for err == nil && m != nil && (n < 0 || len(out) < n) {
		groups := m.Groups()
		loc := make([]int, 2*len(re.names))
		for i := range loc {
			loc[i] = -1
		}
		for _, g := range groups {
			if g.Name == "" {
				continue
			}
			num, convErr := strconv.Atoi(g.Name)
			if convErr != nil || num >= len(re.names) || len(g.Captures) == 0 {
				continue
			}
			loc[2*num] = offsets[g.Index]
			loc[2*num+1] = offsets[g.Index+g.Length]
		}
		out = append(out, loc)
		m, err = bt.FindNextMatch(m)
	}
	if err != nil {
		if strings.Contains(err.Error(), "timeout") {
			return out, Errorf("%s after %s: %s", ErrRegexTimeout, RegexTimeout, re.src)
		}
		return out, Errorf("%s", err)
	}
	return out, nil
}

// compileBacktracking compiles p for regexp2 in its own (.NET) syntax,
// never in its RE2 mode: named groups become numbered ones so that groups
// number left to right as in Python (.NET numbers named groups last), and
// Python's (?P=name), \Z, \uXXXX and class escapes are rewritten.
func compileBacktracking(p string, flags RegexFlags) (*Regexp, error) {
	src, names, err := translateBacktracking(p, flags)
	if err != nil {
		return nil, err
	}
	opts := regexp2.RegexOptions(0)
	if flags&RegexIgnoreCase != 0 {
		opts |= regexp2.IgnoreCase
	}
	if flags&RegexMultiline != 0 {
		opts |= regexp2.Multiline
	}
	if flags&RegexDotAll != 0 {
		opts |= regexp2.Singleline
	}
	bt, err := regexp2.Compile(src, opts)
	if err != nil {
		return nil, Errorf("%s", err)
	}
	bt.MatchTimeout = RegexTimeout
	return &Regexp{bt: bt, names: names, src: p}, nil
}

// quantifierAt is the quantifier s starts with (*, +, ?, {n}, {n,},
// {n,m}, {,m}, {,}), or "" for none.
func quantifierAt(s string) string {
	switch s[0] {
	case '*', '+', '?':
		return s[:1]
	case '{':
		j := 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		digits := j > 1
		if j < len(s) && s[j] == ',' {
			j++
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			digits = true
		}
		if digits && j < len(s) && s[j] == '}' {
			return s[:j+1]
		}
	}
	return ""
}

// translateBacktracking rewrites a Python pattern in regexp2's syntax and
// returns the groups' names by number.
func translateBacktracking(p string, flags RegexFlags) (string, []string, error) {
	var b strings.Builder
	names := []string{""}
	inClass := false
	groupNum := func(name string) (int, bool) {
		for i, n := range names {
			if i > 0 && n == name {
				return i, true
			}
		}
		return 0, false
	}
	// atom is where the output of the last atom (the operand of a
	// quantifier) starts; groups is that of each open group.
	atom := 0
	var groups []int
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !inClass {
			if q := quantifierAt(p[i:]); q != "" {
				// Python 3.11's possessive quantifiers (X*+, X{n,m}+) are
				// atomic groups in .NET: (?>X*).
				out := q
				if pyOpenMin(q) {
					out = "{0" + q[1:]
				}
				i += len(q) - 1
				if i+1 < len(p) && p[i+1] == '+' {
					prev := b.String()
					b.Reset()
					b.WriteString(prev[:atom] + "(?>" + prev[atom:] + out + ")")
					i++
				} else {
					b.WriteString(out)
				}
				continue
			}
			switch c {
			case ')':
				if len(groups) > 0 {
					atom, groups = groups[len(groups)-1], groups[:len(groups)-1]
				}
				b.WriteByte(c)
				continue
			case '(':
				if !strings.HasPrefix(p[i:], "(?P=") {
					groups = append(groups, b.Len())
				}
				atom = b.Len()
			case '|':
			default:
				atom = b.Len()
			}
		}
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			text := flags&RegexBytes == 0
			switch {
			case n == 'Z' && !inClass:
				b.WriteString(`\z`)
			case strings.IndexByte("dDwWsS", n) >= 0:
				b.WriteString(classEscape(n, inClass, !text || flags&regexASCII != 0))
			case n >= '1' && n <= '9' && !inClass:
				j := i + 2
				if j < len(p) && p[j] >= '0' && p[j] <= '9' {
					j++
				}
				// A group keeps the number apart from digits that follow
				// and makes the reference one atom for a quantifier.
				b.WriteString(`(?:\` + p[i+1:j] + `)`)
				i = j - 1
				continue
			case n == 'u' && text && i+5 < len(p):
				b.WriteString(`\u` + p[i+2:i+6])
				i += 5
				continue
			case n == 'U' && text && i+9 < len(p):
				v, perr := strconv.ParseUint(p[i+2:i+10], 16, 32)
				if perr != nil {
					return "", nil, Errorf("bad escape \\U at position %d", i)
				}
				b.WriteString(regexp.QuoteMeta(string(rune(v))))
				i += 9
				continue
			case isASCIIAlnum(n) || n == '\\':
				b.WriteByte('\\')
				b.WriteByte(n)
			default:
				b.WriteString(regexp.QuoteMeta(string(n)))
			}
			i++
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		case c == '[' && inClass:
			b.WriteString(`\[`)
		case c == '-' && inClass && i+1 < len(p) && p[i+1] == '[':
			// .NET reads -[...] as class subtraction; Python as a
			// literal hyphen and bracket.
			b.WriteString(`\-`)
		case c == '(' && !inClass && strings.HasPrefix(p[i:], "(?P<"):
			end := strings.IndexByte(p[i:], '>')
			if end < 0 {
				return "", nil, Errorf("missing >, unterminated name at position %d", i+4)
			}
			names = append(names, p[i+4:i+end])
			b.WriteByte('(')
			i += end
		case c == '(' && !inClass && strings.HasPrefix(p[i:], "(?P="):
			end := strings.IndexByte(p[i:], ')')
			if end < 0 {
				return "", nil, Errorf("missing ), unterminated name at position %d", i+4)
			}
			num, ok := groupNum(p[i+4 : i+end])
			if !ok {
				return "", nil, Errorf("unknown group name '%s' at position %d", p[i+4:i+end], i+4)
			}
			b.WriteString(`(?:\` + strconv.Itoa(num) + `)`)
			i += end
		case c == '(' && !inClass && strings.HasPrefix(p[i:], "(?(") && !strings.HasPrefix(p[i:], "(?(?"):
			end := strings.IndexByte(p[i+3:], ')')
			if end < 0 {
				return "", nil, Errorf("missing ), unterminated name at position %d", i+3)
			}
			ref := p[i+3 : i+3+end]
			if num, ok := groupNum(ref); ok {
				ref = strconv.Itoa(num)
			}
			b.WriteString("(?(" + ref + ")")
			i += 3 + end
		case c == '(' && !inClass && (i+1 >= len(p) || p[i+1] != '?'):
			names = append(names, "")
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), names, nil
}
