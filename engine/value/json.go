package value

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSONOptions mirror the arguments of Python's json.dumps that Ansible uses.
type JSONOptions struct {
	// Indent > 0 pretty-prints with that many spaces per level.
	Indent int
	// IndentString, when set, pretty-prints with this text per level; it
	// overrides Indent (Python's indent given as a string, or indent=0 as
	// an empty one).
	IndentString *string
	// SortKeys orders dict keys, as Ansible's callbacks and to_nice_json do.
	SortKeys bool
	// EnsureASCII escapes every non-ASCII character as \uXXXX.
	EnsureASCII bool
	// ItemSep and KeySep are json.dumps' separators; empty means Python's
	// defaults: ", " (or "," when pretty-printing) and ": ".
	ItemSep, KeySep string
	// RejectNaN fails on NaN and infinities, as allow_nan=False does.
	RejectNaN bool
}

// JSONer is implemented by values of other packages that serialize as
// another model value (a datetime as its ISO text, a range as a list).
type JSONer interface{ JSONValue() any }

// UnsupportedJSONError reports a value json.dumps cannot serialize.
type UnsupportedJSONError struct{ Value any }

func (e *UnsupportedJSONError) Error() string {
	if _, ok := e.Value.(float64); ok {
		return "Out of range float values are not JSON compliant: " + FormatFloat(e.Value.(float64))
	}
	return "Object of type " + TypeName(e.Value) + " is not JSON serializable"
}

// JSON renders v as Python's json.dumps would with the given options.
// Values it cannot serialize are written as their str().
func JSON(v any, o JSONOptions) string {
	e := jsonEncoder{o: o, lenient: true}
	e.init()
	_ = e.write(v, 0)
	return e.b.String()
}

// EncodeJSON is JSON failing, as json.dumps does, on a value it cannot
// serialize (an *UnsupportedJSONError).
func EncodeJSON(v any, o JSONOptions) (string, error) {
	e := jsonEncoder{o: o}
	e.init()
	if err := e.write(v, 0); err != nil {
		return "", err
	}
	return e.b.String(), nil
}

type jsonEncoder struct {
	b       strings.Builder
	o       JSONOptions
	indent  string
	pretty  bool
	itemSep string
	keySep  string
	lenient bool
}

func (e *jsonEncoder) init() {
	switch {
	case e.o.IndentString != nil:
		e.pretty, e.indent = true, *e.o.IndentString
	case e.o.Indent > 0:
		e.pretty, e.indent = true, strings.Repeat(" ", e.o.Indent)
	}
	e.itemSep, e.keySep = e.o.ItemSep, e.o.KeySep
	if e.itemSep == "" {
		e.itemSep = ", "
		if e.pretty {
			e.itemSep = ","
		}
	}
	if e.keySep == "" {
		e.keySep = ": "
	}
}

func (e *jsonEncoder) newline(depth int) {
	if e.pretty {
		e.b.WriteByte('\n')
		for i := 0; i < depth; i++ {
			e.b.WriteString(e.indent)
		}
	}
}

func (e *jsonEncoder) write(v any, depth int) error {
	b := &e.b
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case *big.Int:
		b.WriteString(x.String())
	case float64:
		s := FormatFloat(x)
		switch s {
		case "inf":
			s = "Infinity"
		case "-inf":
			s = "-Infinity"
		case "nan":
			s = "NaN"
		}
		if e.o.RejectNaN && (math.IsNaN(x) || math.IsInf(x, 0)) {
			return &UnsupportedJSONError{Value: x}
		}
		b.WriteString(s)
	case string:
		WriteJSONString(b, x, e.o.EnsureASCII)
	case Omit:
		WriteJSONString(b, OmitPlaceholder, e.o.EnsureASCII)
	case []any:
		return e.writeList(x, depth)
	case Tuple:
		return e.writeList([]any(x), depth)
	case *Dict:
		return e.writeDict(x, depth)
	case JSONer:
		return e.write(x.JSONValue(), depth)
	default:
		if !e.lenient {
			return &UnsupportedJSONError{Value: v}
		}
		WriteJSONString(b, fmt.Sprint(x), e.o.EnsureASCII)
	}
	return nil
}

func (e *jsonEncoder) writeList(x []any, depth int) error {
	if len(x) == 0 {
		e.b.WriteString("[]")
		return nil
	}
	e.b.WriteByte('[')
	for i, el := range x {
		if i > 0 {
			e.b.WriteString(e.itemSep)
		}
		e.newline(depth + 1)
		if err := e.write(el, depth+1); err != nil {
			return err
		}
	}
	e.newline(depth)
	e.b.WriteByte(']')
	return nil
}

func (e *jsonEncoder) writeDict(x *Dict, depth int) error {
	keys := x.Keys()
	if e.o.SortKeys {
		keys = append([]string(nil), keys...)
		sort.Strings(keys)
	}
	if len(keys) == 0 {
		e.b.WriteString("{}")
		return nil
	}
	e.b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			e.b.WriteString(e.itemSep)
		}
		e.newline(depth + 1)
		jk := k
		if x.HasTypedKeys() {
			if b, ok := x.Key(k).(bool); ok {
				jk = strconv.FormatBool(b)
			}
		}
		WriteJSONString(&e.b, jk, e.o.EnsureASCII)
		e.b.WriteString(e.keySep)
		el, _ := x.Get(k)
		if err := e.write(el, depth+1); err != nil {
			return err
		}
	}
	e.newline(depth)
	e.b.WriteByte('}')
	return nil
}

// WriteJSONString writes s as a JSON string literal, as Python's
// json.dumps does; ascii escapes every non-ASCII character.
func WriteJSONString(b *strings.Builder, s string, ascii bool) {
	b.WriteByte('"')
	done := 0 // s[:done] is written
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (c != 0x7f || !ascii) {
				i++
				continue
			}
			b.WriteString(s[done:i])
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			default:
				writeUEscape(b, rune(c))
			}
			i++
			done = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !ascii && (r != utf8.RuneError || size > 1) {
			i += size // valid UTF-8 is written as it is
			continue
		}
		b.WriteString(s[done:i])
		switch {
		case !ascii:
			b.WriteRune(utf8.RuneError) // an invalid byte
		case r > 0xffff:
			r -= 0x10000
			writeUEscape(b, 0xd800+(r>>10))
			writeUEscape(b, 0xdc00+(r&0x3ff))
		default:
			writeUEscape(b, r)
		}
		i += size
		done = i
	}
	b.WriteString(s[done:])
	b.WriteByte('"')
}

// writeUEscape writes r (at most 0xffff) as \uXXXX in lowercase hex.
func writeUEscape(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	b.WriteString(`\u`)
	b.WriteByte(hex[r>>12&0xf])
	b.WriteByte(hex[r>>8&0xf])
	b.WriteByte(hex[r>>4&0xf])
	b.WriteByte(hex[r&0xf])
}
