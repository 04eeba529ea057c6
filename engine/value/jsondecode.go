package value

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// DecodeJSON decodes JSON into model values, keeping object key order as
// Python's json.loads does; integral numbers become ints (floats when they
// do not fit), and a repeated key keeps its first position and last value.
//
// It is a single-pass decoder over the bytes: Kubernetes list responses of
// thousands of objects go through it on every operator cycle, and the
// token API of encoding/json cost several times more. Invalid UTF-8 and
// lone surrogates become U+FFFD, as with encoding/json.
func DecodeJSON(data []byte) (any, error) {
	p := jsonDecoder{b: data}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, p.errorf("trailing data after JSON value")
	}
	return v, nil
}

// maxJSONDepth bounds nesting, so hostile input cannot exhaust the stack.
const maxJSONDepth = 10000

type jsonDecoder struct {
	b []byte
	i int
}

func (p *jsonDecoder) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *jsonDecoder) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonDecoder) literal(lit string, v any) (any, error) {
	if len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
		p.i += len(lit)
		return v, nil
	}
	return nil, p.errorf("invalid literal")
}

func (p *jsonDecoder) value(depth int) (any, error) {
	if p.i >= len(p.b) {
		return nil, p.errorf("unexpected end of input")
	}
	if depth > maxJSONDepth {
		return nil, p.errorf("nesting deeper than %d", maxJSONDepth)
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, p.errorf("unexpected character %q", p.b[p.i])
}

func (p *jsonDecoder) object(depth int) (any, error) {
	p.i++ // {
	d := NewDict(4)
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return d, nil
	}
	for {
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, p.errorf("expected a string key")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, p.errorf("expected ':' after object key")
		}
		p.i++
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		d.Set(k, v)
		p.ws()
		if p.i >= len(p.b) {
			return nil, p.errorf("unexpected end of input in object")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return d, nil
		default:
			return nil, p.errorf("expected ',' or '}' in object")
		}
	}
}

func (p *jsonDecoder) array(depth int) (any, error) {
	p.i++ // [
	list := []any{}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return list, nil
	}
	for {
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
		p.ws()
		if p.i >= len(p.b) {
			return nil, p.errorf("unexpected end of input in array")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return list, nil
		default:
			return nil, p.errorf("expected ',' or ']' in array")
		}
	}
}

func (p *jsonDecoder) number() (any, error) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	intStart := p.i
	if n := digits(); n == 0 || (n > 1 && p.b[intStart] == '0') {
		return nil, p.errorf("invalid number")
	}
	integral := true
	if p.i < len(p.b) && p.b[p.i] == '.' {
		integral = false
		p.i++
		if digits() == 0 {
			return nil, p.errorf("invalid number")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		integral = false
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.errorf("invalid number")
		}
	}
	text := string(p.b[start:p.i])
	if integral {
		if n, err := strconv.Atoi(text); err == nil {
			return n, nil
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, p.errorf("number %s out of range", text)
	}
	return f, nil
}

// str decodes a string; p.b[p.i] is its opening quote.
func (p *jsonDecoder) str() (string, error) {
	p.i++
	start := p.i
	// Fast path: no escapes and plain ASCII or valid UTF-8.
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			s := p.b[start:p.i]
			p.i++
			if utf8.Valid(s) {
				return string(s), nil
			}
			return string([]rune(string(s))), nil // invalid bytes become U+FFFD
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.errorf("control character in string")
		}
		p.i++
	}
	buf := make([]byte, 0, p.i-start+16)
	buf = append(buf, p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			if !utf8.Valid(buf) {
				return string([]rune(string(buf))), nil
			}
			return string(buf), nil
		case c < 0x20:
			return "", p.errorf("control character in string")
		case c != '\\':
			buf = append(buf, c)
			p.i++
			continue
		}
		p.i++ // backslash
		if p.i >= len(p.b) {
			break
		}
		e := p.b[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.errorf("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					if lo, ok := p.hex4(); ok {
						if dec := utf16.DecodeRune(r, lo); dec != utf8.RuneError {
							r2 = dec
						} else {
							p.i = save // not a pair: the second escape stands alone
						}
					} else {
						return "", p.errorf("invalid \\u escape")
					}
				}
				r = r2
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", p.errorf("invalid escape \\%c", e)
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *jsonDecoder) hex4() (rune, bool) {
	if len(p.b)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}
