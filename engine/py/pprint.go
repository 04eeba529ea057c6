package py

import (
	"regexp"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// pformatWordRe splits a long string into words with their trailing space,
// as pprint does to wrap it.
var pformatWordRe = regexp.MustCompile(`\S*\s*`)

// Pformat is pprint.pformat(v) with the default width of 80: containers
// print as their repr on one line (as ansible-core's template values do);
// a long string is split into parenthesized chunks.
func Pformat(v any) string {
	s, ok := v.(string)
	if !ok {
		return value.Repr(v)
	}
	rep := value.Repr(s)
	if len(rep) <= 80 || s == "" {
		return rep
	}
	var chunks []string
	lines := Splitlines(s, true)
	const indent, allowance = 1, 1
	maxWidth := 80 - indent
	maxWidth1 := maxWidth
	for i, line := range lines {
		r := value.Repr(line)
		if i == len(lines)-1 {
			maxWidth1 -= allowance
		}
		if len([]rune(r)) <= maxWidth1 {
			chunks = append(chunks, r)
			continue
		}
		parts := pformatWordRe.FindAllString(line, -1)
		if n := len(parts); n > 0 && parts[n-1] == "" {
			parts = parts[:n-1]
		}
		maxWidth2 := maxWidth
		current := ""
		for j, part := range parts {
			cand := current + part
			if j == len(parts)-1 && i == len(lines)-1 {
				maxWidth2 -= allowance
			}
			if len([]rune(value.Repr(cand))) > maxWidth2 {
				if current != "" {
					chunks = append(chunks, value.Repr(current))
				}
				current = part
			} else {
				current = cand
			}
		}
		if current != "" {
			chunks = append(chunks, value.Repr(current))
		}
	}
	if len(chunks) == 1 {
		return rep
	}
	return "(" + strings.Join(chunks, "\n"+strings.Repeat(" ", indent)) + ")"
}
