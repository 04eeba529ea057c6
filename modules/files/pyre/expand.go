package pyre

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Template is a parsed Python replacement template.
type Template struct {
	parts []part
}

// part is literal text (group < 0) or a group reference.
type part struct {
	lit   string
	group int
}

// ParseTemplate parses repl as re.sub and Match.expand read it: \1 to
// \99 and \g<n> or \g<name> refer to groups of re, \n \t \\ and the
// other C escapes are characters, an unknown ASCII-letter escape is an
// error, and any other backslash stays as written.
func ParseTemplate(repl string, re *regexp.Regexp) (*Template, error) {
	t := &Template{}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.parts = append(t.parts, part{lit: lit.String(), group: -1})
			lit.Reset()
		}
	}
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' {
			lit.WriteByte(c)
			continue
		}
		if i+1 >= len(repl) {
			return nil, fmt.Errorf("bad escape (end of pattern) at position %d", i)
		}
		n := repl[i+1]
		switch {
		case n == 'g':
			g, used, err := namedGroup(repl, i, re)
			if err != nil {
				return nil, err
			}
			flush()
			t.parts = append(t.parts, part{group: g})
			i += used - 1
		case n >= '0' && n <= '9':
			g, used, isOctal, err := numberedGroup(repl, i, re)
			if err != nil {
				return nil, err
			}
			if isOctal {
				lit.WriteRune(rune(g))
			} else {
				flush()
				t.parts = append(t.parts, part{group: g})
			}
			i += used - 1
		default:
			if esc, ok := cEscapes[n]; ok {
				lit.WriteByte(esc)
			} else if isAlnum(n) {
				return nil, fmt.Errorf("bad escape \\%c at position %d", n, i)
			} else {
				lit.WriteByte('\\')
				lit.WriteByte(n)
			}
			i++
		}
	}
	flush()
	return t, nil
}

var cEscapes = map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'f': '\f', 'v': '\v', 'a': '\a', 'b': '\b', '\\': '\\'}

// namedGroup reads \g<...> at repl[i:]; used is its length.
func namedGroup(repl string, i int, re *regexp.Regexp) (g, used int, err error) {
	if i+2 >= len(repl) || repl[i+2] != '<' {
		return 0, 0, fmt.Errorf("missing < at position %d", i+2)
	}
	end := strings.IndexByte(repl[i+3:], '>')
	if end < 0 {
		return 0, 0, fmt.Errorf("missing >, unterminated name at position %d", i+3)
	}
	name := repl[i+3 : i+3+end]
	if n, convErr := strconv.Atoi(name); convErr == nil && name != "" && name[0] != '+' && name[0] != '-' {
		if n > re.NumSubexp() {
			return 0, 0, fmt.Errorf("invalid group reference %d at position %d", n, i+3)
		}
		return n, end + 4, nil
	}
	idx := re.SubexpIndex(name)
	if idx < 0 {
		return 0, 0, fmt.Errorf("unknown group name '%s'", name)
	}
	return idx, end + 4, nil
}

// numberedGroup reads \N, \NN or an octal escape at repl[i:].
func numberedGroup(repl string, i int, re *regexp.Regexp) (v, used int, isOctal bool, err error) {
	j := i + 1
	for j < len(repl) && j < i+4 && repl[j] >= '0' && repl[j] <= '9' {
		j++
	}
	digits := repl[i+1 : j]
	if digits[0] == '0' || (len(digits) == 3 && isOctalDigits(digits)) {
		k := i + 1
		for k < len(repl) && k < i+4 && repl[k] >= '0' && repl[k] <= '7' {
			k++
		}
		n, _ := strconv.ParseUint(repl[i+1:k], 8, 32)
		return int(n), k - i, true, nil
	}
	if len(digits) > 2 {
		digits = digits[:2]
	}
	n, _ := strconv.Atoi(digits)
	if n > re.NumSubexp() {
		return 0, 0, false, fmt.Errorf("invalid group reference %d at position %d", n, i+1)
	}
	return n, len(digits) + 1, false, nil
}

func isOctalDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '7' {
			return false
		}
	}
	return true
}

// Expand fills the template with a match of s (FindStringSubmatchIndex);
// a group that did not take part is empty, as in Python 3.5 and later.
func (t *Template) Expand(s string, m []int) string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.group < 0 {
			b.WriteString(p.lit)
		} else if 2*p.group+1 < len(m) && m[2*p.group] >= 0 {
			b.WriteString(s[m[2*p.group]:m[2*p.group+1]])
		}
	}
	return b.String()
}

// Sub is re.subn(re, repl, s): every non-overlapping match replaced. It
// returns the new string and the number of replacements. Unlike Python
// 3.7, an empty match right after a match is not replaced (RE2's rule).
func Sub(re *regexp.Regexp, t *Template, s string) (string, int) {
	var b strings.Builder
	count, last := 0, 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(s[last:m[0]])
		b.WriteString(t.Expand(s, m))
		last = m[1]
		count++
	}
	b.WriteString(s[last:])
	return b.String(), count
}
