package playbook

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// ParseKV splits Ansible's free-form `k=v k2="v 2" raw words` arguments.
// Words without `=` are joined into _raw_params, as Ansible's parse_kv does.
func ParseKV(s string) *value.Dict {
	d := value.NewDict(2)
	var raw []string
	for _, w := range splitArgs(s) {
		k, v, ok := strings.Cut(w, "=")
		if ok && isIdent(k) {
			d.Set(k, unquote(v))
			continue
		}
		raw = append(raw, w)
	}
	if len(raw) > 0 {
		d.Set("_raw_params", strings.Join(raw, " "))
	}
	return d
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9') {
			continue
		}
		return false
	}
	return true
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		inner := s[1 : len(s)-1]
		return strings.ReplaceAll(inner, `\`+string(s[0]), string(s[0]))
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
