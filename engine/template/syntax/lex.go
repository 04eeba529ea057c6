package syntax

import (
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/tokens"
)

// tokenText is Jinja2's describe_token: a name or operator is itself,
// other tokens are named by their type.
func tokenText(t *tokens.Token) string {
	switch t.Type {
	case tokens.VariableBegin:
		return "begin of print statement"
	case tokens.VariableEnd:
		return "end of print statement"
	case tokens.BlockBegin:
		return "begin of statement block"
	case tokens.BlockEnd:
		return "end of statement block"
	case tokens.CommentBegin:
		return "begin of comment"
	case tokens.CommentEnd:
		return "end of comment"
	case tokens.Data:
		return "template data / text"
	case tokens.EOF:
		return "end of template"
	case tokens.String:
		return "string"
	case tokens.Integer:
		return "integer"
	case tokens.Float:
		return "float"
	}
	return t.Val
}

// decodeString re-reads a string literal from the source and applies
// Python's escape rules (gonja only unescapes quotes).
func (p *parser) decodeString(t *tokens.Token) string {
	if t.Pos < 0 || t.Pos >= len(p.src) || (p.src[t.Pos] != '\'' && p.src[t.Pos] != '"') {
		return t.Val
	}
	q := p.src[t.Pos]
	var b strings.Builder
	s := p.src[t.Pos+1:]
	if p.rawVarStrings && p.inVar {
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case q:
				return p.newlines(s[:i])
			}
		}
		return t.Val
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == q {
			return b.String()
		}
		if c == '\n' {
			b.WriteString(p.cfg.NewlineSequence)
			continue
		}
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\':
			b.WriteByte('\\')
		case '\'':
			b.WriteByte('\'')
		case '"':
			b.WriteByte('"')
		case '0':
			b.WriteByte(0)
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case '\n':
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
			if i+n < len(s) {
				if r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32); err == nil {
					b.WriteRune(rune(r))
					i += n
					continue
				}
			}
			b.WriteByte('\\')
			b.WriteByte(s[i])
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return t.Val
}

// maskEscapedBackslashes hides escaped backslashes inside the string
// constants of variable and block tags from gonja's lexer, which ends a
// string at the quote of '\\' as if it were escaped. The masked text has
// the same length, so token positions stay valid; string constants are
// re-read from the original source (decodeString).
func maskEscapedBackslashes(src string, cfg Config) string {
	if !strings.Contains(src, `\\`) {
		return src
	}
	b := []byte(src)
	inTag := false
	var quote byte
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0:
			switch {
			case c == '\\' && i+1 < len(b):
				if b[i+1] == '\\' {
					b[i], b[i+1] = '_', '_'
				}
				i++
			case c == quote:
				quote = 0
			}
		case !inTag:
			if n := prefixLen(src[i:], cfg.VariableStart, cfg.BlockStart); n > 0 {
				inTag = true
				i += n - 1
			}
		case c == '\'' || c == '"':
			quote = c
		default:
			if n := prefixLen(src[i:], cfg.VariableEnd, cfg.BlockEnd); n > 0 {
				inTag = false
				i += n - 1
			}
		}
	}
	return string(b)
}

// prefixLen is the length of the first of delims that s starts with, or 0.
func prefixLen(s string, delims ...string) int {
	for _, d := range delims {
		if d != "" && strings.HasPrefix(s, d) {
			return len(d)
		}
	}
	return 0
}

// signedEndMask stands in for a comment end string that starts with a
// whitespace control sign ("-->"), which gonja's lexer would take for the
// sign of a shorter end string.
const signedEndMask = "\x00"

// maskSignedCommentEnds replaces, in the comments of src, each comment end
// string that starts with '-' or '+' by as many signedEndMask bytes, and
// returns the lexer configuration that ends comments there. A comment ends
// where Jinja2's lexer ends it: at the first place where "+END", "-END" or
// END follows. Tags are skipped with their string constants, so that a
// start string inside a constant does not open a comment.
func maskSignedCommentEnds(src string, cfg Config) (string, Config) {
	end := cfg.CommentEnd
	if end == "" || (end[0] != '-' && end[0] != '+') || !strings.Contains(src, cfg.CommentStart) {
		return src, cfg
	}
	mask := strings.Repeat(signedEndMask, len(end))
	b := []byte(src)
	for i := 0; i < len(b); {
		switch n, kind := rootTag(src[i:], cfg); kind {
		case "comment":
			i += n
			for ; i < len(b); i++ {
				if at := signedEndAt(src[i:], end); at >= 0 {
					copy(b[i+at:], mask)
					i += at + len(end)
					break
				}
			}
		case "tag":
			i = skipTag(src, i+n, cfg)
		default:
			i++
		}
	}
	cfg.CommentEnd = mask
	return string(b), cfg
}

// rootTag reports which tag starts s (the longest start string wins, as
// in Jinja2) and the length of its start string.
func rootTag(s string, cfg Config) (int, string) {
	n, kind := 0, ""
	for _, c := range []struct{ start, kind string }{
		{cfg.CommentStart, "comment"}, {cfg.VariableStart, "tag"}, {cfg.BlockStart, "tag"},
	} {
		if c.start != "" && len(c.start) > n && strings.HasPrefix(s, c.start) {
			n, kind = len(c.start), c.kind
		}
	}
	return n, kind
}

// signedEndAt is the offset of the end string if s starts with "+END",
// "-END" or END, else -1.
func signedEndAt(s, end string) int {
	switch {
	case len(s) > 0 && (s[0] == '+' || s[0] == '-') && strings.HasPrefix(s[1:], end):
		return 1
	case strings.HasPrefix(s, end):
		return 0
	}
	return -1
}

// skipTag returns the offset after the variable or block tag whose body
// starts at i, stepping over its string constants.
func skipTag(src string, i int, cfg Config) int {
	var quote byte
	for ; i < len(src); i++ {
		c := src[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		default:
			if n := prefixLen(src[i:], cfg.VariableEnd, cfg.BlockEnd); n > 0 {
				return i + n
			}
		}
	}
	return i
}
