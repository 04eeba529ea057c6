package template

import "testing"

func TestAnsibleCoreFilters(t *testing.T) {
	runCases(t, []tcase{
		// default
		{"{{ nope | default('D') }}", "D", ""},
		{"{{ '' | d('D', true) }}", "D", ""},
		{"{{ 'x' | default(1, 'yes') }}", nil, fe("ansible.builtin.default", "The 'boolean' argument must be of type 'bool', not 'str'.")},
		{"{{ 'x' | default(1, 2, 3) }}", nil, fe("ansible.builtin.default", "ansible_default() takes from 1 to 3 positional arguments but 4 were given")},
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
		// b64
		{"{{ 'héllo wörld' | b64encode }}", "aMOpbGxvIHfDtnJsZA==", ""},
		{"{{ 'aGVsbG8=' | b64decode }}", "hello", ""},
		{"{{ 'a?b' | b64encode(urlsafe=true) }}", "YT9i", ""},
		{"{{ 'hello' | b64encode(encoding='utf-16-le') }}", "aABlAGwAbABvAA==", ""},
		{"{{ 'aGVsbG8' | b64decode }}", nil, fe("ansible.builtin.b64decode", "Incorrect padding")},
		{"{{ 'a' | b64decode }}", nil, fe("ansible.builtin.b64decode", "Invalid base64-encoded string: number of data characters (1) cannot be 1 more than a multiple of 4")},
		// quote
		{`{{ "it's" | quote }}`, `'it'"'"'s'`, ""},
		{"{{ 'abc' | quote }}", "abc", ""},
		{"{{ '' | quote }}", "''", ""},
		{"{{ None | quote }}", "''", ""},
		{"{{ 'x' | quote(zzz=1) }}", nil, fe("ansible.builtin.quote", "quote() got an unexpected keyword argument 'zzz'")},
		// type_debug
		{"{{ [1, 2.5, True, 'a', None, [1], {}] | map('type_debug') | list }}", L("int", "float", "bool", "str", "NoneType", "list", "dict"), ""},
		{"{{ range(3) | type_debug }}", "range", ""},
		{"{{ 'x' | type_debug(1) }}", nil, fe("ansible.builtin.type_debug", "type_debug() takes 1 positional argument but 2 were given")},
		// comment
		{"{{ 'hello' | comment }}", "#\n# hello\n#", ""},
		{"{{ 'hello' | comment('cblock') }}", "/*\n *\n * hello\n *\n */", ""},
		{"{{ 'hello' | comment('xml') }}", "<!--\n -\n - hello\n -\n-->", ""},
		{"{{ ml | comment('c') }}", "//\n// a\n// b\n//\n// c\n// \n//", ""},
		{"{{ 'hello' | comment('nope') }}", nil, fe("ansible.builtin.comment", "Invalid style 'nope'.")},
		// split
		{"{{ 'a,b' | split(',') }}", L("a", "b"), ""},
		{"{{ 'a b  c' | split }}", L("a", "b", "c"), ""},
		{"{{ 'a,b,c' | split(',', 1) }}", L("a", "b,c"), ""},
		{"{{ 'x' | split(zzz=1) }}", nil, fe("ansible.builtin.split", "'zzz' is an invalid keyword argument for split()")},
	})
}
