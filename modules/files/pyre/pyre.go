// Package pyre runs the Python regular expressions that file modules take
// (lineinfile, blockinfile, replace, find, assemble) through engine/py's
// one pattern compiler (RE2, or the backtracking engine where the pattern
// needs it). Their patterns are applied
// line by line, so a $ also matches before a line's final newline, as in
// Python. Replacement templates are engine/py's (py.ParseReplacement).
package pyre

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
)

// Flags select the pattern kind and the re flags.
type Flags = py.RegexFlags

const (
	// Text is a str pattern: \d \w \s are Unicode classes.
	Text = py.RegexText
	// Bytes is a bytes pattern: \d \w \s are ASCII classes.
	Bytes = py.RegexBytes
	// Multiline is re.MULTILINE: ^ and $ match at every line.
	Multiline = py.RegexMultiline
	// DotAll is re.DOTALL: . matches a newline too.
	DotAll = py.RegexDotAll
)

// Compile translates a Python pattern and compiles it.
func Compile(pattern string, flags Flags) (*py.Regexp, error) {
	return py.CompilePattern(pattern, flags|py.RegexFinalNewline)
}

// IsMultiline reports whether a pattern turns re.MULTILINE on with
// leading inline flags, as (?m) or (?mi).
func IsMultiline(pattern string) bool {
	rest, ok := strings.CutPrefix(pattern, "(?")
	if !ok {
		return false
	}
	end := strings.IndexAny(rest, ":)")
	if end < 0 || strings.Trim(rest[:end], "aiLmsux") != "" {
		return false
	}
	return strings.Contains(rest[:end], "m")
}
