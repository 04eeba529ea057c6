package template

import "testing"

func TestJinjaTextFilters(t *testing.T) {
	runCases(t, []tcase{
		// capitalize / center / title / upper / lower
		{"{{ 'heLLo wOrld' | capitalize }}", "Hello world", ""},
		{"{{ 'x' | capitalize(1) }}", nil, fe("ansible.builtin.capitalize", "do_capitalize() takes 1 positional argument but 2 were given")},
		{"{{ 'hello world foo' | center(21) }}", "   hello world foo   ", ""},
		{"{{ 'x' | center(1,2) }}", nil, fe("ansible.builtin.center", "do_center() takes from 1 to 2 positional arguments but 3 were given")},
		{`{{ "hello-world (foo)[bar] <baz> x's" | title }}`, "Hello-World (Foo)[Bar] <Baz> X's", ""},
		{"{{ 'x' | title(1) }}", nil, fe("ansible.builtin.title", "do_title() takes 1 positional argument but 2 were given")},
		{"{{ 'aB' | upper }}{{ 'aB' | lower }}", "ABab", ""},
		{"{{ 'x' | upper(zzz=1) }}", nil, fe("ansible.builtin.upper", "do_upper() got an unexpected keyword argument 'zzz'")},
		{"{{ 'x' | lower(zzz=1) }}", nil, fe("ansible.builtin.lower", "do_lower() got an unexpected keyword argument 'zzz'")},
		// format
		{`{{ "%s-%d" | format('a', 3) }}`, "a-3", ""},
		{`{{ "%(x)s" | format(x=1) }}`, "1", ""},
		{`{{ "%s" | format(1, x=2) }}`, nil, fe("ansible.builtin.format", "can't handle positional and keyword arguments at the same time")},
		// indent
		{"{{ ml | indent(2) }}", "a\n  b\n\n  c\n", ""},
		{"{{ ml | indent(2, true, true) }}", "  a\n  b\n  \n  c\n  ", ""},
		{"{{ ml | indent('>>') }}", "a\n>>b\n\n>>c\n", ""},
		{"{{ 5 | indent }}", nil, fe("ansible.builtin.indent", "unsupported operand type(s) for +=: 'int' and 'str'")},
		// pprint
		{"{{ {'b':1,'a':[1,2,{'x':'y'}]} | pprint }}", "{'b': 1, 'a': [1, 2, {'x': 'y'}]}", ""},
		{"{{ 'abc' | pprint }}", "'abc'", ""},
		{"{{ (long ~ ' ' ~ long) | pprint }}", "('The quick brown fox-jumped over the-lazy dog averyveryverylongword and  two  '\n 'spaces The quick brown fox-jumped over the-lazy dog averyveryverylongword '\n 'and  two  spaces')", ""},
		{"{{ 'x' | pprint(zzz=1) }}", nil, fe("ansible.builtin.pprint", "do_pprint() got an unexpected keyword argument 'zzz'")},
		// replace
		{"{{ 'aaaargh' | replace('a', 'd-', 2) }}", "d-d-aargh", ""},
		{"{{ 'x' | replace(zzz=1) }}", nil, fe("ansible.builtin.replace", "do_replace() got an unexpected keyword argument 'zzz'")},
		// string
		{"{{ 5 | string }}", "5", ""},
		{"{{ 'x' | string(1) }}", nil, fe("ansible.builtin.string", "markupsafe._speedups.soft_str() takes exactly one argument (2 given)")},
		// trim / truncate
		{"{{ '  x y  ' | trim }}", "x y", ""},
		{"{{ 'xxaxx' | trim('x') }}", "a", ""},
		{"{{ 'x' | trim(zzz=1) }}", nil, fe("ansible.builtin.trim", "do_trim() got an unexpected keyword argument 'zzz'")},
		{"{{ 'foo bar baz qux' | truncate(9) }}", "foo...", ""},
		{"{{ 'foo bar baz qux' | truncate(9, True) }}", "foo ba...", ""},
		{"{{ 'foo bar baz qux' | truncate(11) }}", "foo bar baz qux", ""},
		{"{{ 'foo bar baz qux' | truncate(11, False, '...', 0) }}", "foo bar...", ""},
		{"{{ 'abc' | truncate(1) }}", nil, fe("ansible.builtin.truncate", "expected length >= 3, got 1")},
		// wordcount / wordwrap
		{"{{ 'Hello World foo' | wordcount }}", 3, ""},
		{"{{ 'x' | wordcount(1) }}", nil, fe("ansible.builtin.wordcount", "do_wordcount() takes 1 positional argument but 2 were given")},
		{"{{ ml | wordwrap(5) }}", "a\nb\n\nc", ""},
		{"{{ long | wordwrap(20) }}", "The quick brown fox-\njumped over the-lazy\ndog averyveryverylon\ngword and  two\nspaces", ""},
		{"{{ long | wordwrap(7, break_on_hyphens=false) }}", "The\nquick\nbrown f\nox-jump\ned over\nthe-laz\ny dog a\nveryver\nyverylo\nngword\nand\ntwo\nspaces", ""},
		{"{{ long | wordwrap(4) }}", "The \nquic\nk br\nown\nfox-\njump\ned\nover\nthe-\nlazy\ndog \naver\nyver\nyver\nylon\ngwor\nd\nand\ntwo\nspac\nes", ""},
		{"{{ long | wordwrap(4, false) }}", "The\nquick\nbrown\nfox-\njumped\nover\nthe-\nlazy\ndog\naveryveryverylongword\nand\ntwo\nspaces", ""},
		{"{{ 'x' | wordwrap(zzz=1) }}", nil, fe("ansible.builtin.wordwrap", "do_wordwrap() got an unexpected keyword argument 'zzz'")},
	})
}
