package py

import (
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
)

// RegexFlags select a pattern's kind and its re flags.
type RegexFlags uint8

const (
	// RegexText is a str pattern: \d \w \s are Unicode classes.
	RegexText RegexFlags = 0
	// RegexBytes is a bytes pattern: \d \w \s are ASCII classes.
	RegexBytes RegexFlags = 1 << iota
	// RegexMultiline is re.MULTILINE: ^ and $ match at every line.
	RegexMultiline
	// RegexDotAll is re.DOTALL: . matches a newline too.
	RegexDotAll
	// RegexIgnoreCase is re.IGNORECASE.
	RegexIgnoreCase
	// RegexFinalNewline lets a $ outside re.MULTILINE also match before
	// a newline that ends the subject, as Python's does. RE2 has no
	// lookahead, so it is spelled as a multi-line $: right for the
	// one-line subjects of the file modules, wrong for longer text,
	// which is why filters do not ask for it.
	RegexFinalNewline
	// regexASCII is re.ASCII, set by a leading (?a): \d \w \s are ASCII
	// classes in a str pattern.
	regexASCII
)

// leadingFlags removes the flags Python has and RE2 and .NET lack from a
// pattern's leading inline flag group: (?a) (re.ASCII, which it returns
// as regexASCII), (?u) (re.UNICODE, a str pattern's default) and (?L).
// A group left empty goes.
func leadingFlags(p string) (string, RegexFlags) {
	rest, ok := strings.CutPrefix(p, "(?")
	if !ok {
		return p, 0
	}
	end := strings.IndexByte(rest, ')')
	if end < 0 || strings.Trim(rest[:end], "aiLmsux") != "" || !strings.ContainsAny(rest[:end], "auL") {
		return p, 0
	}
	var extra RegexFlags
	if strings.Contains(rest[:end], "a") {
		extra = regexASCII
	}
	kept := strings.Map(func(r rune) rune {
		if r == 'a' || r == 'u' || r == 'L' {
			return -1
		}
		return r
	}, rest[:end])
	if kept == "" {
		return rest[end+1:], extra
	}
	return "(?" + kept + ")" + rest[end+1:], extra
}

// regexKey identifies a compiled pattern in regexCache.
type regexKey struct {
	p     string
	flags RegexFlags
}

// regexCache memoizes CompilePattern: roles apply the same few patterns
// to every item of their loops. A *Regexp is safe for concurrent use.
var regexCache sync.Map

// CompileRegex compiles a str pattern with the flags the regex filters
// and tests take.
func CompileRegex(p string, ignorecase, multiline bool) (*Regexp, error) {
	flags := RegexText
	if ignorecase {
		flags |= RegexIgnoreCase
	}
	if multiline {
		flags |= RegexMultiline
	}
	return CompilePattern(p, flags)
}

// CompilePattern compiles a Python pattern. Where RE2 can match it, it is
// translated to RE2 syntax (\Z, \d \w \s with Python's str or bytes
// meaning, \uXXXX, escaped punctuation) and runs on Go's linear-time
// engine. Where it needs what only a backtracking engine has
// (backreferences, lookaround, conditional groups, atomic groups and
// possessive quantifiers, repetitions RE2 refuses), it runs on regexp2 with
// its groups renumbered as Python numbers them and a match timeout
// (RegexTimeout), so that a pattern that backtracks catastrophically ends
// in an error instead of a hang.
func CompilePattern(p string, flags RegexFlags) (*Regexp, error) {
	key := regexKey{p, flags}
	if re, ok := regexCache.Load(key); ok {
		return re.(*Regexp), nil
	}
	src, extra := leadingFlags(p)
	flags |= extra
	re, err := compileRE2(src, flags)
	if err != nil {
		bt, btErr := compileBacktracking(src, flags)
		if btErr != nil {
			return nil, err
		}
		re = bt
	} else if re.nullable || re.dollar {
		// Where RE2's answer can differ from Python's (an empty match
		// right after a match, $ before a final newline), the
		// backtracking engine answers for the subjects concerned.
		if twin, twinErr := compileBacktracking(src, flags); twinErr == nil {
			re.twin = twin.bt
		}
	}
	re.src = p
	regexCache.Store(key, re)
	return re, nil
}

func compileRE2(p string, flags RegexFlags) (*Regexp, error) {
	src, err := translateRegex(p, flags)
	if err != nil {
		return nil, err
	}
	prefix := ""
	for _, f := range []struct {
		flag RegexFlags
		c    string
	}{{RegexIgnoreCase, "i"}, {RegexMultiline, "m"}, {RegexDotAll, "s"}} {
		if flags&f.flag != 0 {
			prefix += f.c
		}
	}
	if prefix != "" {
		src = "(?" + prefix + ")" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, Errorf("%s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	out := &Regexp{re2: re, names: re.SubexpNames(), src: p}
	if parsed, perr := syntax.Parse(src, syntax.Perl); perr == nil {
		out.nullable = nullable(parsed)
	}
	out.dollar = flags&(RegexMultiline|RegexFinalNewline) == 0 && hasDollar(p)
	return out, nil
}

// nullable reports whether re can match the empty string somewhere
// (assertions aside): such a pattern's successive matches may include an
// empty one right after a match, which Python keeps and RE2 drops.
func nullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral, syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL, syntax.OpNoMatch:
		return false
	case syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpPlus, syntax.OpCapture:
		return nullable(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || nullable(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !nullable(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if nullable(sub) {
				return true
			}
		}
		return false
	}
	// The empty match and the assertions (^ $ \b \A \z).
	return true
}

// hasDollar reports whether a Python pattern has a $ outside a class:
// without re.MULTILINE, Python's $ also matches before a final newline,
// RE2's only at the end.
func hasDollar(p string) bool {
	inClass := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case c == '[' && !inClass:
			inClass = true
			if i+1 < len(p) && p[i+1] == '^' {
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			}
		case c == ']' && inClass:
			inClass = false
		case c == '$' && !inClass:
			return true
		}
	}
	return false
}

// unsupported is the error for a construct RE2 lacks.
func unsupported(what, p string) error {
	return Errorf("%s are not supported in regular expressions (cfzt-runner matches with RE2): %s", what, p)
}

// translateRegex rewrites a Python pattern in RE2 syntax.
func translateRegex(p string, flags RegexFlags) (string, error) {
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
		case c == '$' && !inClass && flags&RegexFinalNewline != 0 && flags&RegexMultiline == 0:
			b.WriteString(`(?m:$)`)
		case c == '{' && !inClass && pyOpenMin(p[i:]):
			// Python's {,n} and {,} are {0,n} and {0,}; RE2 and .NET read
			// them as literal text.
			b.WriteString("{0")
		case c == '(' && !inClass && strings.HasPrefix(p[i:], "(?P="):
			return "", unsupported("backreferences", p)
		case c == '(' && !inClass && hasLookaround(p[i:]):
			return "", unsupported("lookaround assertions", p)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// pyOpenMin reports whether s starts with a repetition without its
// minimum: {,} or {,n}.
func pyOpenMin(s string) bool {
	if !strings.HasPrefix(s, "{,") {
		return false
	}
	j := 2
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return j < len(s) && s[j] == '}'
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
func translateEscape(b *strings.Builder, p string, i int, inClass bool, flags RegexFlags) (int, error) {
	n := p[i+1]
	text := flags&RegexBytes == 0
	switch {
	case n == 'Z' && !inClass:
		b.WriteString(`\z`)
	case strings.IndexByte("dDwWsS", n) >= 0:
		b.WriteString(classEscape(n, inClass, !text || flags&regexASCII != 0))
	case n >= '1' && n <= '9' && !inClass:
		return 0, unsupported("backreferences", p)
	case (n == 'u' && text && i+5 < len(p)) || (n == 'U' && text && i+9 < len(p)):
		width := 4
		if n == 'U' {
			width = 8
		}
		b.WriteString(`\x{` + p[i+2:i+2+width] + `}`)
		return 1 + width, nil
	case isASCIIAlnum(n) || n == '\\':
		b.WriteByte('\\')
		b.WriteByte(n)
	default:
		// Python lets any other character be escaped; RE2 only
		// punctuation.
		b.WriteString(regexp.QuoteMeta(string(n)))
	}
	return 1, nil
}

// classEscape gives \d \w \s (and their negations) Python's meaning, for a
// str pattern or (ascii) a bytes one.
func classEscape(n byte, inClass, ascii bool) string {
	var body string
	neg := n == 'D' || n == 'W' || n == 'S'
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
		body = `\s\x0b\x1c-\x1f\x85\p{Z}`
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

func isASCIIAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
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
func ParseReplacement(repl string, re *Regexp) (Replacement, error) {
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
