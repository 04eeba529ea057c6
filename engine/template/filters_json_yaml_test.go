package template

import "testing"

func TestJSONYAMLFilters(t *testing.T) {
	runCases(t, []tcase{
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
	})
}
