package syntax

import (
	"github.com/nikolalohinski/gonja/v2/config"
)

// Config is the part of a Jinja2 environment that decides how a template's
// text is cut into data and tags: the delimiters, the whitespace control
// options and the newline sequence of the output. The zero value is not
// useful; start from Default. Config is comparable, so it can key a cache.
type Config struct {
	BlockStart, BlockEnd       string
	VariableStart, VariableEnd string
	CommentStart, CommentEnd   string
	// LineStatementPrefix and LineCommentPrefix, when not empty, turn a
	// line that starts with them into a statement or a comment.
	LineStatementPrefix, LineCommentPrefix string
	// TrimBlocks drops the first newline after a block or comment tag;
	// LStripBlocks drops the spaces and tabs between the start of a line
	// and a block or comment tag.
	TrimBlocks, LStripBlocks bool
	// KeepTrailingNewline keeps the source's last newline, which Jinja2
	// drops by default.
	KeepTrailingNewline bool
	// NewlineSequence replaces every line break of the template data and
	// of string constants: "\n", "\r" or "\r\n".
	NewlineSequence string
}

// Default is ansible-core's environment: Jinja2's delimiters and defaults,
// except trim_blocks, which Ansible turns on.
func Default() Config {
	return Config{
		BlockStart: "{%", BlockEnd: "%}",
		VariableStart: "{{", VariableEnd: "}}",
		CommentStart: "{#", CommentEnd: "#}",
		TrimBlocks:      true,
		NewlineSequence: "\n",
	}
}

// lexer returns gonja's lexer configuration for c. The lexer only cuts
// the source at the delimiters: whitespace control, the trailing newline
// and the newline sequence are applied by the parser (see dataText), with
// Jinja2's rules rather than gonja's.
func (c Config) lexer() *config.Config {
	lc := config.New()
	lc.BlockStartString, lc.BlockEndString = c.BlockStart, c.BlockEnd
	lc.VariableStartString, lc.VariableEndString = c.VariableStart, c.VariableEnd
	lc.CommentStartString, lc.CommentEndString = c.CommentStart, c.CommentEnd
	lc.LineStatementPrefix, lc.LineCommentPrefix = c.LineStatementPrefix, c.LineCommentPrefix
	lc.KeepTrailingNewline = true
	return lc
}

// ErrSameStart is why a Config whose block, variable and comment start
// strings are not all different cannot be used, in ansible-core's words.
const ErrSameStart = "Block, variable and comment start strings must be different."

// DistinctStarts reports whether the block, variable and comment start
// strings all differ, as ansible-core requires of its overrides.
func (c Config) DistinctStarts() bool {
	return c.BlockStart != c.VariableStart && c.VariableStart != c.CommentStart && c.CommentStart != c.BlockStart
}
