package py

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Format implements the common subset of Python's str.format: {} {0}
// {name} and format specs such as {:>5} or {:.2f}.
func Format(s string, a *Args) (any, error) {
	var b strings.Builder
	auto := 0
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '}' && i+1 < len(s) && s[i+1] == '}' {
			b.WriteByte('}')
			i++
			continue
		}
		if ch != '{' {
			b.WriteByte(ch)
			continue
		}
		if i+1 < len(s) && s[i+1] == '{' {
			b.WriteByte('{')
			i++
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return nil, Errorf("Single '{' encountered in format string")
		}
		field := s[i+1 : i+end]
		i += end
		name, spec, _ := strings.Cut(field, ":")
		var v any
		var ok bool
		switch {
		case name == "":
			v, ok = a.Get(auto, "")
			auto++
		default:
			if n, err := strconv.Atoi(name); err == nil {
				v, ok = a.Get(n, "")
			} else {
				v, ok = a.Get(-1, name)
			}
		}
		if !ok {
			return nil, Errorf("Replacement index %s out of range for positional args tuple", name)
		}
		b.WriteString(formatSpec(v, spec))
	}
	return b.String(), nil
}

// formatSpec applies a Python format spec ([[fill]align][width][.prec][type]).
func formatSpec(v any, spec string) string {
	if spec == "" {
		return value.Str(v)
	}
	fill, align := " ", byte(0)
	if len(spec) >= 2 && strings.ContainsRune("<>^", rune(spec[1])) {
		fill, align, spec = spec[:1], spec[1], spec[2:]
	} else if len(spec) >= 1 && strings.ContainsRune("<>^", rune(spec[0])) {
		align, spec = spec[0], spec[1:]
	}
	zero := strings.HasPrefix(spec, "0")
	typ := byte(0)
	if n := len(spec); n > 0 && strings.ContainsRune("sdfxXob%e", rune(spec[n-1])) {
		typ, spec = spec[n-1], spec[:n-1]
	}
	width, prec := 0, -1
	if w, p, ok := strings.Cut(spec, "."); ok {
		width, _ = strconv.Atoi(w)
		prec, _ = strconv.Atoi(p)
	} else {
		width, _ = strconv.Atoi(spec)
	}
	var s string
	switch typ {
	case 'd':
		i, _ := value.AsInt(v)
		s = strconv.Itoa(i)
	case 'f':
		f, _ := value.AsFloat(v)
		if prec < 0 {
			prec = 6
		}
		s = strconv.FormatFloat(f, 'f', prec, 64)
	case 'x', 'X', 'o', 'b':
		i, _ := value.AsInt(v)
		base := map[byte]int{'x': 16, 'X': 16, 'o': 8, 'b': 2}[typ]
		s = strconv.FormatInt(int64(i), base)
		if typ == 'X' {
			s = strings.ToUpper(s)
		}
	default:
		s = value.Str(v)
		if prec >= 0 && len([]rune(s)) > prec {
			s = string([]rune(s)[:prec])
		}
	}
	n := width - len([]rune(s))
	if n <= 0 {
		return s
	}
	if zero && align == 0 {
		return strings.Repeat("0", n) + s
	}
	if align == 0 {
		if value.IsNumber(v) {
			align = '>'
		} else {
			align = '<'
		}
	}
	switch align {
	case '>':
		return strings.Repeat(fill, n) + s
	case '^':
		return strings.Repeat(fill, n/2) + s + strings.Repeat(fill, n-n/2)
	}
	return s + strings.Repeat(fill, n)
}

// Percent implements Python's printf-style `fmt % args`.
func Percent(f string, arg any) (any, error) {
	var args []any
	if t, ok := arg.(value.Tuple); ok {
		args = t
	} else {
		args = []any{arg}
	}
	d, _ := arg.(*value.Dict)
	var b strings.Builder
	n := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		j := i + 1
		var key string
		if j < len(f) && f[j] == '(' {
			end := strings.IndexByte(f[j:], ')')
			if end < 0 {
				return nil, Errorf("incomplete format key")
			}
			key = f[j+1 : j+end]
			j += end + 1
		}
		k := j
		for k < len(f) && strings.IndexByte("-+ #0123456789.", f[k]) >= 0 {
			k++
		}
		if k >= len(f) {
			return nil, Errorf("incomplete format")
		}
		verb := f[k]
		flags := f[j:k]
		i = k
		if verb == '%' {
			b.WriteByte('%')
			continue
		}
		var v any
		if key != "" && d != nil {
			v, _ = d.Get(key)
		} else {
			if n >= len(args) {
				return nil, Errorf("not enough arguments for format string")
			}
			v = args[n]
			n++
		}
		switch verb {
		case 's':
			b.WriteString(fmt.Sprintf("%"+flags+"s", value.Str(v)))
		case 'r':
			b.WriteString(fmt.Sprintf("%"+flags+"s", value.Repr(v)))
		case 'd', 'i':
			fv, ok := value.AsFloat(v)
			if !ok {
				return nil, Errorf("%%d format: a real number is required, not %s", value.TypeName(v))
			}
			b.WriteString(fmt.Sprintf("%"+flags+"d", int(fv)))
		case 'f', 'e', 'g', 'F':
			fv, ok := value.AsFloat(v)
			if !ok {
				return nil, Errorf("must be real number, not %s", value.TypeName(v))
			}
			b.WriteString(fmt.Sprintf("%"+flags+string(verb), fv))
		case 'x', 'X', 'o':
			iv, _ := value.AsInt(v)
			b.WriteString(fmt.Sprintf("%"+flags+string(verb), iv))
		default:
			return nil, Errorf("unsupported format character '%c'", verb)
		}
	}
	if key := d; key == nil && n < len(args) {
		return nil, Errorf("not all arguments converted during string formatting")
	}
	return b.String(), nil
}
