package py

import (
	"regexp"
	"strconv"
	"strings"
)

// yamlBreakChars are the characters PyYAML treats as line breaks.
const yamlBreakChars = "\n\u0085\u2028\u2029"

// yamlSpaceBreak is spaces before a line break.
var yamlSpaceBreak = regexp.MustCompile(" +([\n\u0085\u2028\u2029])")

// lossyBlockText makes a string fit the literal block style, as
// ansible-core's callbacks do for readability: no trailing spaces, tabs
// expanded, no characters the emitter calls special, no spaces before a
// line break.
func lossyBlockText(s string) string {
	s = strings.TrimRightFunc(s, IsSpace)
	s = expandTabs(s, 8)
	s = strings.Map(func(r rune) rune {
		if r == '\n' || (r >= 0x20 && r <= 0x7e) || r == 0x85 || (r >= 0xa0 && r <= 0xd7ff) ||
			(r >= 0xe000 && r <= 0xfffd && r != 0xfeff) || (r >= 0x10000 && r < 0x10ffff) {
			return r
		}
		return -1
	}, s)
	return yamlSpaceBreak.ReplaceAllString(s, "$1")
}

// expandTabs is Python's str.expandtabs(size).
func expandTabs(s string, size int) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := size - col%size
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n', '\r':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}

// blockHints are PyYAML's determine_block_hints: an indentation
// indicator when the text starts with a space or break, and the chomping
// indicator.
func (e *yamlEmitter) blockHints(text string) string {
	hints := ""
	if text == "" {
		return hints
	}
	runes := []rune(text)
	if strings.ContainsRune(" "+yamlBreakChars, runes[0]) {
		hints += strconv.Itoa(e.bestIndent)
	}
	last := runes[len(runes)-1]
	switch {
	case !strings.ContainsRune(yamlBreakChars, last):
		hints += "-"
	case len(runes) == 1 || strings.ContainsRune(yamlBreakChars, runes[len(runes)-2]):
		hints += "+"
	}
	return hints
}

// writeLiteral is PyYAML's write_literal: the | indicator with its
// hints, then the text line by line at the current indentation.
func (e *yamlEmitter) writeLiteral(text string) {
	e.writeIndicator("|"+e.blockHints(text), true, false, false)
	e.writeLineBreak("")
	runes := []rune(text)
	breaks := true
	start := 0
	for end := 0; end <= len(runes); end++ {
		var ch rune = -1
		if end < len(runes) {
			ch = runes[end]
		}
		isBreak := ch >= 0 && strings.ContainsRune(yamlBreakChars, ch)
		if breaks {
			if !isBreak {
				for _, br := range runes[start:end] {
					if br == '\n' {
						e.writeLineBreak("")
					} else {
						e.writeLineBreak(string(br))
					}
				}
				if ch >= 0 {
					e.writeIndent()
				}
				start = end
			}
		} else if ch < 0 || isBreak {
			e.write(string(runes[start:end]))
			if ch < 0 {
				e.writeLineBreak("")
			}
			start = end
		}
		if ch >= 0 {
			breaks = isBreak
		}
	}
}
