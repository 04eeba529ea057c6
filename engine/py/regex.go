package py

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// regexKey identifies a compiled pattern in regexCache.
type regexKey struct {
	p                     string
	ignorecase, multiline bool
}

// regexCache memoizes CompileRegex: roles apply the same few patterns
// to every item of their loops. *regexp.Regexp is safe for concurrent use.
var regexCache sync.Map

// CompileRegex compiles a Python pattern. Constructs RE2 lacks
// (lookaround, backreferences) fail with an error naming them.
func CompileRegex(p string, ignorecase, multiline bool) (*regexp.Regexp, error) {
	key := regexKey{p, ignorecase, multiline}
	if re, ok := regexCache.Load(key); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := translateRegex(p, ignorecase, multiline)
	if err == nil {
		regexCache.Store(key, re)
	}
	return re, err
}

func translateRegex(p string, ignorecase, multiline bool) (*regexp.Regexp, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			switch {
			case n == 'Z' && !inClass:
				b.WriteString(`\z`)
			case n == 'd' || n == 'D' || n == 'w' || n == 'W' || n == 's' || n == 'S':
				b.WriteString(classEscape(n, inClass))
			case n >= '1' && n <= '9' && !inClass:
				return nil, Errorf("backreferences are not supported in regular expressions: %s", p)
			default:
				b.WriteByte(c)
				b.WriteByte(n)
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
		case c == '(' && !inClass && strings.HasPrefix(p[i:], "(?P="):
			return nil, Errorf("backreferences are not supported in regular expressions: %s", p)
		case c == '(' && !inClass && (strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!") || strings.HasPrefix(p[i:], "(?<=") || strings.HasPrefix(p[i:], "(?<!")):
			return nil, Errorf("lookaround assertions are not supported in regular expressions: %s", p)
		default:
			b.WriteByte(c)
		}
	}
	flags := ""
	if ignorecase {
		flags += "i"
	}
	if multiline {
		flags += "m"
	}
	src := b.String()
	if flags != "" {
		src = "(?" + flags + ")" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "error parsing regexp: ")
		return nil, Errorf("%s", msg)
	}
	return re, nil
}

// classEscape gives Python's Unicode meaning to \d \w \s.
func classEscape(n byte, inClass bool) string {
	var body string
	neg := false
	switch n {
	case 'd', 'D':
		body, neg = `\p{Nd}`, n == 'D'
	case 'w', 'W':
		body, neg = `\p{L}\p{N}_\p{Mn}`, n == 'W'
	case 's', 'S':
		body, neg = `\s\x{1c}-\x{1f}\x{85}\p{Z}`, n == 'S'
	}
	if inClass {
		if neg {
			// A negated class inside a class cannot be expressed; keep RE2's.
			return `\` + string(n)
		}
		return body
	}
	if neg {
		return "[^" + body + "]"
	}
	return "[" + body + "]"
}

// replPart is a literal or a group reference of a replacement template.
type replPart struct {
	lit   string
	group int
}

// Replacement is a parsed re.sub replacement template.
type Replacement []replPart

// ParseReplacement parses repl for the pattern re as re.sub does, with its
// error messages.
func ParseReplacement(repl string, re *regexp.Regexp) (Replacement, error) {
	var parts []replPart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, replPart{lit: lit.String(), group: -1})
			lit.Reset()
		}
	}
	ngroups := re.NumSubexp()
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' {
			lit.WriteByte(c)
			continue
		}
		if i+1 >= len(repl) {
			return nil, Errorf("bad escape (end of pattern) at position %d", i)
		}
		n := repl[i+1]
		switch {
		case n == 'g':
			end := strings.IndexByte(repl[i:], '>')
			if i+2 >= len(repl) || repl[i+2] != '<' || end < 0 {
				return nil, Errorf("missing < at position %d", i+2)
			}
			name := repl[i+3 : i+end]
			flush()
			if IsDigits(name) {
				g, _ := strconv.Atoi(name)
				if g > ngroups {
					return nil, Errorf("invalid group reference %d at position %d", g, i+3)
				}
				parts = append(parts, replPart{group: g})
			} else {
				idx := re.SubexpIndex(name)
				if idx < 0 {
					return nil, Errorf("unknown group name '%s'", name)
				}
				parts = append(parts, replPart{group: idx})
			}
			i += end
		case n >= '0' && n <= '9':
			j := i + 1
			for j < len(repl) && j < i+3 && repl[j] >= '0' && repl[j] <= '9' {
				j++
			}
			if n == '0' || (j-i-1 == 3) {
				// octal escape
				k := i + 1
				for k < len(repl) && k < i+4 && repl[k] >= '0' && repl[k] <= '7' {
					k++
				}
				v, _ := strconv.ParseUint(repl[i+1:k], 8, 32)
				lit.WriteRune(rune(v))
				i = k - 1
				continue
			}
			g, _ := strconv.Atoi(repl[i+1 : j])
			if g > ngroups {
				return nil, Errorf("invalid group reference %d at position %d", g, i+1)
			}
			flush()
			parts = append(parts, replPart{group: g})
			i = j - 1
		default:
			switch n {
			case 'n':
				lit.WriteByte('\n')
			case 't':
				lit.WriteByte('\t')
			case 'r':
				lit.WriteByte('\r')
			case 'f':
				lit.WriteByte('\f')
			case 'v':
				lit.WriteByte('\v')
			case 'a':
				lit.WriteByte('\a')
			case 'b':
				lit.WriteByte('\b')
			case '\\':
				lit.WriteByte('\\')
			default:
				if isASCIIAlpha(n) {
					return nil, Errorf("bad escape \\%c at position %d", n, i)
				}
				lit.WriteByte('\\')
				lit.WriteByte(n)
			}
			i++
		}
	}
	flush()
	return parts, nil
}

// Expand returns the replacement for the match m (submatch indexes) in s.
func (parts Replacement) Expand(s string, m []int) string {
	var b strings.Builder
	for _, p := range parts {
		if p.group < 0 {
			b.WriteString(p.lit)
			continue
		}
		if m[2*p.group] >= 0 {
			b.WriteString(s[m[2*p.group]:m[2*p.group+1]])
		}
	}
	return b.String()
}
