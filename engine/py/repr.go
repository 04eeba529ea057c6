package py

import (
	"bytes"
	"fmt"
	"strings"
)

// BytesRepr renders data as Python's repr() of a bytes object.
func BytesRepr(data []byte) string {
	quote := byte('\'')
	if bytes.IndexByte(data, '\'') >= 0 && bytes.IndexByte(data, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte('b')
	b.WriteByte(quote)
	for _, c := range data {
		switch {
		case c == quote || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// ClassRepr is repr() of the class with the qualified name, as in
// "<class 'str'>".
func ClassRepr(name string) string { return "<class '" + name + "'>" }
