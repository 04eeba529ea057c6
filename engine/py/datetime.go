package py

import (
	"fmt"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Datetime is a Python datetime.datetime, as returned by to_datetime.
// It prints as str(datetime) does. Attribute access (.year, .days...),
// methods (.strftime(), .timestamp(), .total_seconds()) and subtraction are
// provided by Attr, CallMethod and BinaryOp.
type Datetime struct {
	Time  time.Time
	Aware bool // has a tzinfo (parsed with %z)
}

func (d *Datetime) String() string {
	s := d.Time.Format("2006-01-02 15:04:05")
	if us := d.Time.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	if d.Aware {
		s += d.Time.Format("-07:00")
	}
	return s
}

func (d *Datetime) isoformat() string { return strings.Replace(d.String(), " ", "T", 1) }

// Timedelta is a Python datetime.timedelta, counted in microseconds.
type Timedelta struct{ Micros int64 }

func (d *Timedelta) parts() (days, secs, us int64) {
	days = floorDiv(d.Micros, 86400e6)
	rest := d.Micros - days*86400e6
	return days, rest / 1e6, rest % 1e6
}

func (d *Timedelta) String() string {
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

// Attr returns an attribute of a datetime or timedelta.
func Attr(obj any, name string) (any, bool) {
	switch x := obj.(type) {
	case *Datetime:
		switch name {
		case "year":
			return x.Time.Year(), true
		case "month":
			return int(x.Time.Month()), true
		case "day":
			return x.Time.Day(), true
		case "hour":
			return x.Time.Hour(), true
		case "minute":
			return x.Time.Minute(), true
		case "second":
			return x.Time.Second(), true
		case "microsecond":
			return x.Time.Nanosecond() / 1000, true
		}
	case *Timedelta:
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

// datetimeMethod calls a method of a datetime or timedelta; ok is false when
// the object has no such method.
func datetimeMethod(obj any, name string, a *Args) (res any, ok bool, err error) {
	switch x := obj.(type) {
	case *Datetime:
		switch name {
		case "strftime":
			f, isStr := a.Default(0, "format", "").(string)
			if !isStr {
				return nil, true, Errorf("strftime() argument 1 must be str, not %s", value.TypeName(a.Default(0, "format", nil)))
			}
			return Strftime(x.Time, f), true, nil
		case "timestamp":
			t := x.Time
			if !x.Aware {
				t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.Local)
			}
			return float64(t.UnixMicro()) / 1e6, true, nil
		case "isoformat":
			return x.isoformat(), true, nil
		case "weekday":
			return (int(x.Time.Weekday()) + 6) % 7, true, nil
		case "isoweekday":
			return (int(x.Time.Weekday())+6)%7 + 1, true, nil
		}
	case *Timedelta:
		if name == "total_seconds" {
			return float64(x.Micros) / 1e6, true, nil
		}
	}
	return nil, false, nil
}

// datetimeBinary implements datetime - datetime, datetime ± timedelta and
// timedelta arithmetic; ok is false when neither operand is one of them.
func datetimeBinary(op string, l, r any) (res any, ok bool, err error) {
	switch x := l.(type) {
	case *Datetime:
		switch y := r.(type) {
		case *Datetime:
			if op == "-" {
				if x.Aware != y.Aware {
					return nil, true, Errorf("can't subtract offset-naive and offset-aware datetimes")
				}
				return &Timedelta{Micros: x.Time.Sub(y.Time).Microseconds()}, true, nil
			}
		case *Timedelta:
			switch op {
			case "+":
				return &Datetime{Time: x.Time.Add(time.Duration(y.Micros) * time.Microsecond), Aware: x.Aware}, true, nil
			case "-":
				return &Datetime{Time: x.Time.Add(-time.Duration(y.Micros) * time.Microsecond), Aware: x.Aware}, true, nil
			}
		}
	case *Timedelta:
		if y, isTD := r.(*Timedelta); isTD {
			switch op {
			case "+":
				return &Timedelta{Micros: x.Micros + y.Micros}, true, nil
			case "-":
				return &Timedelta{Micros: x.Micros - y.Micros}, true, nil
			}
		}
	default:
		if _, isD := r.(*Datetime); !isD {
			if _, isTD := r.(*Timedelta); !isTD {
				return nil, false, nil
			}
		}
	}
	return nil, true, Errorf("unsupported operand type(s) for %s: '%s' and '%s'", op, value.TypeName(l), value.TypeName(r))
}

// PyType implements value.PyTyper.
func (*Datetime) PyType() string { return "datetime" }

// PyType implements value.PyTyper.
func (*Timedelta) PyType() string { return "timedelta" }

// JSONValue implements value.JSONer.
func (d *Datetime) JSONValue() any { return d.isoformat() }
