package template

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// strftime formats t with a C (glibc) / Python strftime pattern. glibc's
// '-' flag (no padding, e.g. %-d) and '_' flag (space padding) are honoured.
func strftime(t time.Time, f string) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 >= len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		pad := byte(0)
		if (f[i] == '-' || f[i] == '_') && i+1 < len(f) {
			pad = f[i]
			i++
		}
		num := func(n, width int, def byte) {
			s := strconv.Itoa(n)
			fill := def
			if pad == '-' {
				b.WriteString(s)
				return
			}
			if pad == '_' {
				fill = ' '
			}
			for len(s) < width {
				s = string(fill) + s
			}
			b.WriteString(s)
		}
		h12 := t.Hour() % 12
		if h12 == 0 {
			h12 = 12
		}
		switch f[i] {
		case 'Y':
			num(t.Year(), 4, '0')
		case 'y':
			num(t.Year()%100, 2, '0')
		case 'C':
			num(t.Year()/100, 2, '0')
		case 'm':
			num(int(t.Month()), 2, '0')
		case 'd':
			num(t.Day(), 2, '0')
		case 'e':
			num(t.Day(), 2, ' ')
		case 'H':
			num(t.Hour(), 2, '0')
		case 'k':
			num(t.Hour(), 2, ' ')
		case 'I':
			num(h12, 2, '0')
		case 'l':
			num(h12, 2, ' ')
		case 'M':
			num(t.Minute(), 2, '0')
		case 'S':
			num(t.Second(), 2, '0')
		case 'f':
			num(t.Nanosecond()/1000, 6, '0')
		case 'p':
			b.WriteString(t.Format("PM"))
		case 'P':
			b.WriteString(strings.ToLower(t.Format("PM")))
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			b.WriteString(t.Format("MST"))
		case 'j':
			num(t.YearDay(), 3, '0')
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case 'b', 'h':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 's':
			fmt.Fprintf(&b, "%d", t.Unix())
		case 'w':
			fmt.Fprintf(&b, "%d", int(t.Weekday()))
		case 'u':
			wd := int(t.Weekday())
			if wd == 0 {
				wd = 7
			}
			fmt.Fprintf(&b, "%d", wd)
		case 'U':
			num((t.YearDay()+6-int(t.Weekday()))/7, 2, '0')
		case 'W':
			num((t.YearDay()+6-(int(t.Weekday())+6)%7)/7, 2, '0')
		case 'V':
			_, w := t.ISOWeek()
			num(w, 2, '0')
		case 'G':
			y, _ := t.ISOWeek()
			num(y, 4, '0')
		case 'g':
			y, _ := t.ISOWeek()
			num(y%100, 2, '0')
		case 'D', 'x':
			b.WriteString(strftime(t, "%m/%d/%y"))
		case 'F':
			b.WriteString(strftime(t, "%Y-%m-%d"))
		case 'T', 'X':
			b.WriteString(strftime(t, "%H:%M:%S"))
		case 'R':
			b.WriteString(strftime(t, "%H:%M"))
		case 'r':
			b.WriteString(strftime(t, "%I:%M:%S %p"))
		case 'c':
			b.WriteString(strftime(t, "%a %b %e %H:%M:%S %Y"))
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			if pad != 0 {
				b.WriteByte(pad)
			}
			b.WriteByte(f[i])
		}
	}
	return b.String()
}

// pyDatetime is a Python datetime.datetime, as returned by to_datetime.
// It prints as str(datetime) does. Attribute access (.year, .days...),
// methods (.strftime(), .timestamp(), .total_seconds()) and subtraction are
// provided by pyObjAttr, pyObjMethod and pyObjBinary for the evaluator.
type pyDatetime struct {
	t     time.Time
	aware bool // has a tzinfo (parsed with %z)
}

func (d *pyDatetime) String() string {
	s := d.t.Format("2006-01-02 15:04:05")
	if us := d.t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	if d.aware {
		s += d.t.Format("-07:00")
	}
	return s
}

func (d *pyDatetime) isoformat() string { return strings.Replace(d.String(), " ", "T", 1) }

// pyTimedelta is a Python datetime.timedelta.
type pyTimedelta struct{ us int64 }

func (d *pyTimedelta) parts() (days, secs, us int64) {
	days = floorDiv64(d.us, 86400e6)
	rest := d.us - days*86400e6
	return days, rest / 1e6, rest % 1e6
}

func floorDiv64(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func (d *pyTimedelta) String() string {
	days, secs, us := d.parts()
	s := fmt.Sprintf("%d:%02d:%02d", secs/3600, secs%3600/60, secs%60)
	if us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	if days != 0 {
		plural := "s"
		if days == 1 || days == -1 {
			plural = ""
		}
		s = fmt.Sprintf("%d day%s, %s", days, plural, s)
	}
	return s
}

// pyObjAttr returns an attribute of a datetime or timedelta.
func pyObjAttr(obj any, name string) (any, bool) {
	switch x := obj.(type) {
	case *pyDatetime:
		switch name {
		case "year":
			return x.t.Year(), true
		case "month":
			return int(x.t.Month()), true
		case "day":
			return x.t.Day(), true
		case "hour":
			return x.t.Hour(), true
		case "minute":
			return x.t.Minute(), true
		case "second":
			return x.t.Second(), true
		case "microsecond":
			return x.t.Nanosecond() / 1000, true
		}
	case *pyTimedelta:
		days, secs, us := x.parts()
		switch name {
		case "days":
			return int(days), true
		case "seconds":
			return int(secs), true
		case "microseconds":
			return int(us), true
		}
	}
	return nil, false
}

// pyObjMethod calls a method of a datetime or timedelta; ok is false when
// the object has no such method.
func pyObjMethod(obj any, name string, a *Args) (res any, ok bool, err error) {
	switch x := obj.(type) {
	case *pyDatetime:
		switch name {
		case "strftime":
			f, isStr := a.Default(0, "format", "").(string)
			if !isStr {
				return nil, true, typeErrorf("strftime() argument 1 must be str, not %s", value.TypeName(a.Default(0, "format", nil)))
			}
			return strftime(x.t, f), true, nil
		case "timestamp":
			t := x.t
			if !x.aware {
				t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.Local)
			}
			return float64(t.UnixMicro()) / 1e6, true, nil
		case "isoformat":
			return x.isoformat(), true, nil
		case "weekday":
			return (int(x.t.Weekday()) + 6) % 7, true, nil
		case "isoweekday":
			return (int(x.t.Weekday())+6)%7 + 1, true, nil
		}
	case *pyTimedelta:
		if name == "total_seconds" {
			return float64(x.us) / 1e6, true, nil
		}
	}
	return nil, false, nil
}

// pyObjBinary implements datetime - datetime, datetime ± timedelta and
// timedelta arithmetic; ok is false when neither operand is one of them.
func pyObjBinary(op string, l, r any) (res any, ok bool, err error) {
	switch x := l.(type) {
	case *pyDatetime:
		switch y := r.(type) {
		case *pyDatetime:
			if op == "-" {
				if x.aware != y.aware {
					return nil, true, typeErrorf("can't subtract offset-naive and offset-aware datetimes")
				}
				return &pyTimedelta{us: x.t.Sub(y.t).Microseconds()}, true, nil
			}
		case *pyTimedelta:
			switch op {
			case "+":
				return &pyDatetime{t: x.t.Add(time.Duration(y.us) * time.Microsecond), aware: x.aware}, true, nil
			case "-":
				return &pyDatetime{t: x.t.Add(-time.Duration(y.us) * time.Microsecond), aware: x.aware}, true, nil
			}
		}
	case *pyTimedelta:
		if y, isTD := r.(*pyTimedelta); isTD {
			switch op {
			case "+":
				return &pyTimedelta{us: x.us + y.us}, true, nil
			case "-":
				return &pyTimedelta{us: x.us - y.us}, true, nil
			}
		}
	default:
		if _, isD := r.(*pyDatetime); !isD {
			if _, isTD := r.(*pyTimedelta); !isTD {
				return nil, false, nil
			}
		}
	}
	return nil, true, typeErrorf("unsupported operand type(s) for %s: '%s' and '%s'", op, pyTypeName(l), pyTypeName(r))
}

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

// strptime is datetime.strptime with Python's error messages.
func strptime(s, format string) (any, error) {
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
				return nil, typeErrorf("'%c' is a bad directive in format '%s'", d, format)
			}
			re.WriteString(pat)
			kinds = append(kinds, d)
		case c == '%':
			return nil, typeErrorf("stray %% in format '%s'", format)
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
		return nil, typeErrorf("%s", err.Error())
	}
	m := rx.FindStringSubmatchIndex(s)
	if m == nil {
		return nil, typeErrorf("time data %s does not match format %s", value.Repr(s), value.Repr(format))
	}
	if m[1] != len(s) {
		return nil, typeErrorf("unconverted data remains: %s", s[m[1]:])
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
		return nil, typeErrorf("day is out of range for month")
	}
	if yday > 0 {
		t = time.Date(year, 1, 1, hour, minute, sec, us*1000, loc).AddDate(0, 0, yday-1)
	}
	return &pyDatetime{t: t, aware: aware}, nil
}
