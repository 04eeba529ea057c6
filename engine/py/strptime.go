package py

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/value"
)

var strptimeDirectives = map[byte]string{
	'd': `(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])`,
	'f': `([0-9]{1,6})`,
	'H': `(2[0-3]|[0-1]\d|\d)`,
	'I': `(1[0-2]|0[1-9]|[1-9])`,
	'j': `(36[0-6]|3[0-5]\d|[12]\d\d|0[1-9]\d|00[1-9]|[1-9]\d|0[1-9]|[1-9])`,
	'm': `(1[0-2]|0[1-9]|[1-9])`,
	'M': `([0-5]\d|\d)`,
	'S': `(6[0-1]|[0-5]\d|\d)`,
	'U': `(5[0-3]|[0-4]\d|\d)`,
	'W': `(5[0-3]|[0-4]\d|\d)`,
	'w': `([0-6])`,
	'u': `([1-7])`,
	'y': `(\d\d)`,
	'Y': `(\d\d\d\d)`,
	'z': `([+-]\d\d:?[0-5]\d(?::?[0-5]\d(?:\.\d{1,6})?)?|Z)`,
	'a': `(monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun)`,
	'A': `(monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun)`,
	'b': `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)`,
	'B': `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)`,
	'p': `(am|pm)`,
	'Z': `(utc|gmt|[a-z]{3,5})`,
}

var monthNames = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// Strptime is datetime.strptime with Python's error messages.
func Strptime(s, format string) (any, error) {
	var re strings.Builder
	re.WriteString(`(?i)^`)
	var kinds []byte
	for i := 0; i < len(format); i++ {
		c := format[i]
		switch {
		case c == '%' && i+1 < len(format):
			i++
			d := format[i]
			if d == '%' {
				re.WriteString("%")
				continue
			}
			if d == 'h' {
				d = 'b'
			}
			pat, ok := strptimeDirectives[d]
			if !ok {
				return nil, Errorf("'%c' is a bad directive in format '%s'", d, format)
			}
			re.WriteString(pat)
			kinds = append(kinds, d)
		case c == '%':
			return nil, Errorf("stray %% in format '%s'", format)
		case c == ' ' || c == '\t' || c == '\n':
			for i+1 < len(format) && strings.IndexByte(" \t\n", format[i+1]) >= 0 {
				i++
			}
			re.WriteString(`\s+`)
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	rx, err := regexp.Compile(re.String())
	if err != nil {
		return nil, Errorf("%s", err.Error())
	}
	m := rx.FindStringSubmatchIndex(s)
	if m == nil {
		return nil, Errorf("time data %s does not match format %s", value.Repr(s), value.Repr(format))
	}
	if m[1] != len(s) {
		return nil, Errorf("unconverted data remains: %s", s[m[1]:])
	}
	year, month, day, hour, minute, sec, us := 1900, 1, 1, 0, 0, 0, 0
	pm, has12 := false, false
	yday := -1
	loc := time.UTC
	aware := false
	for k, d := range kinds {
		g := strings.TrimSpace(s[m[2*k+2]:m[2*k+3]])
		n, _ := strconv.Atoi(g)
		switch d {
		case 'Y':
			year = n
		case 'y':
			if n <= 68 {
				year = 2000 + n
			} else {
				year = 1900 + n
			}
		case 'm':
			month = n
		case 'd':
			day = n
		case 'H':
			hour = n
		case 'I':
			hour, has12 = n, true
		case 'M':
			minute = n
		case 'S':
			sec = n
		case 'f':
			us, _ = strconv.Atoi(g + strings.Repeat("0", 6-len(g)))
		case 'p':
			pm = strings.EqualFold(g, "pm")
		case 'j':
			yday = n
		case 'b', 'B':
			l := strings.ToLower(g)
			for i, mn := range monthNames {
				if strings.HasPrefix(l, mn) {
					month = i + 1
				}
			}
		case 'z':
			aware = true
			if g == "Z" || g == "z" {
				loc = time.UTC
				continue
			}
			z := strings.ReplaceAll(g[1:], ":", "")
			hh, _ := strconv.Atoi(z[0:2])
			mm, _ := strconv.Atoi(z[2:4])
			off := hh*3600 + mm*60
			if len(z) >= 6 {
				ss, _ := strconv.Atoi(z[4:6])
				off += ss
			}
			if g[0] == '-' {
				off = -off
			}
			loc = time.FixedZone("", off)
		}
	}
	if has12 {
		hour %= 12
		if pm {
			hour += 12
		}
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, us*1000, loc)
	if t.Day() != day || int(t.Month()) != month {
		return nil, Errorf("day is out of range for month")
	}
	if yday > 0 {
		t = time.Date(year, 1, 1, hour, minute, sec, us*1000, loc).AddDate(0, 0, yday-1)
	}
	return &Datetime{Time: t, Aware: aware}, nil
}
