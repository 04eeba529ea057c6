package py

import (
	"strings"
	"unicode"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// IsSpace reports whether str.isspace() holds for r (str.strip() and
// str.split() strip these).
func IsSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x1f, 0x85:
		return true
	}
	return r > 0x7f && unicode.IsSpace(r)
}

// Strip implements str.strip/lstrip/rstrip with optional chars.
func Strip(s string, chars any, left, right bool) string {
	if chars == nil {
		if left {
			s = strings.TrimLeftFunc(s, IsSpace)
		}
		if right {
			s = strings.TrimRightFunc(s, IsSpace)
		}
		return s
	}
	cut := value.Str(chars)
	if left {
		s = strings.TrimLeft(s, cut)
	}
	if right {
		s = strings.TrimRight(s, cut)
	}
	return s
}

// Splitlines implements str.splitlines(keepends).
func Splitlines(s string, keep bool) []string {
	var out []string
	start := 0
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch r {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		default:
			continue
		}
		end := i + 1
		if r == '\r' && i+1 < len(rs) && rs[i+1] == '\n' {
			end = i + 2
		}
		if keep {
			out = append(out, string(rs[start:end]))
		} else {
			out = append(out, string(rs[start:i]))
		}
		start = end
		i = end - 1
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	return out
}

// StrPredicate is the str method name for s: isdigit, isalpha, isalnum,
// isspace, islower or isupper.
func StrPredicate(s, name string) bool {
	if s == "" {
		return false
	}
	cased := false
	for _, r := range s {
		switch name {
		case "isdigit":
			if !unicode.IsDigit(r) {
				return false
			}
		case "isalpha":
			if !unicode.IsLetter(r) {
				return false
			}
		case "isalnum":
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return false
			}
		case "isspace":
			if !unicode.IsSpace(r) {
				return false
			}
		case "islower":
			if unicode.IsUpper(r) {
				return false
			}
			cased = cased || unicode.IsLower(r)
		case "isupper":
			if unicode.IsLower(r) {
				return false
			}
			cased = cased || unicode.IsUpper(r)
		}
	}
	if name == "islower" || name == "isupper" {
		return cased
	}
	return true
}

// Title is str.title().
func Title(s string) string {
	var b strings.Builder
	prevLetter := false
	for _, r := range s {
		if unicode.IsLetter(r) {
			if prevLetter {
				b.WriteString(Lower(string(r)))
			} else {
				b.WriteString(titleRune(r))
			}
			prevLetter = true
		} else {
			b.WriteRune(r)
			prevLetter = false
		}
	}
	return b.String()
}

// Split implements str.split / str.rsplit with optional sep and maxsplit.
func Split(s string, a *Args, fromRight bool) []any {
	sepV, hasSep := a.Get(0, "sep")
	max := -1
	if v, ok := a.Get(1, "maxsplit"); ok {
		max, _ = value.AsInt(v)
	}
	var parts []string
	if !hasSep || sepV == nil {
		fields := strings.Fields(s)
		if max >= 0 && len(fields) > max+1 {
			if fromRight {
				head := strings.TrimRight(s, " \t\n\r\v\f")
				idx := len(head)
				for i := 0; i < max; i++ {
					idx = strings.LastIndexAny(strings.TrimRight(head[:idx], " \t\n\r\v\f"), " \t\n\r\v\f")
				}
				rest := strings.TrimRight(head[:idx], " \t\n\r\v\f")
				parts = append([]string{strings.TrimLeft(rest, " \t\n\r\v\f")}, fields[len(fields)-max:]...)
			} else {
				rest := s
				for i := 0; i < max; i++ {
					rest = strings.TrimLeft(rest, " \t\n\r\v\f")
					j := strings.IndexAny(rest, " \t\n\r\v\f")
					parts = append(parts, rest[:j])
					rest = rest[j:]
				}
				parts = append(parts, strings.TrimLeft(rest, " \t\n\r\v\f"))
			}
		} else {
			parts = fields
		}
	} else {
		sep := value.Str(sepV)
		if fromRight && max >= 0 {
			all := strings.Split(s, sep)
			if len(all) > max+1 {
				head := strings.Join(all[:len(all)-max], sep)
				parts = append([]string{head}, all[len(all)-max:]...)
			} else {
				parts = all
			}
		} else {
			parts = strings.SplitN(s, sep, max+1)
			if max < 0 {
				parts = strings.Split(s, sep)
			}
		}
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out
}
