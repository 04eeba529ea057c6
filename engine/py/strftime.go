package py

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Strftime formats t with a C (glibc) / Python Strftime pattern. glibc's
// '-' flag (no padding, e.g. %-d) and '_' flag (space padding) are honoured.
func Strftime(t time.Time, f string) string {
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
			b.WriteString(Strftime(t, "%m/%d/%y"))
		case 'F':
			b.WriteString(Strftime(t, "%Y-%m-%d"))
		case 'T', 'X':
			b.WriteString(Strftime(t, "%H:%M:%S"))
		case 'R':
			b.WriteString(Strftime(t, "%H:%M"))
		case 'r':
			b.WriteString(Strftime(t, "%I:%M:%S %p"))
		case 'c':
			b.WriteString(Strftime(t, "%a %b %e %H:%M:%S %Y"))
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
