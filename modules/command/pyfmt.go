package command

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// pyDatetime formats t as Python's str(datetime): local time with
// microseconds, which are left out when zero.
func pyDatetime(t time.Time) string {
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format("2006-01-02 15:04:05.000000")
}

// pyTimedelta formats d as Python's str(timedelta): [D day[s], ]H:MM:SS
// and .ffffff when there are microseconds.
func pyTimedelta(d time.Duration) string {
	us := d.Microseconds()
	days := us / (24 * 3600 * 1e6)
	us -= days * 24 * 3600 * 1e6
	secs, frac := us/1e6, us%1e6
	out := fmt.Sprintf("%d:%02d:%02d", secs/3600, secs/60%60, secs%60)
	if frac != 0 {
		out += fmt.Sprintf(".%06d", frac)
	}
	switch days {
	case 0:
		return out
	case 1:
		return "1 day, " + out
	}
	return fmt.Sprintf("%d days, %s", days, out)
}

// shellUnsafe matches a character shlex.quote would quote for.
var shellUnsafe = regexp.MustCompile(`[^\w@%+=:,./-]`)

// shellQuote is Python's shlex.quote.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if !shellUnsafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// shellJoin quotes each word and joins them with spaces.
func shellJoin(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellQuote(w)
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

// lineBreak reports the characters Python's str.splitlines splits at.
func lineBreak(r rune) bool {
	return strings.ContainsRune("\n\r\v\f\x1c\x1d\x1e\u0085\u2028\u2029", r)
}

// splitLines is Python's str.splitlines(): "\r\n" is one break, and a
// final break does not start an empty line.
func splitLines(s string) []any {
	lines := []any{}
	for len(s) > 0 {
		i := strings.IndexFunc(s, lineBreak)
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i])
		_, width := utf8.DecodeRuneInString(s[i:])
		if strings.HasPrefix(s[i:], "\r\n") {
			width = 2
		}
		s = s[i+width:]
	}
	return lines
}
