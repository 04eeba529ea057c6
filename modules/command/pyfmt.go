package command

import (
	"regexp"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// shellJoin quotes each word and joins them with spaces.
func shellJoin(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = py.Quote(w)
	}
	return strings.Join(quoted, " ")
}

// passwordArg matches an argument that ansible-core takes for a password
// option ("--password=x", "-passwd", "pass").
var passwordArg = regexp.MustCompile(`^-{0,2}pass-?(word|wd)?`)

// cleanArgs is the printable command line of a failed execution, with
// password arguments masked as ansible-core's _clean_args masks them.
func cleanArgs(argv []string) string {
	out := make([]string, 0, len(argv))
	maskNext := false
	for _, a := range argv {
		switch {
		case maskNext:
			maskNext = false
			a = "********"
		case passwordArg.MatchString(a):
			if k, _, hasValue := strings.Cut(a, "="); hasValue {
				a = k + "=********"
			} else {
				maskNext = true
			}
		}
		out = append(out, a)
	}
	return shellJoin(out)
}

// withLines adds stdout_lines and stderr_lines, split as Python's
// str.splitlines does, unless the result has them.
func withLines(res *value.Dict) *value.Dict {
	for _, k := range []string{"stdout", "stderr"} {
		v, ok := res.Get(k)
		if !ok || res.Has(k+"_lines") {
			continue
		}
		s, _ := v.(string)
		res.Set(k+"_lines", splitLines(s))
	}
	return res
}

// splitLines is Python's str.splitlines() as a list value.
func splitLines(s string) []any {
	lines := []any{}
	for _, l := range py.Splitlines(s, false) {
		lines = append(lines, l)
	}
	return lines
}
