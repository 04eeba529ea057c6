package command

import (
	"errors"
	"strings"
)

// The errors Python's shlex.split raises; the command module lets them
// escape, so they become the task's message.
var (
	errNoClosingQuote = errors.New("No closing quotation")
	errNoEscapedChar  = errors.New("No escaped character")
)

// shlexState is where the splitter is: between words, inside an unquoted
// word, inside quotes (the quote character) or after a backslash.
type shlexState int

const (
	betweenWords shlexState = iota
	inWord
	inSingleQuotes
	inDoubleQuotes
	afterBackslash
)

// shlexSplit splits a command line into words as Python's shlex.split does
// in POSIX mode without comments: whitespace separates words, single quotes
// keep everything, double quotes keep everything but a backslash before
// '"' or '\', a backslash outside quotes keeps the next character, and
// quotes may start or end in the middle of a word.
func shlexSplit(s string) ([]string, error) {
	var words []string
	var word strings.Builder
	state, beforeEscape := betweenWords, betweenWords
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch state {
		case betweenWords, inWord:
			switch {
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
				if state == inWord {
					words = append(words, word.String())
					word.Reset()
					quoted = false
				}
				state = betweenWords
			case c == '\\':
				beforeEscape, state = inWord, afterBackslash
			case c == '\'':
				state, quoted = inSingleQuotes, true
			case c == '"':
				state, quoted = inDoubleQuotes, true
			default:
				word.WriteByte(c)
				state = inWord
			}
		case inSingleQuotes:
			if c == '\'' {
				state = inWord
			} else {
				word.WriteByte(c)
			}
		case inDoubleQuotes:
			switch c {
			case '"':
				state = inWord
			case '\\':
				beforeEscape, state = inDoubleQuotes, afterBackslash
			default:
				word.WriteByte(c)
			}
		case afterBackslash:
			// Inside double quotes, a backslash escapes only '"' and '\'.
			if beforeEscape == inDoubleQuotes && c != '"' && c != '\\' {
				word.WriteByte('\\')
			}
			word.WriteByte(c)
			state = beforeEscape
		}
	}
	switch state {
	case inSingleQuotes, inDoubleQuotes:
		return nil, errNoClosingQuote
	case afterBackslash:
		return nil, errNoEscapedChar
	case inWord:
		if word.Len() > 0 || quoted {
			words = append(words, word.String())
		}
	}
	return words, nil
}
