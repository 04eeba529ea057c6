package py

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Encode converts text to bytes in a Python codec.
func Encode(s, enc string) ([]byte, error) {
	switch strings.ReplaceAll(strings.ToLower(enc), "_", "-") {
	case "utf-8", "utf8", "u8":
		return []byte(s), nil
	case "ascii", "us-ascii":
		for i, r := range s {
			if r > 0x7f {
				return nil, Errorf("'ascii' codec can't encode character %s in position %d: ordinal not in range(128)", asciiRepr(r), utf8.RuneCountInString(s[:i]))
			}
		}
		return []byte(s), nil
	case "latin-1", "latin1", "iso-8859-1", "iso8859-1":
		out := make([]byte, 0, len(s))
		for i, r := range s {
			if r > 0xff {
				return nil, Errorf("'latin-1' codec can't encode character %s in position %d: ordinal not in range(256)", asciiRepr(r), utf8.RuneCountInString(s[:i]))
			}
			out = append(out, byte(r))
		}
		return out, nil
	case "utf-16", "utf-16-le", "utf-16le", "utf-16-be", "utf-16be":
		e := strings.ReplaceAll(strings.ToLower(enc), "_", "-")
		units := utf16.Encode([]rune(s))
		var out []byte
		be := strings.HasSuffix(e, "be")
		if e == "utf-16" {
			out = append(out, 0xff, 0xfe)
		}
		for _, u := range units {
			if be {
				out = binary.BigEndian.AppendUint16(out, u)
			} else {
				out = binary.LittleEndian.AppendUint16(out, u)
			}
		}
		return out, nil
	}
	return nil, Errorf("unknown encoding: %s", enc)
}

func asciiRepr(r rune) string {
	if r <= 0xff {
		return fmt.Sprintf("'\\x%02x'", r)
	}
	if r <= 0xffff {
		return fmt.Sprintf("'\\u%04x'", r)
	}
	return fmt.Sprintf("'\\U%08x'", r)
}

// Decode converts bytes from a Python codec (undecodable bytes are kept,
// as surrogateescape would).
func Decode(b []byte, enc string) (string, error) {
	switch e := strings.ReplaceAll(strings.ToLower(enc), "_", "-"); e {
	case "utf-8", "utf8", "u8", "ascii", "us-ascii":
		return string(b), nil
	case "latin-1", "latin1", "iso-8859-1", "iso8859-1":
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		return string(r), nil
	case "utf-16", "utf-16-le", "utf-16le", "utf-16-be", "utf-16be":
		be := strings.HasSuffix(e, "be")
		if e == "utf-16" && len(b) >= 2 {
			if b[0] == 0xfe && b[1] == 0xff {
				be, b = true, b[2:]
			} else if b[0] == 0xff && b[1] == 0xfe {
				b = b[2:]
			}
		}
		if len(b)%2 == 1 {
			return "", Errorf("'utf-16-le' codec can't decode byte 0x%02x in position %d: truncated data", b[len(b)-1], len(b)-1)
		}
		units := make([]uint16, len(b)/2)
		for i := range units {
			if be {
				units[i] = binary.BigEndian.Uint16(b[2*i:])
			} else {
				units[i] = binary.LittleEndian.Uint16(b[2*i:])
			}
		}
		return string(utf16.Decode(units)), nil
	}
	return "", Errorf("unknown encoding: %s", enc)
}

// B64Decode is binascii.a2b_base64 in its lenient mode.
func B64Decode(s string) ([]byte, error) {
	const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var out []byte
	quad, pads := 0, 0
	var left byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '=' {
			pads++
			if quad >= 2 && quad+pads >= 4 {
				return out, nil
			}
			continue
		}
		idx := strings.IndexByte(alpha, c)
		if idx < 0 {
			continue
		}
		v := byte(idx)
		pads = 0
		switch quad {
		case 0:
			quad, left = 1, v
		case 1:
			quad = 2
			out = append(out, left<<2|v>>4)
			left = v & 0x0f
		case 2:
			quad = 3
			out = append(out, left<<4|v>>2)
			left = v & 0x03
		case 3:
			quad = 0
			out = append(out, left<<6|v)
			left = 0
		}
	}
	if quad == 1 {
		return nil, Errorf("Invalid base64-encoded string: number of data characters (%d) cannot be 1 more than a multiple of 4", len(out)/3*4+1)
	}
	if quad != 0 {
		return nil, Errorf("Incorrect padding")
	}
	return out, nil
}
