package files

import (
	"regexp"
	"strings"
)

// fnmatchRegexp translates a shell pattern as fnmatch.translate does.
func fnmatchRegexp(pat string) string {
	var b strings.Builder
	b.WriteString(`(?s)\A(?:`)
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch c {
		case '*':
			b.WriteString(".*")
			for i+1 < len(pat) && pat[i+1] == '*' {
				i++
			}
		case '?':
			b.WriteString(".")
		case '[':
			j := i + 1
			if j < len(pat) && pat[j] == '!' {
				j++
			}
			if j < len(pat) && pat[j] == ']' {
				j++
			}
			for j < len(pat) && pat[j] != ']' {
				j++
			}
			if j >= len(pat) {
				b.WriteString(`\[`)
				continue
			}
			body := pat[i+1 : j]
			neg := strings.HasPrefix(body, "!")
			if neg {
				body = body[1:]
			}
			body = strings.ReplaceAll(body, `\`, `\\`)
			// A [ or a leading ^ is literal in a shell class (fnmatch
			// escapes them); RE2 would read them as syntax.
			body = strings.ReplaceAll(body, `[`, `\[`)
			if !neg && strings.HasPrefix(body, "^") {
				body = `\` + body
			}
			if neg {
				b.WriteString("[^" + body + "]")
			} else {
				b.WriteString("[" + body + "]")
			}
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`)\z`)
	return b.String()
}
