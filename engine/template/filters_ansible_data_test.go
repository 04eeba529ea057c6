package template

import "testing"

func TestAnsibleDataFilters(t *testing.T) {
	runCases(t, []tcase{
		// combine
		{"{{ {'a': {'x': 1, 'l': [1]}} | combine({'a': {'y': 2, 'l': [2]}}) }}", D("a", D("y", 2, "l", L(2))), ""},
		{"{{ {'a': {'x': 1, 'l': [1]}} | combine({'a': {'y': 2, 'l': [2]}}, recursive=true) }}", D("a", D("x", 1, "l", L(2), "y", 2)), ""},
		{"{{ {'a': {'x': 1, 'l': [1, 3]}} | combine({'a': {'y': 2, 'l': [3, 2]}}, recursive=true, list_merge='append_rp') }}", D("a", D("x", 1, "l", L(1, 3, 2), "y", 2)), ""},
		{"{{ [{'a':1}, {'b':2}] | combine }}", D("a", 1, "b", 2), ""},
		{"{{ {'a':1} | combine({'b':2}, {'a':3}) }}", D("a", 3, "b", 2), ""},
		{"{{ 'a' | combine({}) }}", nil, fe("ansible.builtin.combine", "failed to combine variables, expected dicts but got a 'str' and a '_AnsibleLazyTemplateDict'.")},
		{"{{ 'x' | combine(zzz=1) }}", nil, fe("ansible.builtin.combine", "'recursive' and 'list_merge' are the only valid keyword arguments")},
		// dict2items / items2dict
		{"{{ {'a':1} | dict2items }}", L(D("key", "a", "value", 1)), ""},
		{"{{ {'a':1} | dict2items(key_name='k', value_name='v') }}", L(D("k", "a", "v", 1)), ""},
		{"{{ 'a' | dict2items }}", nil, fe("ansible.builtin.dict2items", "dict2items requires a dictionary, got <class 'str'> instead.")},
		{"{{ [{'k':'a','v':1}] | items2dict(key_name='k', value_name='v') }}", D("a", 1), ""},
		{"{{ [{'key':'a'}] | items2dict }}", nil, fe("ansible.builtin.items2dict", "items2dict requires each dictionary in the list to contain the keys 'key' and 'value', got [{'key': 'a'}] instead.")},
		{"{{ [1] | items2dict }}", nil, fe("ansible.builtin.items2dict", "items2dict requires a list of dictionaries, got [1] instead.")},
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
		// extract / subelements
		{"{{ 'x' | extract({'x': 1}) }}", 1, ""},
		{"{{ 0 | extract([5,6]) }}", 5, ""},
		{"{{ 'a' | extract({'a': {'b': {'c': 9}}}, ['b', 'c']) }}", 9, ""},
		{"{{ 'q' | extract({'a': 1}) }}", nil, "object of type 'dict' has no attribute 'q'"},
		{"{{ users | subelements('groups', skip_missing=true) | map('last') | list }}", L("wheel", "dev", "users"), ""},
		{"{{ users | subelements('nope') }}", nil, fe("ansible.builtin.subelements", "could not find 'nope' key in iterated item {'name': 'alice', 'groups': ['wheel', 'dev']}")},
		{"{{ 5 | subelements('x') }}", nil, fe("ansible.builtin.subelements", "obj must be a list of dicts or a nested dict")},
	})
}
