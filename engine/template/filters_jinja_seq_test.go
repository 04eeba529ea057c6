package template

import "testing"

func TestJinjaSeqFilters(t *testing.T) {
	runCases(t, []tcase{
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
		// count / length
		{"{{ [1,2] | count }}", 2, ""},
		{"{{ {'a':1} | length }}", 1, ""},
		{"{{ 5 | length }}", nil, fe("ansible.builtin.length", "object of type 'int' has no len()")},
		{"{{ 'x' | length(1) }}", nil, fe("ansible.builtin.length", "len() takes exactly one argument (2 given)")},
		// dictsort
		{"{{ {'b':1,'A':2,'a':0} | dictsort }}", L(T("A", 2), T("a", 0), T("b", 1)), ""},
		{"{{ {'b':1,'A':2,'a':0} | dictsort(true, 'value', true) }}", L(T("A", 2), T("b", 1), T("a", 0)), ""},
		{"{{ {'a':1} | dictsort(by='x') }}", nil, fe("ansible.builtin.dictsort", `You can only sort by either "key" or "value"`)},
		// first / last
		{"{{ [1,2] | first }}", 1, ""},
		{"{{ {'a':1,'b':2} | first }}", "a", ""},
		{"{{ [] | first }}", nil, "No first item, sequence was empty."},
		{"{{ 5 | first }}", nil, fe("ansible.builtin.first", "'int' object is not iterable")},
		{"{{ 'abc' | last }}", "c", ""},
		{"{{ {'a':1,'b':2} | last }}", "b", ""},
		{"{{ [] | last | default('e') }}", "e", ""},
		// groupby
		{"{{ [{'a':'B'},{'a':'a'},{'a':'b'}] | groupby('a') }}", L(T("a", L(D("a", "a"))), T("B", L(D("a", "B"), D("a", "b")))), ""},
		{"{{ [{'a':'B'},{'a':'a'},{'a':'b'}] | groupby('a', case_sensitive=true) | length }}", 3, ""},
		{"{% for k, items in users | groupby('name') %}{{ k }}:{{ items | length }} {% endfor %}", "alice:1 bob:1 eve:1 ", ""},
		{"{{ 'x' | groupby }}", nil, fe("ansible.builtin.groupby", "sync_do_groupby() missing 1 required positional argument: 'attribute'")},
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
		// max / min
		{"{{ ['B','a'] | max }}", "B", ""},
		{"{{ ['B','a'] | max(case_sensitive=true) }}", "a", ""},
		{"{{ [{'a':3},{'a':5}] | max(attribute='a') }}", D("a", 5), ""},
		{"{{ [3, 1, 2] | min }}", 1, ""},
		{"{{ [1,'a'] | max }}", nil, fe("ansible.builtin.max", "'>' not supported between instances of 'str' and 'int'")},
		{"{{ [1,'a'] | min }}", nil, fe("ansible.builtin.min", "'<' not supported between instances of 'str' and 'int'")},
		{"{{ [] | max }}", nil, "No aggregated item, sequence was empty."},
		// reverse
		{"{{ [1,2] | reverse }}", L(2, 1), ""},
		{"{{ 'abc' | reverse }}", "cba", ""},
		{"{{ {'a':1,'b':2} | reverse }}", L("b", "a"), ""},
		{"{{ 5 | reverse }}", nil, fe("ansible.builtin.reverse", "argument must be iterable")},
		// sort
		{"{{ ['b','A','a','B'] | sort }}", L("A", "a", "b", "B"), ""},
		{"{{ ['b','A','a','B'] | sort(case_sensitive=true) }}", L("A", "B", "a", "b"), ""},
		{"{{ [{'n':'x','a':2},{'n':'y','a':1},{'n':'z','a':2}] | sort(attribute='a,n', reverse=true) | map(attribute='n') | list }}", L("z", "x", "y"), ""},
		{"{{ [1,'a'] | sort }}", nil, fe("ansible.builtin.sort", "'<' not supported between instances of 'str' and 'int'")},
		{"{{ [{'a':1},{'b':2}] | sort(attribute='a') }}", nil, "object of type 'dict' has no attribute 'a'"},
		{"{{ 'x' | sort(1,2,3,4) }}", nil, fe("ansible.builtin.sort", "do_sort() takes from 2 to 5 positional arguments but 6 were given")},
		// sum
		{"{{ [[1],[2]] | sum(start=[]) }}", L(1, 2), ""},
		{"{{ [{'p':1.5},{'p':2}] | sum(attribute='p') }}", 3.5, ""},
		{"{{ [1,2] | sum(start='a') }}", nil, fe("ansible.builtin.sum", "sum() can't sum strings [use ''.join(seq) instead]")},
	})
}
