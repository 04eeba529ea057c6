package py

import (
	"regexp"
	"strings"
)

// FnmatchRegexp translates a shell pattern as Python's fnmatch does: * and
// ? match any characters, [seq] and [!seq] a character in or out of seq,
// and an unclosed [ itself.
func FnmatchRegexp(pat string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
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
			b.WriteString(charClass(pat[i+1 : j]))
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		// A class Go's syntax rejects (such as a reversed range) matches
		// nothing, as it does in Python.
		return regexp.MustCompile(`^\b\B$`)
	}
	return re
}

// charClass turns the inside of a [seq] into a regexp class.
func charClass(seq string) string {
	neg := strings.HasPrefix(seq, "!")
	if neg {
		seq = seq[1:]
	}
	seq = strings.ReplaceAll(seq, `\`, `\\`)
	// A [ inside a shell class is literal; RE2 would read [: as a POSIX
	// class.
	seq = strings.ReplaceAll(seq, `[`, `\[`)
	if strings.HasPrefix(seq, "^") {
		seq = `\` + seq
	}
	if neg {
		return "[^" + seq + "]"
	}
	return "[" + seq + "]"
}

// Fnmatch is fnmatch.fnmatchcase: whether name matches the shell pattern.
func Fnmatch(name, pattern string) bool { return FnmatchRegexp(pattern).MatchString(name) }
