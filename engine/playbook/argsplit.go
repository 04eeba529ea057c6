package playbook

import (
	"errors"
	"strings"
)

// errUnbalanced is split_args' failure on unbalanced quotes or Jinja2
// delimiters.
var errUnbalanced = errors.New("failed at splitting arguments, either an unbalanced jinja2 block or quotes")

// joinArgs puts split words back together: a space between two words,
// nothing after a word that ends a line.
func joinArgs(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 && !strings.HasSuffix(words[i-1], "\n") {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// argSplitter holds split_args' state while it walks a line: the words so
// far, the open quote, and how deep it is in each kind of Jinja2 block.
type argSplitter struct {
	words                      []string
	quote                      byte
	print, block, comment      int
	inQuotes, lineContinuation bool
}

// splitArgs splits a line on spaces and newlines as ansible-core's
// split_args does: runs of spaces and the newlines are kept inside the
// words (so joinArgs restores the line), and a quoted string or a Jinja2
// block stays one word even when it contains spaces.
func splitArgs(line string) ([]string, error) {
	if line == "" {
		return nil, nil
	}
	s := &argSplitter{}
	lines := strings.Split(line, "\n")
	for li, l := range lines {
		s.lineContinuation = false
		for ti, tok := range strings.Split(l, " ") {
			s.token(tok, ti)
		}
		if len(lines) > 1 && li != len(lines)-1 && !s.lineContinuation {
			s.appendToLast("\n")
		}
	}
	if s.print > 0 || s.block > 0 || s.comment > 0 || s.inQuotes {
		return nil, errUnbalanced
	}
	return s.words, nil
}

func (s *argSplitter) appendToLast(text string) {
	if len(s.words) == 0 {
		s.words = append(s.words, "")
	}
	s.words[len(s.words)-1] += text
}

func (s *argSplitter) inJinja() bool { return s.print > 0 || s.block > 0 || s.comment > 0 }

// token handles the idx-th space-separated piece of a line.
func (s *argSplitter) token(tok string, idx int) {
	if tok == "" && idx != 0 {
		// Consecutive spaces: keep them on the previous word.
		s.appendToLast(" ")
		return
	}
	if tok == `\` && !s.inQuotes {
		s.lineContinuation = true
		return
	}
	wasInQuotes := s.inQuotes
	s.quote = quoteStateAfter(tok, s.quote)
	s.inQuotes = s.quote != 0
	appended := false
	switch {
	case s.inQuotes && !wasInQuotes && !s.inJinja():
		s.words = append(s.words, tok)
		appended = true
	case s.inJinja() || s.inQuotes || wasInQuotes:
		if idx == 0 && wasInQuotes {
			s.words[len(s.words)-1] += tok
		} else {
			sep := ""
			if idx > 0 {
				sep = " "
			}
			s.appendToLast(sep + tok)
		}
		appended = true
	}
	for _, d := range []struct {
		depth       *int
		open, close string
	}{{&s.print, "{{", "}}"}, {&s.block, "{%", "%}"}, {&s.comment, "{#", "#}"}} {
		before := *d.depth
		*d.depth = jinjaDepth(tok, before, d.open, d.close)
		if *d.depth != before && !appended {
			s.words = append(s.words, tok)
			appended = true
		}
	}
	if !s.inJinja() && !s.inQuotes && !appended && tok != "" {
		s.words = append(s.words, tok)
	}
}

// quoteStateAfter returns the open quote character after tok, given the
// one open before it (0: none); a quote preceded by a backslash is text.
func quoteStateAfter(tok string, open byte) byte {
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if (c != '"' && c != '\'') || (i > 0 && tok[i-1] == '\\') {
			continue
		}
		switch open {
		case 0:
			open = c
		case c:
			open = 0
		}
	}
	return open
}

// jinjaDepth adjusts a block depth by the difference between the opening
// and closing delimiters in tok, never below zero.
func jinjaDepth(tok string, depth int, open, close string) int {
	opens, closes := strings.Count(tok, open), strings.Count(tok, close)
	if opens == closes {
		return depth
	}
	return max(depth+opens-closes, 0)
}
