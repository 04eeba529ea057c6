package lookup

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/template"
)

func TestCommandLookups(t *testing.T) {
	dir := t.TempDir()
	e := newEngine()
	e.Environ = func() []string { return []string{"PATH=/usr/bin:/bin", "ONLY_IN_ENGINE=yes"} }
	opt := template.Options{Search: search.Path{Base: dir}}
	cases := []tcase{
		{"{{ lookup('pipe', 'echo hello') }}", "hello", ""},
		{"{{ lookup('pipe', 'printf \"a\\n\\nb \\n\\n\"') }}", "a\n\nb", ""},
		{"{{ lookup('pipe', 'echo a', 'echo b') }}", "a,b", ""},
		{"{{ lookup('pipe', 'pwd') }}", dir, ""},
		{"{{ lookup('pipe', 'echo $ONLY_IN_ENGINE') }}", "yes", ""},
		{"{{ lookup('pipe', 'echo err >&2; echo out') }}", "out", ""},
		{"{{ lookup('pipe', 'exit 3') }}", nil, le("pipe", "lookup_plugin.pipe(exit 3) returned 3")},
		{"{{ lookup('pipe', 'kill -9 $$') }}", nil, le("pipe", "lookup_plugin.pipe(kill -9 $$) returned -9")},
		{"{{ lookup('pipe', 'printf \"\\\\377\"') }}", nil, le("pipe", "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte")},
		{"{{ query('lines', 'printf \"a\\nb\\r\\nc\\rd\\n\\ne\"') }}", L("a", "b", "c", "d", "", "e"), ""},
		{"{{ query('lines', 'true') }}", []any{}, ""},
		{"{{ query('lines', 'exit 2') }}", nil, le("lines", "lookup_plugin.lines(exit 2) returned 2")},
	}
	renderCases(t, e, noVars(), opt, cases)
}
