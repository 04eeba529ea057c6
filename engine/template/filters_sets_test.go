package template

import "testing"

func TestSetFilters(t *testing.T) {
	runCases(t, []tcase{
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
	})
}
