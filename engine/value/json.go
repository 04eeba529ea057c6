package value

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSONOptions mirror the arguments of Python's json.dumps that Ansible uses.
type JSONOptions struct {
	// Indent > 0 pretty-prints with that many spaces per level.
	Indent int
	// SortKeys orders dict keys, as Ansible's callbacks and to_nice_json do.
	SortKeys bool
	// EnsureASCII escapes every non-ASCII character as \uXXXX.
	EnsureASCII bool
}

// JSON renders v as Python's json.dumps would with the given options.
func JSON(v any, o JSONOptions) string {
	var b strings.Builder
	writeJSON(&b, v, o, 0)
	return b.String()
}

func writeJSON(b *strings.Builder, v any, o JSONOptions, depth int) {
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
		b.WriteString(s)
	case string:
		WriteJSONString(b, x, o.EnsureASCII)
	case Omit:
		WriteJSONString(b, OmitPlaceholder, o.EnsureASCII)
	case []any:
		writeJSONList(b, x, o, depth)
	case Tuple:
		writeJSONList(b, []any(x), o, depth)
	case *Dict:
		keys := x.Keys()
		if o.SortKeys {
			keys = append([]string(nil), keys...)
			sort.Strings(keys)
		}
		if len(keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
				if o.Indent == 0 {
					b.WriteByte(' ')
				}
			}
			newline(b, o, depth+1)
			WriteJSONString(b, k, o.EnsureASCII)
			b.WriteString(": ")
			e, _ := x.Get(k)
			writeJSON(b, e, o, depth+1)
		}
		newline(b, o, depth)
		b.WriteByte('}')
	default:
		WriteJSONString(b, fmt.Sprint(x), o.EnsureASCII)
	}
}

func writeJSONList(b *strings.Builder, x []any, o JSONOptions, depth int) {
	if len(x) == 0 {
		b.WriteString("[]")
		return
	}
	b.WriteByte('[')
	for i, e := range x {
		if i > 0 {
			b.WriteByte(',')
			if o.Indent == 0 {
				b.WriteByte(' ')
			}
		}
		newline(b, o, depth+1)
		writeJSON(b, e, o, depth+1)
	}
	newline(b, o, depth)
	b.WriteByte(']')
}

func newline(b *strings.Builder, o JSONOptions, depth int) {
	if o.Indent > 0 {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", o.Indent*depth))
	}
}

// WriteJSONString writes s as a JSON string literal, as Python's
// json.dumps does; ascii escapes every non-ASCII character.
func WriteJSONString(b *strings.Builder, s string, ascii bool) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch r {
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
			switch {
			case r < 0x20:
				fmt.Fprintf(b, `\u%04x`, r)
			case ascii && r > 0x7e:
				if r > 0xffff {
					r -= 0x10000
					fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
				} else {
					fmt.Fprintf(b, `\u%04x`, r)
				}
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
