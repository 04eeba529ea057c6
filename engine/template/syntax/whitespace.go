package syntax

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// Whitespace control follows Jinja2's lexer, which decides it per data
// run from the tags on either side:
//
//   - after a tag ending in "-%}", "-}}" or "-#}", all leading whitespace
//     goes; after "+%}" or "+#}" nothing does; after a plain "%}" or "#}"
//     trim_blocks drops one newline (never after "{% raw %}", which has
//     no trim suffix of its own).
//   - before a tag starting with "{%-", "{{-" or "{#-", all trailing
//     whitespace goes; before "{%+" or "{#+" nothing does; before a plain
//     "{%" or "{#" lstrip_blocks drops the spaces and tabs that precede
//     the tag on its line, but only when nothing else is on that line
//     before it: the run holds a newline, or it starts a line (the
//     template's start, or a tag whose end consumed a newline).
//
// The lexer is configured without any of this, so a data token's value is
// its source text.

// dataText is the text of the data token at the cursor once the
// whitespace control of its neighbouring tags and the newline sequence
// are applied.
func (p *parser) dataText() string {
	text, lineStart := p.cur().Val, p.i == 0
	if p.i > 0 {
		text, lineStart = p.trimAfter(p.i-1, text)
	}
	text = p.trimBefore(p.peekTok(1), text, lineStart)
	return p.newlines(text)
}

// trimAfter applies the whitespace control of the tag that ends with the
// token at index i to the text after it, and reports whether the text
// then starts a line.
func (p *parser) trimAfter(i int, text string) (string, bool) {
	end := p.toks[i]
	delim, ok := p.delimiter(end.Type)
	if !ok {
		return text, false
	}
	sign, isTag := strings.CutSuffix(end.Val, delim)
	if !isTag {
		// A line statement ends with its line.
		return text, strings.HasSuffix(end.Val, "\n")
	}
	switch sign {
	case "-":
		trimmed := strings.TrimLeftFunc(text, py.IsSpace)
		return trimmed, strings.HasSuffix(text[:len(text)-len(trimmed)], "\n")
	case "+":
		return text, false
	}
	if end.Type == tokens.VariableEnd || !p.cfg.TrimBlocks || p.isRawBegin(i) {
		return text, false
	}
	if rest, ok := strings.CutPrefix(text, "\n"); ok {
		return rest, true
	}
	return text, false
}

// trimBefore applies the whitespace control of the tag that begins with
// token next to the text before it; lineStart reports whether the text
// starts a line.
func (p *parser) trimBefore(next *tokens.Token, text string, lineStart bool) string {
	delim, ok := p.delimiter(next.Type)
	if !ok {
		return text
	}
	if !strings.HasPrefix(next.Val, delim) {
		return text // a line statement's prefix
	}
	sign := next.Val[len(delim):]
	if sign == "-" {
		return strings.TrimRightFunc(text, py.IsSpace)
	}
	if sign == "+" || !p.cfg.LStripBlocks || next.Type == tokens.VariableBegin {
		return text
	}
	lineAt := strings.LastIndexByte(text, '\n') + 1
	if lineAt == 0 && !lineStart {
		return text
	}
	if indent := text[lineAt:]; indent != "" && strings.TrimLeftFunc(indent, py.IsSpace) == "" {
		return text[:lineAt]
	}
	return text
}

// delimiter is the string the lexer matched for a tag's begin or end
// token, false for other tokens.
func (p *parser) delimiter(t tokens.Type) (string, bool) {
	switch t {
	case tokens.VariableBegin:
		return p.lex.VariableStart, true
	case tokens.VariableEnd:
		return p.lex.VariableEnd, true
	case tokens.BlockBegin:
		return p.lex.BlockStart, true
	case tokens.BlockEnd:
		return p.lex.BlockEnd, true
	case tokens.CommentBegin:
		return p.lex.CommentStart, true
	case tokens.CommentEnd:
		return p.lex.CommentEnd, true
	}
	return "", false
}

// isRawBegin reports whether the block end at index i closes a
// {% raw %} tag.
func (p *parser) isRawBegin(i int) bool {
	return i >= 2 && p.toks[i-1].Type == tokens.Name && p.toks[i-1].Val == "raw" && p.toks[i-2].Type == tokens.BlockBegin
}

// newlines replaces the line breaks of s (already "\n") with the
// configured newline sequence.
func (p *parser) newlines(s string) string {
	if p.cfg.NewlineSequence == "" || p.cfg.NewlineSequence == "\n" {
		return s
	}
	return strings.ReplaceAll(s, "\n", p.cfg.NewlineSequence)
}
