package template

import "testing"

func TestRegexFilters(t *testing.T) {
	runCases(t, []tcase{
		// regex
		{"{{ 'hello world' | regex_replace('o', '0') }}", "hell0 w0rld", ""},
		{"{{ s | regex_replace(p1, r1) }}", "h-ello world\nfoo 42 bar 7", ""},
		{"{{ 'Hello World' | regex_replace('world', 'X', ignorecase=true) }}", "Hello X", ""},
		{"{{ 'aaa' | regex_replace('a', 'b', count=2) }}", "bba", ""},
		{"{{ s | regex_replace(p4, r4, multiline=true) }}", "[hello] world\n[foo] 42 bar 7", ""},
		{"{{ 'x' | regex_replace('a', 'b', 1, 2, 3, 4, 5) }}", nil, fe("ansible.builtin.regex_replace", "regex_replace() takes from 0 to 7 positional arguments but 8 were given")},
		{"{{ 'foo bar' | regex_search('o+') }}", "oo", ""},
		{"{{ s | regex_search(p1, g1, g2) }}", L("h", "e"), ""},
		{"{{ 'foo' | regex_search('z') }}", nil, ""},
		{"{{ 'x' | regex_search }}", nil, fe("ansible.builtin.regex_search", "regex_search() missing 1 required positional argument: 'regex'")},
		{"{{ 'x' | regex_search('x', 'bad') }}", nil, fe("ansible.builtin.regex_search", "Unknown argument")},
		{"{{ s | regex_findall(p2) }}", L("42", "7"), ""},
		{"{{ s | regex_findall(p3) }}", L(T("foo", "42"), T("bar", "7")), ""},
		{"{{ 'x' | regex_findall }}", nil, fe("ansible.builtin.regex_findall", "regex_findall() missing 1 required positional argument: 'regex'")},
		{"{{ 'a.b*c d' | regex_escape }}", `a\.b\*c\ d`, ""},
		{"{{ 'a.b*c' | regex_escape('posix_basic') }}", `a\.b\*c`, ""},
		{"{{ 'a' | regex_escape('foo') }}", nil, fe("ansible.builtin.regex_escape", "Invalid regex type (foo)")},
	})
}
