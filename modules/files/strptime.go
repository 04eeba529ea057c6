package files

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// strptimeDirectives are the patterns Python's _strptime.TimeRE gives the
// directives the file module's time formats use; alternatives are tried in
// order, as in Python.
var strptimeDirectives = map[byte]string{
	'd': `3[0-1]|[1-2]\d|0[1-9]|[1-9]| [1-9]`,
	'f': `[0-9]{1,6}`,
	'H': `2[0-3]|[0-1]\d|\d`,
	'I': `1[0-2]|0[1-9]|[1-9]`,
	'j': `36[0-6]|3[0-5]\d|[1-2]\d\d|0[1-9]\d|00[1-9]|[1-9]\d|0[1-9]|[1-9]`,
	'm': `1[0-2]|0[1-9]|[1-9]`,
	'M': `[0-5]\d|\d`,
	'p': `am|pm`,
	'S': `6[0-1]|[0-5]\d|\d`,
	'y': `\d\d`,
	'Y': `\d\d\d\d`,
	'b': `jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec`,
	'B': `september|february|november|december|january|october|august|march|april|june|july|may`,
	'a': `mon|tue|wed|thu|fri|sat|sun`,
	'A': `wednesday|thursday|saturday|tuesday|monday|friday|sunday`,
}

var monthNames = []string{"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december"}

// strptimeLocal parses s with a Python time format and returns the Unix
// time of that local time, as time.mktime(time.strptime(s, format)) does.
func strptimeLocal(s, format string) (float64, error) {
	re, order, err := strptimeRegexp(format)
	if err != nil {
		return 0, err
	}
	m := re.FindStringSubmatchIndex(s)
	if m == nil || m[0] != 0 {
		return 0, fmt.Errorf("time data %s does not match format %s", value.Repr(s), value.Repr(format))
	}
	if m[1] != len(s) {
		return 0, fmt.Errorf("unconverted data remains: %s", s[m[1]:])
	}
	f := map[byte]string{}
	for i, d := range order {
		if m[2*i+2] >= 0 {
			f[d] = strings.ToLower(strings.TrimSpace(s[m[2*i+2]:m[2*i+3]]))
		}
	}
	return strptimeFields(f), nil
}

// strptimeRegexp builds the matcher of a format: directives become their
// patterns, whitespace matches any whitespace, the rest is literal.
func strptimeRegexp(format string) (*regexp.Regexp, []byte, error) {
	var b strings.Builder
	var order []byte
	b.WriteString("(?i)^")
	for i := 0; i < len(format); i++ {
		c := format[i]
		switch {
		case c == '%' && i+1 < len(format):
			i++
			d := format[i]
			if d == '%' {
				b.WriteString("%")
				continue
			}
			pat, ok := strptimeDirectives[d]
			if !ok {
				return nil, nil, fmt.Errorf("'%c' is a bad directive in format %s", d, value.Repr("%"+string(d)))
			}
			b.WriteString("(" + pat + ")")
			order = append(order, d)
		case c == '%':
			return nil, nil, fmt.Errorf("stray %% in format %s", value.Repr(format))
		case c == ' ' || c == '\t' || c == '\n':
			j := i
			for j+1 < len(format) && strings.ContainsRune(" \t\n", rune(format[j+1])) {
				j++
			}
			i = j
			b.WriteString(`\s+`)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re, err := regexp.Compile(b.String())
	return re, order, err
}

// strptimeFields turns parsed fields into a local Unix time; absent
// fields take strptime's defaults (1900-01-01 00:00:00).
func strptimeFields(f map[byte]string) float64 {
	num := func(k byte, def int) int {
		if v, ok := f[k]; ok {
			n, _ := strconv.Atoi(v)
			return n
		}
		return def
	}
	year := num('Y', 1900)
	if y, ok := f['y']; ok {
		n, _ := strconv.Atoi(y)
		year = 1900 + n
		if n <= 68 {
			year = 2000 + n
		}
	}
	month := num('m', 1)
	for _, k := range []byte{'b', 'B'} {
		if v, ok := f[k]; ok {
			for i, name := range monthNames {
				if strings.HasPrefix(name, v) {
					month = i + 1
					break
				}
			}
		}
	}
	day := num('d', 1)
	hour := num('H', 0)
	if v, ok := f['I']; ok {
		h, _ := strconv.Atoi(v)
		hour = h % 12
		if f['p'] == "pm" {
			hour += 12
		}
	}
	t := time.Date(year, time.Month(month), day, hour, num('M', 0), num('S', 0), 0, time.Local)
	if _, ok := f['j']; ok && f['m'] == "" && f['d'] == "" {
		t = time.Date(year, 1, num('j', 1), hour, num('M', 0), num('S', 0), 0, time.Local)
	}
	return float64(t.Unix())
}
