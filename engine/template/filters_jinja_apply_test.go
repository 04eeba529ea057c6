package template

import "testing"

func TestJinjaApplyFilters(t *testing.T) {
	runCases(t, []tcase{
		// map
		{"{{ [1,2] | map('string') | list }}", L("1", "2"), ""},
		{"{{ [{'a':1},{'b':2}] | map(attribute='a', default=0) | list }}", L(1, 0), ""},
		{"{{ [{'a':{'b':[5,6]}}] | map(attribute='a.b.1') | list }}", L(6), ""},
		{"{{ [1] | map('int', 1, 2, 3) | list }}", nil, fe("ansible.builtin.int", "do_int() takes from 1 to 3 positional arguments but 4 were given")},
		{"{{ [1] | map('nosuch') | list }}", nil, fe("ansible.builtin.map", "No filter named 'nosuch'.")},
		{"{{ [1] | map }}", nil, fe("ansible.builtin.map", "map requires a filter argument")},
		{"{{ [{'a':1}] | map(attribute='b') | list }}", nil, "object of type 'dict' has no attribute 'b'"},
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
	})
}
