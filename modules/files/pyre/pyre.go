// Package pyre runs the Python regular expressions that file modules take
// (lineinfile, blockinfile, replace, find) on Go's RE2 engine: a pattern
// is translated (\Z, \d \w \s with Python's str or bytes meaning, \uXXXX,
// $ before a final newline) and what RE2 cannot do (backreferences,
// lookaround) is refused with a clear error rather than matched
// differently. Replacement templates are engine/py's (py.ParseReplacement).
package pyre

import (
	"fmt"
	"regexp"
	"strings"
)

// Flags select the pattern kind and the re flags.
type Flags uint8

const (
	// Text is a str pattern: \d \w \s are Unicode classes.
	Text Flags = 0
	// Bytes is a bytes pattern: \d \w \s are ASCII classes.
	Bytes Flags = 1 << iota
	// Multiline is re.MULTILINE: ^ and $ match at every line.
	Multiline
	// DotAll is re.DOTALL: . matches a newline too.
	DotAll
)

// UnsupportedError is a pattern that uses what RE2 cannot match.
type UnsupportedError struct {
	Pattern, What string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s are not supported in regular expressions (cfzt-runner matches with RE2): %s", e.What, e.Pattern)
}

// Compile translates a Python pattern and compiles it.
func Compile(pattern string, flags Flags) (*regexp.Regexp, error) {
	src, err := translate(pattern, flags)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if flags&Multiline != 0 {
		prefix += "m"
	}
	if flags&DotAll != 0 {
		prefix += "s"
	}
	if prefix != "" {
		src = "(?" + prefix + ")" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return re, nil
}

// translate rewrites a Python pattern in RE2 syntax.
func translate(p string, flags Flags) (string, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n, err := translateEscape(&b, p, i, inClass, flags)
			if err != nil {
				return "", err
			}
			i += n
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
		case c == '$' && !inClass && flags&Multiline == 0:
			// Python's $ also matches before a newline that ends the
			// string; for the one-line subjects these modules match,
			// that is RE2's multi-line $.
			b.WriteString(`(?m:$)`)
		case c == '(' && !inClass && strings.HasPrefix(p[i:], "(?P="):
			return "", &UnsupportedError{Pattern: p, What: "backreferences"}
		case c == '(' && !inClass && hasLookaround(p[i:]):
			return "", &UnsupportedError{Pattern: p, What: "lookaround assertions"}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func hasLookaround(s string) bool {
	for _, pre := range []string{"(?=", "(?!", "(?<=", "(?<!"} {
		if strings.HasPrefix(s, pre) {
			return true
		}
	}
	return false
}

// translateEscape writes the RE2 form of the escape at p[i] and returns
// how many extra bytes it consumed.
func translateEscape(b *strings.Builder, p string, i int, inClass bool, flags Flags) (int, error) {
	n := p[i+1]
	switch {
	case n == 'Z' && !inClass:
		b.WriteString(`\z`)
	case strings.IndexByte("dDwWsS", n) >= 0:
		b.WriteString(classEscape(n, inClass, flags))
	case n >= '1' && n <= '9' && !inClass:
		return 0, &UnsupportedError{Pattern: p, What: "backreferences"}
	case (n == 'u' && flags&Bytes == 0 && i+5 < len(p)) || (n == 'U' && flags&Bytes == 0 && i+9 < len(p)):
		width := 4
		if n == 'U' {
			width = 8
		}
		b.WriteString(`\x{` + p[i+2:i+2+width] + `}`)
		return 1 + width, nil
	case isAlnum(n) || n == '\\':
		b.WriteByte('\\')
		b.WriteByte(n)
	default:
		// Python lets any other character be escaped; RE2 only
		// punctuation.
		b.WriteString(regexp.QuoteMeta(string(n)))
	}
	return 1, nil
}

// classEscape gives \d \w \s (and their negations) Python's meaning.
func classEscape(n byte, inClass bool, flags Flags) string {
	var body string
	neg := n == 'D' || n == 'W' || n == 'S'
	ascii := flags&Bytes != 0
	switch n {
	case 'd', 'D':
		body = `\p{Nd}`
		if ascii {
			body = `0-9`
		}
	case 'w', 'W':
		body = `\p{L}\p{N}_\p{Mn}`
		if ascii {
			body = `0-9A-Za-z_`
		}
	default:
		body = `\s\x0b\x{1c}-\x{1f}\x{85}\p{Z}`
		if ascii {
			body = `\t\n\x0b\f\r `
		}
	}
	switch {
	case inClass && neg:
		// A negated class inside a class cannot be spelled; RE2's own
		// (ASCII) negation is the closest.
		return `\` + string(n)
	case inClass:
		return body
	case neg:
		return "[^" + body + "]"
	}
	return "[" + body + "]"
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// IsMultiline reports whether a pattern turns re.MULTILINE on with
// leading inline flags, as (?m) or (?mi).
func IsMultiline(pattern string) bool {
	rest, ok := strings.CutPrefix(pattern, "(?")
	if !ok {
		return false
	}
	end := strings.IndexAny(rest, ":)")
	if end < 0 || strings.Trim(rest[:end], "aiLmsux") != "" {
		return false
	}
	return strings.Contains(rest[:end], "m")
}
