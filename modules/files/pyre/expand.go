package pyre

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
)

// Sub is re.subn(re, repl, s) with repl parsed by py.ParseReplacement:
// every non-overlapping match replaced. It returns the new string and
// the number of replacements. As in Python 3.7+, an empty match right
// after a match is replaced too (py.Regexp answers such patterns on its
// backtracking engine). The error is that of a match that timed out.
func Sub(re *py.Regexp, repl py.Replacement, s string) (string, int, error) {
	var b strings.Builder
	count, last := 0, 0
	ms, err := re.FindAllStringSubmatchIndex(s, -1)
	if err != nil {
		return "", 0, err
	}
	for _, m := range ms {
		b.WriteString(s[last:m[0]])
		b.WriteString(repl.Expand(s, m))
		last = m[1]
		count++
	}
	b.WriteString(s[last:])
	return b.String(), count, nil
}
