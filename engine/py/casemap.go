package py

import (
	"strings"
	"unicode"
)

// Python's str.upper(), lower() and title() use Unicode's full case
// mappings, where one character may become several ("ß".upper() is "SS");
// Go's unicode package maps single runes only. These tables hold the
// unconditional multi-character mappings of SpecialCasing.txt that occur in
// practice.
var (
	fullUpper = map[rune]string{
		'ß': "SS", 'ŉ': "ʼN", 'ǰ': "J̌", 'ΐ': "Ϊ́", 'ΰ': "Ϋ́", 'և': "ԵՒ",
		'ẖ': "H̱", 'ẗ': "T̈", 'ẘ': "W̊", 'ẙ': "Y̊", 'ẚ': "Aʾ",
		'ﬀ': "FF", 'ﬁ': "FI", 'ﬂ': "FL", 'ﬃ': "FFI", 'ﬄ': "FFL", 'ﬅ': "ST", 'ﬆ': "ST",
	}
	fullTitle = map[rune]string{
		'ß': "Ss", 'ﬀ': "Ff", 'ﬁ': "Fi", 'ﬂ': "Fl", 'ﬃ': "Ffi", 'ﬄ': "Ffl", 'ﬅ': "St", 'ﬆ': "St",
		'ŉ': "ʼN", 'ǰ': "J̌", 'և': "Եւ",
	}
	fullLower = map[rune]string{'İ': "i̇"}
)

// Upper is Python's str.upper().
func Upper(s string) string { return mapFull(s, fullUpper, unicode.ToUpper) }

// Lower is Python's str.lower().
func Lower(s string) string { return mapFull(s, fullLower, unicode.ToLower) }

// titleRune is the title-case form of one character, as str.title() and
// str.capitalize() apply it to a word's first letter.
func titleRune(r rune) string {
	if m, ok := fullTitle[r]; ok {
		return m
	}
	return string(unicode.ToTitle(r))
}

func mapFull(s string, full map[rune]string, simple func(rune) rune) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		if simple('a') == 'A' {
			return strings.ToUpper(s)
		}
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range s {
		if m, ok := full[r]; ok {
			b.WriteString(m)
			continue
		}
		b.WriteRune(simple(r))
	}
	return b.String()
}

// Capitalize is Python's str.capitalize(): the first character in title
// case, the rest lower case.
func Capitalize(s string) string {
	for i, r := range s {
		return titleRune(r) + Lower(s[i+len(string(r)):])
	}
	return s
}
