package template

import (
	"math"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// tcase renders src and expects want (compared with its Go type) or an
// error with exactly the message err.
type tcase struct {
	src  string
	want any
	err  string
}

func testVars() *value.Dict {
	return value.DictOf(
		"users", []any{
			value.DictOf("name", "alice", "groups", []any{"wheel", "dev"}),
			value.DictOf("name", "bob", "groups", []any{"users"}),
			value.DictOf("name", "eve"),
		},
		"d", value.DictOf("b", 1, "a", []any{1, 2.5, nil, true}, "c", value.DictOf("z", "é")),
		"s", "hello world\nfoo 42 bar 7",
		"ml", "a\nb\n\nc\n",
		"long", "The quick brown fox-jumped over the-lazy dog averyveryverylongword and  two  spaces",
		"p1", `(?P<first>h)(e)`, "r1", `\g<first>-\2`, "g1", `\g<first>`, "g2", `\2`,
		"p2", `\d+`, "p3", `([a-z]+) (\d+)`, "p4", `^(\w+)`, "r4", `[\1]`,
		"l1", []any{value.DictOf("name", "a", "x", 1), value.DictOf("name", "b", "x", 2)},
		"l2", []any{value.DictOf("name", "b", "y", 3), value.DictOf("name", "c", "y", 4)},
		"ystr", "- a\n- b: [1, 2]\n",
		"ymulti", "a: 1\n---\nb: 2\n",
		"jstr", `{"a": 1, "b": [1, 2.5, null, true], "c": "\u00e9"}`,
		"myvar", 42,
	)
}

func runCases(t *testing.T, cases []tcase) {
	t.Helper()
	e := New()
	vars := MapVars{D: testVars()}
	for _, c := range cases {
		got, err := e.Render(c.src, vars, Options{SearchPaths: []string{"testdata"}})
		if c.err != "" {
			require.Error(t, err, c.src)
			require.Equal(t, c.err, err.Error(), c.src)
			continue
		}
		require.NoError(t, err, c.src)
		if f, ok := c.want.(float64); ok && math.IsNaN(f) {
			g, isF := got.(float64)
			require.True(t, isF && math.IsNaN(g), c.src)
			continue
		}
		require.Equal(t, listifyTuples(c.want), got, c.src)
	}
}

func L(v ...any) []any           { return v }
func T(v ...any) value.Tuple     { return value.Tuple(v) }
func D(kv ...any) *value.Dict    { return value.DictOf(kv...) }
func fe(name, msg string) string { return "The filter plugin '" + name + "' failed: " + msg }

func TestCoreFilters(t *testing.T) {
	runCases(t, []tcase{
		// abs
		{"{{ -3 | abs }}", 3, ""},
		{"{{ -3.5 | abs }}", 3.5, ""},
		{"{{ 'a' | abs }}", nil, fe("ansible.builtin.abs", "bad operand type for abs(): 'str'")},
		{"{{ 1 | abs(2) }}", nil, fe("ansible.builtin.abs", "abs() takes exactly one argument (2 given)")},
		// attr
		{"{{ {'a':1} | attr('a') }}", nil, "object of type 'dict' has no attribute 'a'"},
		{"{{ 'x' | attr(zzz=1) }}", nil, fe("ansible.builtin.attr", "do_attr() got an unexpected keyword argument 'zzz'")},
		// batch / slice
		{"{{ [1,2,3,4,5] | batch(2, 'x') }}", L(L(1, 2), L(3, 4), L(5, "x")), ""},
		{"{{ 'x' | batch }}", nil, fe("ansible.builtin.batch", "do_batch() missing 1 required positional argument: 'linecount'")},
		{"{{ 'x' | batch(1,2,3) }}", nil, fe("ansible.builtin.batch", "do_batch() takes from 2 to 3 positional arguments but 4 were given")},
		{"{{ [1,2,3,4,5] | slice(3, 'x') }}", L(L(1, 2), L(3, 4), L(5, "x")), ""},
		{"{{ [1,2,3,4,5] | slice(3) }}", L(L(1, 2), L(3, 4), L(5)), ""},
		{"{{ 'x' | slice(zzz=1) }}", nil, fe("ansible.builtin.slice", "sync_do_slice() got an unexpected keyword argument 'zzz'")},
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
		// count / length
		{"{{ [1,2] | count }}", 2, ""},
		{"{{ {'a':1} | length }}", 1, ""},
		{"{{ 5 | length }}", nil, fe("ansible.builtin.length", "object of type 'int' has no len()")},
		{"{{ 'x' | length(1) }}", nil, fe("ansible.builtin.length", "len() takes exactly one argument (2 given)")},
		// default
		{"{{ nope | default('D') }}", "D", ""},
		{"{{ '' | d('D', true) }}", "D", ""},
		{"{{ 'x' | default(1, 'yes') }}", nil, fe("ansible.builtin.default", "The 'boolean' argument must be of type 'bool', not 'str'.")},
		{"{{ 'x' | default(1, 2, 3) }}", nil, fe("ansible.builtin.default", "ansible_default() takes from 1 to 3 positional arguments but 4 were given")},
		// dictsort
		{"{{ {'b':1,'A':2,'a':0} | dictsort }}", L(T("A", 2), T("a", 0), T("b", 1)), ""},
		{"{{ {'b':1,'A':2,'a':0} | dictsort(true, 'value', true) }}", L(T("A", 2), T("b", 1), T("a", 0)), ""},
		{"{{ {'a':1} | dictsort(by='x') }}", nil, fe("ansible.builtin.dictsort", `You can only sort by either "key" or "value"`)},
		// escape / forceescape / safe / striptags / xmlattr
		{"{{ '<a href=\"x\">&' | e }}", "&lt;a href=&#34;x&#34;&gt;&amp;", ""},
		{"{{ '<a>' | forceescape }}", "&lt;a&gt;", ""},
		{"{{ 'x' | escape(1) }}", nil, fe("ansible.builtin.escape", "markupsafe._speedups.escape() takes exactly one argument (2 given)")},
		{"{{ '<a>' | safe }}", "<a>", ""},
		{"{{ 'x' | safe(1) }}", nil, fe("ansible.builtin.safe", "do_mark_safe() takes 1 positional argument but 2 were given")},
		{"{{ '<p>Hi &amp; <b>there</b></p><!-- c -->  x ' | striptags }}", "Hi & there x", ""},
		{"{{ 'x' | striptags(1) }}", nil, fe("ansible.builtin.striptags", "do_striptags() takes 1 positional argument but 2 were given")},
		{`{{ {'class': 'my "list"', 'missing': None, 'id': 5} | xmlattr }}`, ` class="my &#34;list&#34;" id="5"`, ""},
		{"{{ {'class': 'x'} | xmlattr(false) }}", `class="x"`, ""},
		{"{{ {'a b': 1} | xmlattr }}", nil, fe("ansible.builtin.xmlattr", "Invalid character in attribute name: 'a b'")},
		// filesizeformat
		{"{{ 1000000 | filesizeformat }}", "1.0 MB", ""},
		{"{{ 1 | filesizeformat }}", "1 Byte", ""},
		{"{{ 999 | filesizeformat }}", "999 Bytes", ""},
		{"{{ 1048576 | filesizeformat(true) }}", "1.0 MiB", ""},
		{"{{ '3e30' | filesizeformat }}", "3000000.0 YB", ""},
		{"{{ 'x' | filesizeformat }}", nil, fe("ansible.builtin.filesizeformat", "could not convert string to float: 'x'")},
		// first / last
		{"{{ [1,2] | first }}", 1, ""},
		{"{{ {'a':1,'b':2} | first }}", "a", ""},
		{"{{ [] | first }}", nil, "No first item, sequence was empty."},
		{"{{ 5 | first }}", nil, fe("ansible.builtin.first", "'int' object is not iterable")},
		{"{{ 'abc' | last }}", "c", ""},
		{"{{ {'a':1,'b':2} | last }}", "b", ""},
		{"{{ [] | last | default('e') }}", "e", ""},
		// float / int
		{"{{ ' 1.5 ' | float }}", 1.5, ""},
		{"{{ True | float }}", 1.0, ""},
		{"{{ 'inf' | float }}", math.Inf(1), ""},
		{"{{ 'x' | float(None) }}", nil, ""},
		{"{{ 'x' | float(zzz=1) }}", nil, fe("ansible.builtin.float", "do_float() got an unexpected keyword argument 'zzz'")},
		{"{{ '42' | int }}", 42, ""},
		{"{{ '4.2' | int }}", 4, ""},
		{"{{ 'bad' | int }}", 0, ""},
		{"{{ ' 0x1A ' | int(base=16) }}", 26, ""},
		{"{{ '0b101' | int(base=0) }}", 5, ""},
		{"{{ '1_000' | int }}", 1000, ""},
		{"{{ '1e3' | int }}", 1000, ""},
		{"{{ 'nan' | int }}", 0, ""},
		{"{{ '12abc' | int('d') }}", "d", ""},
		{"{{ None | int }}", 0, ""},
		{"{{ -3.99 | int }}", -3, ""},
		{"{{ 'x' | int(1,2,3) }}", nil, fe("ansible.builtin.int", "do_int() takes from 1 to 3 positional arguments but 4 were given")},
		{"{{ 'x' | int(1, default=2) }}", nil, fe("ansible.builtin.int", "do_int() got multiple values for argument 'default'")},
		// format
		{`{{ "%s-%d" | format('a', 3) }}`, "a-3", ""},
		{`{{ "%(x)s" | format(x=1) }}`, "1", ""},
		{`{{ "%s" | format(1, x=2) }}`, nil, fe("ansible.builtin.format", "can't handle positional and keyword arguments at the same time")},
		// groupby
		{"{{ [{'a':'B'},{'a':'a'},{'a':'b'}] | groupby('a') }}", L(T("a", L(D("a", "a"))), T("B", L(D("a", "B"), D("a", "b")))), ""},
		{"{{ [{'a':'B'},{'a':'a'},{'a':'b'}] | groupby('a', case_sensitive=true) | length }}", 3, ""},
		{"{% for k, items in users | groupby('name') %}{{ k }}:{{ items | length }} {% endfor %}", "alice:1 bob:1 eve:1 ", ""},
		{"{{ 'x' | groupby }}", nil, fe("ansible.builtin.groupby", "sync_do_groupby() missing 1 required positional argument: 'attribute'")},
		// indent
		{"{{ ml | indent(2) }}", "a\n  b\n\n  c\n", ""},
		{"{{ ml | indent(2, true, true) }}", "  a\n  b\n  \n  c\n  ", ""},
		{"{{ ml | indent('>>') }}", "a\n>>b\n\n>>c\n", ""},
		{"{{ 5 | indent }}", nil, fe("ansible.builtin.indent", "unsupported operand type(s) for +=: 'int' and 'str'")},
		// items
		{"{{ {'a':1} | items | list }}", L(T("a", 1)), ""},
		{"{{ 1 | items }}", nil, fe("ansible.builtin.items", "Can only get item pairs from a mapping.")},
		// join
		{"{{ [1,2] | join }}", "12", ""},
		{"{{ [{'a':1},{'a':'x'}] | join(', ', attribute='a') }}", "1, x", ""},
		{"{{ 1 | join(',') }}", nil, fe("ansible.builtin.join", "'int' object is not iterable")},
		{"{{ [{'a':1}] | map(attribute='b') | join }}", nil, "object of type 'dict' has no attribute 'b'"},
		// list
		{"{{ 'ab' | list }}", L("a", "b"), ""},
		{"{{ 'x' | list(1) }}", nil, fe("ansible.builtin.list", "sync_do_list() takes 1 positional argument but 2 were given")},
		// map
		{"{{ [1,2] | map('string') | list }}", L("1", "2"), ""},
		{"{{ [{'a':1},{'b':2}] | map(attribute='a', default=0) | list }}", L(1, 0), ""},
		{"{{ [{'a':{'b':[5,6]}}] | map(attribute='a.b.1') | list }}", L(6), ""},
		{"{{ [1] | map('int', 1, 2, 3) | list }}", nil, fe("ansible.builtin.int", "do_int() takes from 1 to 3 positional arguments but 4 were given")},
		{"{{ [1] | map('nosuch') | list }}", nil, fe("ansible.builtin.map", "No filter named 'nosuch'.")},
		{"{{ [1] | map }}", nil, fe("ansible.builtin.map", "map requires a filter argument")},
		{"{{ [{'a':1}] | map(attribute='b') | list }}", nil, "object of type 'dict' has no attribute 'b'"},
		// max / min
		{"{{ ['B','a'] | max }}", "B", ""},
		{"{{ ['B','a'] | max(case_sensitive=true) }}", "a", ""},
		{"{{ [{'a':3},{'a':5}] | max(attribute='a') }}", D("a", 5), ""},
		{"{{ [3, 1, 2] | min }}", 1, ""},
		{"{{ [1,'a'] | max }}", nil, fe("ansible.builtin.max", "'>' not supported between instances of 'str' and 'int'")},
		{"{{ [1,'a'] | min }}", nil, fe("ansible.builtin.min", "'<' not supported between instances of 'str' and 'int'")},
		{"{{ [] | max }}", nil, "No aggregated item, sequence was empty."},
		// pprint
		{"{{ {'b':1,'a':[1,2,{'x':'y'}]} | pprint }}", "{'b': 1, 'a': [1, 2, {'x': 'y'}]}", ""},
		{"{{ 'abc' | pprint }}", "'abc'", ""},
		{"{{ (long ~ ' ' ~ long) | pprint }}", "('The quick brown fox-jumped over the-lazy dog averyveryverylongword and  two  '\n 'spaces The quick brown fox-jumped over the-lazy dog averyveryverylongword '\n 'and  two  spaces')", ""},
		{"{{ 'x' | pprint(zzz=1) }}", nil, fe("ansible.builtin.pprint", "do_pprint() got an unexpected keyword argument 'zzz'")},
		// select / reject / selectattr / rejectattr
		{"{{ [1,2,3,4] | select('odd') | list }}", L(1, 3), ""},
		{"{{ [1,2,3,4] | reject('gt', 2) | list }}", L(1, 2), ""},
		{"{{ [{'a':1},{'a':2}] | selectattr('a', '>=', 2) | list }}", L(D("a", 2)), ""},
		{"{{ [{'a':1},{'a':2}] | rejectattr('a', 'equalto', 2) | list }}", L(D("a", 1)), ""},
		{"{{ [{'a':1},{'b':2}] | selectattr('a', 'defined') | list }}", L(D("a", 1)), ""},
		{"{{ [0, 1, ''] | select | list }}", L(1), ""},
		{"{{ ['ab', 'cd'] | select('match', 'c') | list }}", L("cd"), ""},
		{"{{ [1,2] | select('nosuch') }}", nil, fe("ansible.builtin.select", "No test named 'nosuch'.")},
		{"{{ [1] | select('divisibleby', 'a') | list }}", nil, "The test plugin 'ansible.builtin.divisibleby' failed: unsupported operand type(s) for %: 'int' and 'str'"},
		{"{{ [{'a':1},{'b':2}] | selectattr('a') | list }}", nil, "object of type 'dict' has no attribute 'a'"},
		{"{{ [1] | selectattr }}", nil, fe("ansible.builtin.selectattr", "Missing parameter for attribute name")},
		{"{{ [1] | rejectattr }}", nil, fe("ansible.builtin.rejectattr", "Missing parameter for attribute name")},
		// replace / reverse
		{"{{ 'aaaargh' | replace('a', 'd-', 2) }}", "d-d-aargh", ""},
		{"{{ 'x' | replace(zzz=1) }}", nil, fe("ansible.builtin.replace", "do_replace() got an unexpected keyword argument 'zzz'")},
		{"{{ [1,2] | reverse }}", L(2, 1), ""},
		{"{{ 'abc' | reverse }}", "cba", ""},
		{"{{ {'a':1,'b':2} | reverse }}", L("b", "a"), ""},
		{"{{ 5 | reverse }}", nil, fe("ansible.builtin.reverse", "argument must be iterable")},
		// round
		{"{{ 42 | round }}", 42, ""},
		{"{{ 42.55 | round }}", 43.0, ""},
		{"{{ 2.675 | round(2) }}", 2.67, ""},
		{"{{ 1250 | round(-2) }}", 1200, ""},
		{"{{ 1234.5 | round(-2) }}", 1200.0, ""},
		{"{{ 42.55 | round(1, 'floor') }}", 42.5, ""},
		{"{{ 42 | round(1, 'ceil') }}", 42.0, ""},
		{"{{ 'x' | round }}", nil, fe("ansible.builtin.round", "type str doesn't define __round__ method")},
		{"{{ 1.5 | round(method='x') }}", nil, fe("ansible.builtin.round", "method must be common, ceil or floor")},
		// sort
		{"{{ ['b','A','a','B'] | sort }}", L("A", "a", "b", "B"), ""},
		{"{{ ['b','A','a','B'] | sort(case_sensitive=true) }}", L("A", "B", "a", "b"), ""},
		{"{{ [{'n':'x','a':2},{'n':'y','a':1},{'n':'z','a':2}] | sort(attribute='a,n', reverse=true) | map(attribute='n') | list }}", L("z", "x", "y"), ""},
		{"{{ [1,'a'] | sort }}", nil, fe("ansible.builtin.sort", "'<' not supported between instances of 'str' and 'int'")},
		{"{{ [{'a':1},{'b':2}] | sort(attribute='a') }}", nil, "object of type 'dict' has no attribute 'a'"},
		{"{{ 'x' | sort(1,2,3,4) }}", nil, fe("ansible.builtin.sort", "do_sort() takes from 2 to 5 positional arguments but 6 were given")},
		// string
		{"{{ 5 | string }}", "5", ""},
		{"{{ 'x' | string(1) }}", nil, fe("ansible.builtin.string", "markupsafe._speedups.soft_str() takes exactly one argument (2 given)")},
		// sum
		{"{{ [[1],[2]] | sum(start=[]) }}", L(1, 2), ""},
		{"{{ [{'p':1.5},{'p':2}] | sum(attribute='p') }}", 3.5, ""},
		{"{{ [1,2] | sum(start='a') }}", nil, fe("ansible.builtin.sum", "sum() can't sum strings [use ''.join(seq) instead]")},
		// tojson
		{`{{ {'b':'<&>','a':[1,2.5,None,True, 'é']} | tojson }}`, `{"a": [1, 2.5, null, true, "\u00e9"], "b": "\u003c\u0026\u003e"}`, ""},
		{"{{ {'b':1,'a':[1,2]} | tojson(2) }}", "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": 1\n}", ""},
		{"{{ 'x' | tojson(zzz=1) }}", nil, fe("ansible.builtin.tojson", "do_tojson() got an unexpected keyword argument 'zzz'")},
		// trim / truncate
		{"{{ '  x y  ' | trim }}", "x y", ""},
		{"{{ 'xxaxx' | trim('x') }}", "a", ""},
		{"{{ 'x' | trim(zzz=1) }}", nil, fe("ansible.builtin.trim", "do_trim() got an unexpected keyword argument 'zzz'")},
		{"{{ 'foo bar baz qux' | truncate(9) }}", "foo...", ""},
		{"{{ 'foo bar baz qux' | truncate(9, True) }}", "foo ba...", ""},
		{"{{ 'foo bar baz qux' | truncate(11) }}", "foo bar baz qux", ""},
		{"{{ 'foo bar baz qux' | truncate(11, False, '...', 0) }}", "foo bar...", ""},
		{"{{ 'abc' | truncate(1) }}", nil, fe("ansible.builtin.truncate", "expected length >= 3, got 1")},
		// urlencode / urlize
		{"{{ {'a b c': 1} | urlencode }}", "a+b+c=1", ""},
		{"{{ 'a b/c?d=é' | urlencode }}", "a%20b/c%3Fd%3D%C3%A9", ""},
		{"{{ {'k': 'v w', 'x': '/&'} | urlencode }}", "k=v+w&x=%2F%26", ""},
		{"{{ [['a', 1], ['b', 2]] | urlencode }}", "a=1&b=2", ""},
		{"{{ 'x' | urlencode(zzz=1) }}", nil, fe("ansible.builtin.urlencode", "do_urlencode() got an unexpected keyword argument 'zzz'")},
		{"{{ 'see http://example.com/x?a=1&b=2, or www.foo.org. mail me@x.com (https://a.b/c)' | urlize }}",
			`see <a href="http://example.com/x?a=1&amp;b=2" rel="noopener">http://example.com/x?a=1&amp;b=2</a>, or <a href="https://www.foo.org" rel="noopener">www.foo.org</a>. mail <a href="mailto:me@x.com">me@x.com</a> (https://a.b/c)`, ""},
		{"{{ 'http://example.com/averylongpath' | urlize(10, true, '_blank') }}", `<a href="http://example.com/averylongpath" rel="nofollow noopener" target="_blank">http://exa...</a>`, ""},
		{"{{ 'x' | urlize(zzz=1) }}", nil, fe("ansible.builtin.urlize", "do_urlize() got an unexpected keyword argument 'zzz'")},
		// wordcount / wordwrap
		{"{{ 'Hello World foo' | wordcount }}", 3, ""},
		{"{{ 'x' | wordcount(1) }}", nil, fe("ansible.builtin.wordcount", "do_wordcount() takes 1 positional argument but 2 were given")},
		{"{{ ml | wordwrap(5) }}", "a\nb\n\nc", ""},
		{"{{ long | wordwrap(20) }}", "The quick brown fox-\njumped over the-lazy\ndog averyveryverylon\ngword and  two\nspaces", ""},
		{"{{ long | wordwrap(7, break_on_hyphens=false) }}", "The\nquick\nbrown f\nox-jump\ned over\nthe-laz\ny dog a\nveryver\nyverylo\nngword\nand\ntwo\nspaces", ""},
		{"{{ long | wordwrap(4) }}", "The \nquic\nk br\nown\nfox-\njump\ned\nover\nthe-\nlazy\ndog \naver\nyver\nyver\nylon\ngwor\nd\nand\ntwo\nspac\nes", ""},
		{"{{ long | wordwrap(4, false) }}", "The\nquick\nbrown\nfox-\njumped\nover\nthe-\nlazy\ndog\naveryveryverylongword\nand\ntwo\nspaces", ""},
		{"{{ 'x' | wordwrap(zzz=1) }}", nil, fe("ansible.builtin.wordwrap", "do_wordwrap() got an unexpected keyword argument 'zzz'")},
		// FQCN
		{"{{ [3, 1] | ansible.builtin.sort }}", L(1, 3), ""},
	})
}

func TestAnsibleFilters(t *testing.T) {
	runCases(t, []tcase{
		// bool / ternary / mandatory
		{"{{ 'yes' | bool }}", true, ""},
		{"{{ 'Off' | bool }}", false, ""},
		{"{{ 1 | bool }}", true, ""},
		{"{{ 'x' | bool }}", false, ""},
		{"{{ 'x' | bool(zzz=1) }}", nil, fe("ansible.builtin.bool", "to_bool() got an unexpected keyword argument 'zzz'")},
		{"{{ true | ternary('y', 'n') }}", "y", ""},
		{"{{ None | ternary('y', 'n', 'none') }}", "none", ""},
		{"{{ 0 | ternary('y') }}", nil, fe("ansible.builtin.ternary", "ternary() missing 1 required positional argument: 'false_val'")},
		{"{{ 1 | mandatory }}", 1, ""},
		{"{{ nope | mandatory }}", nil, fe("ansible.builtin.mandatory", "Mandatory variable 'nope' not defined.")},
		{"{{ nope | mandatory('custom') }}", nil, fe("ansible.builtin.mandatory", "custom")},
		// combine
		{"{{ {'a': {'x': 1, 'l': [1]}} | combine({'a': {'y': 2, 'l': [2]}}) }}", D("a", D("y", 2, "l", L(2))), ""},
		{"{{ {'a': {'x': 1, 'l': [1]}} | combine({'a': {'y': 2, 'l': [2]}}, recursive=true) }}", D("a", D("x", 1, "l", L(2), "y", 2)), ""},
		{"{{ {'a': {'x': 1, 'l': [1, 3]}} | combine({'a': {'y': 2, 'l': [3, 2]}}, recursive=true, list_merge='append_rp') }}", D("a", D("x", 1, "l", L(1, 3, 2), "y", 2)), ""},
		{"{{ [{'a':1}, {'b':2}] | combine }}", D("a", 1, "b", 2), ""},
		{"{{ {'a':1} | combine({'b':2}, {'a':3}) }}", D("a", 3, "b", 2), ""},
		{"{{ 'a' | combine({}) }}", nil, fe("ansible.builtin.combine", "failed to combine variables, expected dicts but got a 'str' and a '_AnsibleLazyTemplateDict'.")},
		{"{{ 'x' | combine(zzz=1) }}", nil, fe("ansible.builtin.combine", "'recursive' and 'list_merge' are the only valid keyword arguments")},
		// b64
		{"{{ 'héllo wörld' | b64encode }}", "aMOpbGxvIHfDtnJsZA==", ""},
		{"{{ 'aGVsbG8=' | b64decode }}", "hello", ""},
		{"{{ 'a?b' | b64encode(urlsafe=true) }}", "YT9i", ""},
		{"{{ 'hello' | b64encode(encoding='utf-16-le') }}", "aABlAGwAbABvAA==", ""},
		{"{{ 'aGVsbG8' | b64decode }}", nil, fe("ansible.builtin.b64decode", "Incorrect padding")},
		{"{{ 'a' | b64decode }}", nil, fe("ansible.builtin.b64decode", "Invalid base64-encoded string: number of data characters (1) cannot be 1 more than a multiple of 4")},
		// JSON
		{"{{ d | to_json }}", `{"b": 1, "a": [1, 2.5, null, true], "c": {"z": "\u00e9"}}`, ""},
		{"{{ d | to_nice_json }}", "{\n    \"a\": [\n        1,\n        2.5,\n        null,\n        true\n    ],\n    \"b\": 1,\n    \"c\": {\n        \"z\": \"\\u00e9\"\n    }\n}", ""},
		{"{{ d | to_json(indent=2, sort_keys=true) }}", "{\n  \"a\": [\n    1,\n    2.5,\n    null,\n    true\n  ],\n  \"b\": 1,\n  \"c\": {\n    \"z\": \"\\u00e9\"\n  }\n}", ""},
		{"{{ 'é' | to_json(ensure_ascii=false) }}", `"é"`, ""},
		{"{{ [1.0, 1e20, 1.5e-7, None] | to_json }}", "[1.0, 1e+20, 1.5e-07, null]", ""},
		{"{{ 'x' | to_json(zzz=1) }}", nil, fe("ansible.builtin.to_json", "JSONEncoder.__init__() got an unexpected keyword argument 'zzz'")},
		{"{{ jstr | from_json }}", D("a", 1, "b", L(1, 2.5, nil, true), "c", "é"), ""},
		{"{{ '[1, 2' | from_json }}", nil, fe("ansible.builtin.from_json", "Expecting ',' delimiter: line 1 column 6 (char 5)")},
		{`{{ '{"a" 1}' | from_json }}`, nil, fe("ansible.builtin.from_json", "Expecting ':' delimiter: line 1 column 6 (char 5)")},
		{"{{ '' | from_json }}", nil, fe("ansible.builtin.from_json", "Expecting value: line 1 column 1 (char 0)")},
		{`{{ '{"a": 1} x' | from_json }}`, nil, fe("ansible.builtin.from_json", "Extra data: line 1 column 10 (char 9)")},
		// YAML
		{"{{ ystr | from_yaml }}", L("a", D("b", L(1, 2))), ""},
		{"{{ ymulti | from_yaml_all }}", L(D("a", 1), D("b", 2)), ""},
		{"{{ 'x' | from_yaml(zzz=1) }}", nil, fe("ansible.builtin.from_yaml", "from_yaml() got an unexpected keyword argument 'zzz'")},
		{"{{ d | to_yaml }}", "a: [1, 2.5, null, true]\nb: 1\nc: {z: é}\n", ""},
		{"{{ users | to_nice_yaml }}", "-   groups:\n    - wheel\n    - dev\n    name: alice\n-   groups:\n    - users\n    name: bob\n-   name: eve\n", ""},
		{"{{ users | to_nice_yaml(indent=2) }}", "- groups:\n  - wheel\n  - dev\n  name: alice\n- groups:\n  - users\n  name: bob\n- name: eve\n", ""},
		{"{{ ['', 'yes', '1', 'a: b', 'tab\tx', '- x', 'a,b', '2001-01-01', 'y'] | to_yaml }}", "['', 'yes', '1', 'a: b', \"tab\\tx\", '- x', 'a,b', '2001-01-01', y]\n", ""},
		{"{{ ['', 'yes', 'a,b', '?q', 'ends:'] | to_nice_yaml }}", "- ''\n- 'yes'\n- a,b\n- ?q\n- 'ends:'\n", ""},
		{"{{ long | to_yaml }}", "The quick brown fox-jumped over the-lazy dog averyveryverylongword and  two  spaces\n", ""},
		{"{{ (long ~ ' ' ~ long) | to_nice_yaml }}", "The quick brown fox-jumped over the-lazy dog averyveryverylongword and  two  spaces\n    The quick brown fox-jumped over the-lazy dog averyveryverylongword and  two  spaces\n", ""},
		{"{{ [[1,2],[[3]],{'a':[]}] | to_nice_yaml }}", "-   - 1\n    - 2\n-   -   - 3\n-   a: []\n", ""},
		{"{{ [[1,2],[[3]],{'a':[]}] | to_yaml }}", "- [1, 2]\n- - [3]\n- a: []\n", ""},
		{"{{ 'abc' | to_yaml }}", "abc\n", ""},
		{"{{ 'x' | to_yaml(zzz=1) }}", nil, fe("ansible.builtin.to_yaml", "dump_all() got an unexpected keyword argument 'zzz'")},
		// dict2items / items2dict
		{"{{ {'a':1} | dict2items }}", L(D("key", "a", "value", 1)), ""},
		{"{{ {'a':1} | dict2items(key_name='k', value_name='v') }}", L(D("k", "a", "v", 1)), ""},
		{"{{ 'a' | dict2items }}", nil, fe("ansible.builtin.dict2items", "dict2items requires a dictionary, got <class 'str'> instead.")},
		{"{{ [{'k':'a','v':1}] | items2dict(key_name='k', value_name='v') }}", D("a", 1), ""},
		{"{{ [{'key':'a'}] | items2dict }}", nil, fe("ansible.builtin.items2dict", "items2dict requires each dictionary in the list to contain the keys 'key' and 'value', got [{'key': 'a'}] instead.")},
		{"{{ [1] | items2dict }}", nil, fe("ansible.builtin.items2dict", "items2dict requires a list of dictionaries, got [1] instead.")},
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
		// flatten / zip
		{"{{ [1, [2, [3, None, 'null']], 'None'] | flatten }}", L(1, 2, 3), ""},
		{"{{ [1, [2, [3, None]]] | flatten(levels=1) }}", L(1, 2, L(3, nil)), ""},
		{"{{ [1, [2, [3, None]]] | flatten(skip_nulls=false) }}", L(1, 2, 3, nil), ""},
		{"{{ {'a':1} | flatten }}", L("a"), ""},
		{"{{ 'x' | flatten(zzz=1) }}", nil, fe("ansible.builtin.flatten", "flatten() got an unexpected keyword argument 'zzz'")},
		{"{{ [1,2,3] | zip(['a','b']) }}", L(T(1, "a"), T(2, "b")), ""},
		{"{{ [1,2,3] | zip_longest(['a'], fillvalue='-') }}", L(T(1, "a"), T(2, "-"), T(3, "-")), ""},
		{"{{ 'x' | zip(zzz=1) }}", nil, fe("ansible.builtin.zip", "'zzz' is an invalid keyword argument for zip()")},
		{"{{ 'x' | zip_longest(zzz=1) }}", nil, fe("ansible.builtin.zip_longest", "zip_longest() got an unexpected keyword argument")},
		// sets (CPython set order for numbers)
		{"{{ [3,1,2] | union([5,4,1]) }}", L(1, 2, 3, 4, 5), ""},
		{"{{ [10, 3, 100, 7, 1000, 64, 33] | union([2, 9, 65]) }}", L(64, 33, 65, 3, 100, 2, 7, 1000, 9, 10), ""},
		{"{{ [3,1,2,8,5] | intersect([5,4,1,2]) }}", L(1, 2, 5), ""},
		{"{{ [3,1,2,8] | difference([5,4,1]) }}", L(8, 2, 3), ""},
		{"{{ [3,1,2,8] | symmetric_difference([5,4,1]) }}", L(2, 3, 4, 5, 8), ""},
		{"{{ [[1],[2]] | union([[2],[3]]) }}", L(L(1), L(2), L(3)), ""},
		{"{{ ['a','b','a'] | unique }}", L("a", "b"), ""},
		{"{{ ['b','A','a','B'] | unique }}", L("b", "A"), ""},
		{"{{ ['b','A','a','B'] | unique(case_sensitive=true) }}", L("b", "A", "a", "B"), ""},
		{"{{ [{'a':1},{'a':1},[1],[1]] | unique }}", L(D("a", 1), L(1)), ""},
		{"{{ [1, 1.0, True, '1'] | unique }}", L(1, "1"), ""},
		{"{{ [{'a':1},{'a':1}] | unique(case_sensitive=false) }}", nil, fe("ansible.builtin.unique", "Jinja2's unique filter failed and we cannot fall back to Ansible's version as it does not support the parameters supplied: unhashable type: 'dict'")},
		{"{{ 'x' | union(zzz=1) }}", nil, fe("ansible.builtin.union", "union() got an unexpected keyword argument 'zzz'")},
		// hashes
		{"{{ 'hello' | hash }}", "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d", ""},
		{"{{ 'hello' | hash('md5') }}", "5d41402abc4b2a76b9719d911017c592", ""},
		{"{{ 'hello' | hash('sha256') }}", "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", ""},
		{"{{ 'hello' | checksum }}", "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d", ""},
		{"{{ 'hello' | md5 }}", "5d41402abc4b2a76b9719d911017c592", ""},
		{"{{ 'hello' | sha1 }}", "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d", ""},
		{"{{ 123 | hash('md5') }}", "202cb962ac59075b964b07152d234b70", ""},
		{"{{ 1 | hash('nope') }}", nil, fe("ansible.builtin.hash", "unsupported hash type nope")},
		// quote
		{`{{ "it's" | quote }}`, `'it'"'"'s'`, ""},
		{"{{ 'abc' | quote }}", "abc", ""},
		{"{{ '' | quote }}", "''", ""},
		{"{{ None | quote }}", "''", ""},
		{"{{ 'x' | quote(zzz=1) }}", nil, fe("ansible.builtin.quote", "quote() got an unexpected keyword argument 'zzz'")},
		// paths
		{"{{ '/etc/foo/bar.txt' | basename }}", "bar.txt", ""},
		{"{{ '/etc/foo/' | basename }}", "", ""},
		{"{{ '/etc/foo/bar.txt' | dirname }}", "/etc/foo", ""},
		{"{{ '/etc/foo/bar.tar.gz' | splitext }}", T("/etc/foo/bar.tar", ".gz"), ""},
		{"{{ '.bashrc' | splitext }}", T(".bashrc", ""), ""},
		{"{{ '/a/b/../c/./d' | normpath }}", "/a/c/d", ""},
		{"{{ ['/a', 'b', 'c'] | path_join }}", "/a/b/c", ""},
		{"{{ ['/a', '/b', 'c'] | path_join }}", "/b/c", ""},
		{"{{ '/usr/lib' | relpath('/usr/share/doc') }}", "../../lib", ""},
		{"{{ 5 | basename }}", nil, fe("ansible.builtin.basename", "expected str, bytes or os.PathLike object, not int")},
		{"{{ '~' | expanduser | length > 0 }}", true, ""},
		{"{{ '/' | realpath }}", "/", ""},
		// extract / subelements
		{"{{ 'x' | extract({'x': 1}) }}", 1, ""},
		{"{{ 0 | extract([5,6]) }}", 5, ""},
		{"{{ 'a' | extract({'a': {'b': {'c': 9}}}, ['b', 'c']) }}", 9, ""},
		{"{{ 'q' | extract({'a': 1}) }}", nil, "object of type 'dict' has no attribute 'q'"},
		{"{{ users | subelements('groups', skip_missing=true) | map('last') | list }}", L("wheel", "dev", "users"), ""},
		{"{{ users | subelements('nope') }}", nil, fe("ansible.builtin.subelements", "could not find 'nope' key in iterated item {'name': 'alice', 'groups': ['wheel', 'dev']}")},
		{"{{ 5 | subelements('x') }}", nil, fe("ansible.builtin.subelements", "obj must be a list of dicts or a nested dict")},
		// type_debug
		{"{{ [1, 2.5, True, 'a', None, [1], {}] | map('type_debug') | list }}", L("int", "float", "bool", "str", "NoneType", "list", "dict"), ""},
		{"{{ range(3) | type_debug }}", "range", ""},
		{"{{ 'x' | type_debug(1) }}", nil, fe("ansible.builtin.type_debug", "type_debug() takes 1 positional argument but 2 were given")},
		// dates
		{"{{ '2024-01-02 03:04:05' | to_datetime | string }}", "2024-01-02 03:04:05", ""},
		{"{{ '2024-01-02' | to_datetime('%Y-%m-%d') | type_debug }}", "datetime", ""},
		{"{{ 'a' | to_datetime }}", nil, fe("ansible.builtin.to_datetime", "time data 'a' does not match format '%Y-%m-%d %H:%M:%S'")},
		{"{{ '%Y-%m-%d %H:%M:%S' | strftime(0, utc=true) }}", "1970-01-01 00:00:00", ""},
		{"{{ '%Y-%m-%d' | strftime(1700000000.7, true) }}", "2023-11-14", ""},
		{"{{ '%Y' | strftime('a') }}", nil, fe("ansible.builtin.strftime", "Invalid value for epoch value (a)")},
		// comment
		{"{{ 'hello' | comment }}", "#\n# hello\n#", ""},
		{"{{ 'hello' | comment('cblock') }}", "/*\n *\n * hello\n *\n */", ""},
		{"{{ 'hello' | comment('xml') }}", "<!--\n -\n - hello\n -\n-->", ""},
		{"{{ ml | comment('c') }}", "//\n// a\n// b\n//\n// c\n// \n//", ""},
		{"{{ 'hello' | comment('nope') }}", nil, fe("ansible.builtin.comment", "Invalid style 'nope'.")},
		// urls
		{"{{ 'http://user:pw@www.Example.com:9000/dir/index.html?query=term#frag' | urlsplit }}",
			D("fragment", "frag", "hostname", "www.example.com", "netloc", "user:pw@www.Example.com:9000", "password", "pw",
				"path", "/dir/index.html", "port", 9000, "query", "query=term", "scheme", "http", "username", "user"), ""},
		{"{{ 'http://www.example.com/x' | urlsplit('hostname') }}", "www.example.com", ""},
		{"{{ 'http://www.example.com/x' | urlsplit('port') }}", nil, ""},
		{"{{ 'http://www.example.com/x' | urlsplit('nope') }}", nil, fe("ansible.builtin.urlsplit", "urlsplit: unknown URL component: nope")},
		{"{{ 'a%20b+c' | urldecode }}", "a b c", ""},
		// human
		{"{{ 1024 | human_readable }}", "1.00 KB", ""},
		{"{{ 1048576 | human_readable(unit='K') }}", "1024.00 KB", ""},
		{"{{ 10 | human_readable(isbits=true) }}", "10.00 bits", ""},
		{"{{ 'x' | human_readable }}", nil, fe("ansible.builtin.human_readable", "human_readable() failed on bad input: '>=' not supported between instances of 'str' and 'int'")},
		{"{{ '1K' | human_to_bytes }}", 1024, ""},
		{"{{ '1.5 MB' | human_to_bytes }}", 1572864, ""},
		{"{{ '2' | human_to_bytes('G') }}", 2147483648, ""},
		{"{{ '1Mb' | human_to_bytes(isbits=true) }}", 1048576, ""},
		{"{{ '1Mb' | human_to_bytes }}", nil, fe("ansible.builtin.human_to_bytes", "human_to_bytes() can't interpret the input: human_to_bytes() failed to convert 1Mb. Value is not a valid string (expect MB or M)")},
		{"{{ 'xyz' | human_to_bytes }}", nil, fe("ansible.builtin.human_to_bytes", "human_to_bytes() can't interpret the input: human_to_bytes() can't interpret following string: xyz")},
		// split
		{"{{ 'a,b' | split(',') }}", L("a", "b"), ""},
		{"{{ 'a b  c' | split }}", L("a", "b", "c"), ""},
		{"{{ 'a,b,c' | split(',', 1) }}", L("a", "b,c"), ""},
		{"{{ 'x' | split(zzz=1) }}", nil, fe("ansible.builtin.split", "'zzz' is an invalid keyword argument for split()")},
		// random (seeded: Python's Mersenne Twister)
		{"{{ [1,2,3] | random(seed='x') }}", 3, ""},
		{"{{ 59 | random(seed='myhost') }}", 53, ""},
		{"{{ 100 | random(seed=42) }}", 81, ""},
		{"{{ 100 | random(10, 5, seed='s') }}", 85, ""},
		{"{{ 'abcdef' | random(seed=3) }}", "b", ""},
		{"{{ 10 | random(seed=2.5) }}", 6, ""},
		{"{{ 5 | random < 5 }}", true, ""},
		{"{{ [] | random }}", nil, fe("ansible.builtin.random", "Cannot choose from an empty sequence")},
		{"{{ [1,2,3,4,5,6] | shuffle(seed='abc') }}", L(6, 1, 2, 3, 4, 5), ""},
		// math & itertools
		{"{{ 100 | log(10) }}", 2.0, ""},
		{"{{ 2 | pow(10) }}", 1024.0, ""},
		{"{{ 16 | root }}", 4.0, ""},
		{"{{ [1,2] | product([3,4]) }}", L(T(1, 3), T(1, 4), T(2, 3), T(2, 4)), ""},
		{"{{ [1,2,3] | permutations(2) | length }}", 6, ""},
		{"{{ [1,2,3] | combinations(2) }}", L(T(1, 2), T(1, 3), T(2, 3)), ""},
		{"{{ 'x' | to_uuid }}", "66b2f013-1baa-5313-9c8c-e6f1182e0e90", ""},
		// ansible.utils.ipaddr
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr }}", "192.168.1.5/24", ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('address') }}", "192.168.1.5", ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('network') }}", "192.168.1.0", ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('netmask') }}", "255.255.255.0", ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('prefix') }}", 24, ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('broadcast') }}", "192.168.1.255", ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('host') }}", "192.168.1.5/24", ""},
		{"{{ '192.168.1.0/24' | ansible.utils.ipaddr('net') }}", "192.168.1.0/24", ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('cidr') }}", "192.168.1.5/24", ""},
		{"{{ '192.168.1.5/24' | ansible.utils.ipaddr('subnet') }}", "192.168.1.0/24", ""},
		{"{{ '192.168.1.5' | ansible.utils.ipaddr('private') }}", "192.168.1.5", ""},
		{"{{ '8.8.8.8' | ansible.utils.ipaddr('public') }}", "8.8.8.8", ""},
		{"{{ '8.8.8.8' | ansible.utils.ipaddr('private') }}", nil, ""},
		{"{{ 'foo' | ansible.utils.ipaddr }}", false, ""},
		{"{{ [3] | ansible.utils.ipaddr }}", L("0.0.0.3"), ""},
		{"{{ ['10.0.0.1', 'x', 'fe80::1'] | ansible.utils.ipv4 }}", L("10.0.0.1"), ""},
		{"{{ ['10.0.0.1', 'x', 'fe80::1'] | ansible.utils.ipv6 }}", L("fe80::1"), ""},
		{"{{ '10.0.0.1' | ansible.utils.ipaddr('ipv6') }}", "::ffff:10.0.0.1/128", ""},
		{"{{ '10.0.0.0/30' | ansible.utils.ipaddr('range_usable') }}", "10.0.0.1-10.0.0.2", ""},
		{"{{ '10.0.0.1' | ansible.utils.ipaddr('nope') }}", nil, fe("ansible.utils.ipaddr", "unsupported operand type(s) for +: 'NoneType' and 'str'")},
		{"{{ '10.0.0.1' | ansible.utils.ipv4('nope') }}", nil, fe("ansible.utils.ipv4", "ipv4: unknown filter type: nope")},
		{"{{ 'x' | ansible.utils.ipaddr(zzz=1) }}", nil, fe("ansible.utils.ipaddr", "['zzz. Supported parameters include: alias, query, value, version.']")},
		// community.general
		{"{{ [['a',1],['b',2]] | community.general.dict }}", D("a", 1, "b", 2), ""},
		{"{{ 'a' | community.general.dict }}", nil, fe("community.general.dict", "dictionary update sequence element #0 has length 1; 2 is required")},
		{"{{ 5 | community.general.dict_kv('x') }}", D("x", 5), ""},
		{"{{ l1 | community.general.lists_mergeby(l2, 'name') }}", L(D("name", "a", "x", 1), D("name", "b", "x", 2, "y", 3), D("name", "c", "y", 4)), ""},
		{"{{ 'x' | community.general.lists_mergeby(zzz=1) }}", nil, fe("community.general.lists_mergeby", "'recursive' and 'list_merge' are the only valid keyword arguments.")},
	})
}
