package playbook

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// ParseKV splits Ansible's free-form `k=v k2="v 2" raw words` arguments as
// ansible-core's parse_kv does: escape sequences are decoded, a word with
// an unescaped `=` (not first) is a key and value, and the other words are
// joined into _raw_params.
func ParseKV(s string) *value.Dict {
	d := value.NewDict(2)
	var raw []string
	for _, orig := range splitArgs(s) {
		x := decodeEscapes(orig)
		if !strings.Contains(x, "=") {
			raw = append(raw, orig)
			continue
		}
		pos := -1
		for i := 1; i < len(x); i++ {
			if x[i] == '=' && x[i-1] != '\\' {
				pos = i
				break
			}
		}
		if pos < 0 {
			raw = append(raw, strings.ReplaceAll(x, `\=`, "="))
			continue
		}
		d.Set(strings.TrimSpace(x[:pos]), unquote(strings.TrimSpace(x[pos+1:])))
	}
	if len(raw) > 0 {
		d.Set("_raw_params", joinArgs(raw))
	}
	return d
}

// joinArgs joins words with spaces, except after a newline.
func joinArgs(words []string) string {
	var b strings.Builder
	for _, w := range words {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// escapeRE matches the escape sequences parse_kv decodes.
var escapeRE = regexp.MustCompile(`\\U[0-9a-fA-F]{8}|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\[\\'"abfnrtv]`)

// decodeEscapes decodes backslash escapes like Python's unicode-escape
// codec does for the sequences parse_kv recognises.
func decodeEscapes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return escapeRE.ReplaceAllStringFunc(s, func(m string) string {
		switch m[1] {
		case 'U', 'u', 'x':
			n, err := strconv.ParseUint(m[2:], 16, 32)
			if err != nil {
				return m
			}
			return string(rune(n))
		}
		return map[byte]string{'\\': `\`, '\'': "'", '"': `"`, 'a': "\a", 'b': "\b", 'f': "\f", 'n': "\n", 'r': "\r", 't': "\t", 'v': "\v"}[m[1]]
	})
}

// unquote strips matching outer quotes, as ansible-core's unquote does.
func unquote(s string) string {
	if len(s) > 1 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] && s[len(s)-2] != '\\' {
		return s[1 : len(s)-1]
	}
	return s
}

// splitArgs splits on whitespace outside quotes and Jinja2 delimiters.
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	var quote byte
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			cur.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			} else if c == quote {
				quote = 0
			}
		case c == '{' && i+1 < len(s) && (s[i+1] == '{' || s[i+1] == '%'):
			depth++
			cur.WriteByte(c)
			cur.WriteByte(s[i+1])
			i++
		case (c == '}' || c == '%') && i+1 < len(s) && s[i+1] == '}' && depth > 0:
			depth--
			cur.WriteByte(c)
			cur.WriteByte(s[i+1])
			i++
		case (c == '"' || c == '\'') && depth == 0:
			quote = c
			cur.WriteByte(c)
		case (c == ' ' || c == '\t' || c == '\n') && depth == 0:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
