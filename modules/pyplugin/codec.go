package pyplugin

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// The helper's values are JSON with tagged objects ({"$t": kind, "v": ...})
// for what JSON cannot say: tuples, integers beyond 64 bits, non-finite
// floats, bytes, and dicts whose keys are not strings or that hold "$t"
// (which a plain object would make ambiguous).

// maxDepth bounds the nesting of a value passed either way (Python's
// recursion limit is 1000 frames; its encoder and decoder take two a
// level).
const maxDepth = 400

// encoder encodes values for the helper. Values are data: a string that
// looks like a template is passed as it is, never rendered (it may be a
// module's output). ctx decrypts the `!vault` values met; nil has none.
type encoder struct{ ctx *template.Ctx }

// encode appends v as the helper's JSON. An undefined value fails with the
// engine's undefined error, as ansible-core fails where a plugin uses it.
func (en encoder) encode(b []byte, v any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, template.Errorf("the value is nested too deeply to pass to a Python plugin")
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case *big.Int:
		b = append(b, `{"$t":"int","v":"`...)
		return append(x.Append(b, 10), `"}`...), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			s := "nan"
			if math.IsInf(x, 1) {
				s = "inf"
			} else if math.IsInf(x, -1) {
				s = "-inf"
			}
			return append(b, `{"$t":"float","v":"`+s+`"}`...), nil
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		}
		return append(b, s...), nil
	case string:
		return appendString(b, x), nil
	case value.Unsafe:
		return appendString(b, string(x)), nil
	case value.Untrusted:
		return en.encode(b, x.V, depth)
	case value.Vaulted:
		if en.ctx == nil {
			break
		}
		plain, err := en.ctx.Decrypt(x)
		if err != nil {
			return nil, err
		}
		return en.encode(b, plain, depth)
	case []any:
		return en.encodeList(b, x, depth)
	case value.Tuple:
		b = append(b, `{"$t":"tuple","v":`...)
		b, err := en.encodeList(b, x, depth)
		return append(b, '}'), err
	case *value.Dict:
		return en.encodeDict(b, x, depth)
	case value.Undefined:
		if x.Err != nil {
			return nil, x.Err
		}
		return nil, &template.UndefinedError{Msg: x.Msg}
	}
	return nil, template.Errorf("cfzt-runner cannot pass a value of type %s to a Python plugin", value.TypeName(v))
}

func (en encoder) encodeList(b []byte, l []any, depth int) ([]byte, error) {
	b = append(b, '[')
	for i, e := range l {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = en.encode(b, e, depth+1); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

func (en encoder) encodeDict(b []byte, d *value.Dict, depth int) ([]byte, error) {
	_, dollar := d.Get("$t")
	var err error
	if !d.HasTypedKeys() && !dollar {
		b = append(b, '{')
		first := true
		d.Each(func(k string, v any) bool {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendString(b, k)
			b = append(b, ':')
			b, err = en.encode(b, v, depth+1)
			return err == nil
		})
		return append(b, '}'), err
	}
	b = append(b, `{"$t":"dict","v":[`...)
	first := true
	d.Each(func(k string, v any) bool {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '[')
		if b, err = en.encode(b, d.Key(k), depth+1); err != nil {
			return false
		}
		b = append(b, ',')
		b, err = en.encode(b, v, depth+1)
		b = append(b, ']')
		return err == nil
	})
	return append(b, "]}"...), err
}

// appendString appends s as a JSON string; bytes that are not UTF-8
// become U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// decode turns the helper's tagged objects in a decoded JSON value into
// the value model.
func decode(v any, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("the value is nested too deeply")
	}
	switch x := v.(type) {
	case []any:
		return value.MapList(x, func(_ int, e any) (any, error) { return decode(e, depth+1) })
	case *value.Dict:
		t, tagged := x.Get("$t")
		if !tagged {
			return value.MapDict(x, func(_ string, e any) (any, error) { return decode(e, depth+1) })
		}
		inner, _ := x.Get("v")
		switch t {
		case "tuple":
			l, ok := inner.([]any)
			if !ok {
				return nil, fmt.Errorf("bad tuple")
			}
			r, err := decode(l, depth+1)
			if err != nil {
				return nil, err
			}
			return value.Tuple(r.([]any)), nil
		case "int":
			n, ok := new(big.Int).SetString(value.Str(inner), 10)
			if !ok {
				return nil, fmt.Errorf("bad integer")
			}
			return value.NormInt(n), nil
		case "float":
			f, err := strconv.ParseFloat(value.Str(inner), 64)
			if err != nil {
				return nil, fmt.Errorf("bad float")
			}
			return f, nil
		case "bytes":
			// The value model has no bytes: a plugin's bytes are text,
			// decoded as UTF-8 (ansible-core shows them as text too).
			raw, err := base64.StdEncoding.DecodeString(value.Str(inner))
			if err != nil {
				return nil, fmt.Errorf("bad bytes")
			}
			return strings.ToValidUTF8(string(raw), "\uFFFD"), nil
		case "dict":
			pairs, ok := inner.([]any)
			if !ok {
				return nil, fmt.Errorf("bad dict")
			}
			d := value.NewDict(len(pairs))
			for _, p := range pairs {
				kv, ok := p.([]any)
				if !ok || len(kv) != 2 {
					return nil, fmt.Errorf("bad dict item")
				}
				k, err := decode(kv[0], depth+1)
				if err != nil {
					return nil, err
				}
				e, err := decode(kv[1], depth+1)
				if err != nil {
					return nil, err
				}
				switch k.(type) {
				case []any, *value.Dict:
					return nil, fmt.Errorf("unhashable dict key")
				}
				d.SetKey(k, e)
			}
			return d, nil
		}
		return nil, fmt.Errorf("unknown value tag %s", value.Repr(t))
	}
	return v, nil
}
