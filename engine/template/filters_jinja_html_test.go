package template

import "testing"

func TestJinjaHTMLFilters(t *testing.T) {
	runCases(t, []tcase{
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
		// tojson
		{`{{ {'b':'<&>','a':[1,2.5,None,True, 'é']} | tojson }}`, `{"a": [1, 2.5, null, true, "\u00e9"], "b": "\u003c\u0026\u003e"}`, ""},
		{"{{ {'b':1,'a':[1,2]} | tojson(2) }}", "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": 1\n}", ""},
		{"{{ 'x' | tojson(zzz=1) }}", nil, fe("ansible.builtin.tojson", "do_tojson() got an unexpected keyword argument 'zzz'")},
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
	})
}
