package command

import (
	"errors"
	"strconv"
	"strings"
	"unicode"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// freeFormKeys are the options ansible-core's parse_kv(check_raw=True)
// takes out of a free-form command line ("ls chdir=/tmp"); every other
// word, k=v or not, stays part of the command.
var freeFormKeys = map[string]bool{
	"creates": true, "removes": true, "chdir": true, "executable": true,
	"warn": true, "stdin": true, "stdin_add_newline": true, "strip_empty_ends": true,
}

// errUnbalanced is split_args' failure on unbalanced quotes or Jinja2
// delimiters.
var errUnbalanced = errors.New("failed at splitting arguments, either an unbalanced jinja2 block or quotes")

// extractFreeFormOptions moves the options written inside a free-form
// command line ("echo hi creates=/x") out of _raw_params, as ansible-core's
// loader does for command, shell, raw and script.
//
// cfzt-runner's loader keeps the whole free-form string as _raw_params, so
// the module does it, after templating rather than before. To keep the
// difference from mattering, the line is rewritten only when one of the
// option words is really there, and left as it is when it cannot be split.
// An option given both in the line and in `args` keeps the line's value,
// as ansible-core's merge does.
func extractFreeFormOptions(args *value.Dict) *value.Dict {
	raw, ok := args.Get("_raw_params")
	line, isStr := raw.(string)
	if !ok || !isStr || !mentionsFreeFormKey(line) {
		return args
	}
	words, err := splitArgs(line)
	if err != nil {
		return args
	}
	var rest []string
	found := value.NewDict(1)
	for _, w := range words {
		k, v, kind := freeFormOption(w)
		switch kind {
		case wordOption:
			found.Set(k, v)
		case wordEscapedEquals:
			rest = append(rest, v)
		default:
			rest = append(rest, w)
		}
	}
	if found.Len() == 0 {
		return args
	}
	out := args.Copy()
	out.Delete("_raw_params")
	if len(rest) > 0 {
		out.Set("_raw_params", joinArgs(rest))
	}
	out.Update(found)
	return out
}

// mentionsFreeFormKey is a cheap test that spares splitting most lines.
func mentionsFreeFormKey(line string) bool {
	for k := range freeFormKeys {
		if strings.Contains(line, k+"=") {
			return true
		}
	}
	return false
}

// wordKind classifies a word of a free-form line.
type wordKind int

const (
	// wordCommand is part of the command, kept as written.
	wordCommand wordKind = iota
	// wordOption is one of freeFormKeys with its value.
	wordOption
	// wordEscapedEquals has '=' only escaped or first: it stays part of
	// the command, decoded and with "\\=" turned into "=".
	wordEscapedEquals
)

// freeFormOption classifies a word as parse_kv does: once escape sequences
// are decoded, the key is what precedes the first unescaped '=' after the
// first character, and the value loses one pair of enclosing quotes.
func freeFormOption(word string) (key, val string, kind wordKind) {
	x := decodeEscapes(word)
	if !strings.Contains(x, "=") {
		return "", "", wordCommand
	}
	eq := -1
	for i := 1; i < len(x); i++ {
		if x[i] == '=' && x[i-1] != '\\' {
			eq = i
			break
		}
	}
	switch {
	case eq < 0:
		return "", strings.ReplaceAll(x, `\=`, "="), wordEscapedEquals
	case !freeFormKeys[x[:eq]]:
		return "", "", wordCommand
	}
	return strings.TrimSpace(x[:eq]), unquote(strings.TrimSpace(x[eq+1:])), wordOption
}

// unquote strips one pair of matching outer quotes, unless the closing
// one is escaped.
func unquote(s string) string {
	if len(s) > 1 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] && s[len(s)-2] != '\\' {
		return s[1 : len(s)-1]
	}
	return s
}

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

// simpleEscapes are the one-character escapes parse_kv decodes.
var simpleEscapes = map[byte]string{
	'\\': `\`, '\'': "'", '"': `"`, 'a': "\a", 'b': "\b", 'f': "\f", 'n': "\n", 'r': "\r", 't': "\t", 'v': "\v",
}

// decodeEscapes decodes the backslash escapes parse_kv recognises (\xHH,
// \uHHHH, \UHHHHHHHH and the one-character ones) and leaves every other
// backslash as it is.
func decodeEscapes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		if rep, ok := simpleEscapes[s[i+1]]; ok {
			b.WriteString(rep)
			i++
			continue
		}
		digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i+1]]
		if digits == 0 || i+2+digits > len(s) {
			b.WriteByte(s[i])
			continue
		}
		n, err := strconv.ParseUint(s[i+2:i+2+digits], 16, 32)
		if err != nil || n > unicode.MaxRune {
			b.WriteByte(s[i])
			continue
		}
		b.WriteRune(rune(n))
		i += 1 + digits
	}
	return b.String()
}
