package py

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// JSONLoads is json.loads with Python's error messages.
func JSONLoads(s string) (any, error) {
	p := &jsonParser{s: []rune(s)}
	p.ws()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i < len(p.s) {
		return nil, p.errAt("Extra data", p.i)
	}
	return v, nil
}

type jsonParser struct {
	s []rune
	i int
}

func (p *jsonParser) errAt(msg string, pos int) error {
	line, col := 1, pos+1
	for j := 0; j < pos && j < len(p.s); j++ {
		if p.s[j] == '\n' {
			line++
			col = pos - j
		}
	}
	return Errorf("%s: line %d column %d (char %d)", msg, line, col, pos)
}

func (p *jsonParser) ws() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\n\r", p.s[p.i]) {
		p.i++
	}
}

func (p *jsonParser) has(lit string) bool {
	r := []rune(lit)
	if p.i+len(r) > len(p.s) {
		return false
	}
	return string(p.s[p.i:p.i+len(r)]) == lit
}

var jsonNumRe = regexp.MustCompile(`^(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?`)

func (p *jsonParser) value() (any, error) {
	if p.i >= len(p.s) {
		return nil, p.errAt("Expecting value", p.i)
	}
	switch c := p.s[p.i]; {
	case c == '"':
		return p.str()
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case p.has("null"):
		p.i += 4
		return nil, nil
	case p.has("true"):
		p.i += 4
		return true, nil
	case p.has("false"):
		p.i += 5
		return false, nil
	case p.has("NaN"):
		p.i += 3
		return math.NaN(), nil
	case p.has("Infinity"):
		p.i += 8
		return math.Inf(1), nil
	case p.has("-Infinity"):
		p.i += 9
		return math.Inf(-1), nil
	}
	rest := string(p.s[p.i:min(len(p.s), p.i+400)])
	m := jsonNumRe.FindStringSubmatch(rest)
	if m == nil {
		return nil, p.errAt("Expecting value", p.i)
	}
	p.i += len(m[0])
	if m[2] == "" && m[3] == "" {
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err == nil {
			return int(n), nil
		}
		f, _ := strconv.ParseFloat(m[0], 64)
		return f, nil
	}
	f, _ := strconv.ParseFloat(m[0], 64)
	return f, nil
}

func (p *jsonParser) str() (string, error) {
	start := p.i
	p.i++
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", p.errAt("Unterminated string starting at", start)
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.errAt("Unterminated string starting at", start)
			}
			e := p.s[p.i+1]
			switch e {
			case '"', '\\', '/':
				b.WriteRune(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := p.hex4(p.i + 2)
				if !ok {
					return "", p.errAt("Invalid \\uXXXX escape", p.i+1)
				}
				p.i += 4
				if r >= 0xd800 && r <= 0xdbff && p.i+2 < len(p.s) && p.s[p.i+2] == '\\' && p.i+3 < len(p.s) && p.s[p.i+3] == 'u' {
					if r2, ok := p.hex4(p.i + 4); ok && r2 >= 0xdc00 && r2 <= 0xdfff {
						r = 0x10000 + (r-0xd800)<<10 + (r2 - 0xdc00)
						p.i += 6
					}
				}
				b.WriteRune(r)
			default:
				return "", p.errAt("Invalid \\escape", p.i)
			}
			p.i += 2
		case c < 0x20:
			return "", p.errAt("Invalid control character at", p.i)
		default:
			b.WriteRune(c)
			p.i++
		}
	}
}

func (p *jsonParser) hex4(at int) (rune, bool) {
	if at+4 > len(p.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.s[at:at+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}

func (p *jsonParser) object() (any, error) {
	p.i++
	d := value.NewDict(4)
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return d, nil
	}
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, p.errAt("Expecting property name enclosed in double quotes", p.i)
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errAt("Expecting ':' delimiter", p.i)
		}
		p.i++
		p.ws()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		d.Set(k, v)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return d, nil
		}
		if p.i >= len(p.s) || p.s[p.i] != ',' {
			return nil, p.errAt("Expecting ',' delimiter", p.i)
		}
		p.i++
		p.ws()
	}
}

func (p *jsonParser) array() (any, error) {
	p.i++
	out := []any{}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return out, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return out, nil
		}
		if p.i >= len(p.s) || p.s[p.i] != ',' {
			return nil, p.errAt("Expecting ',' delimiter", p.i)
		}
		p.i++
		p.ws()
	}
}
