package template

import "testing"

func TestJinjaTests(t *testing.T) {
	runCases(t, []tcase{
		{"{{ (True is number, True is integer, 1.5 is float, 'a' is string, {} is mapping, 'a' is sequence, {} is sequence, 5 is sequence, 'a' is iterable, 5 is iterable) }}",
			T(true, false, true, true, true, true, true, false, true, false), ""},
		{"{{ (3 is odd, 4 is even, 9 is divisibleby(3), 'abc' is lower, 'ABC' is upper, None is none, True is true, False is false, True is boolean) }}",
			T(true, true, true, true, true, true, true, true, true), ""},
		{"{{ (1 is eq(1.0), 1 is ne(2), 3 is gt(2), 3 is ge(3), 1 is lt(2), 2 is le(1), 2 is in([1,2]), 2 is sameas(2)) }}",
			T(true, true, true, true, true, false, true, true), ""},
		{"{{ (1 is equalto(1), 2 is greaterthan 1, 1 is lessthan 2) }}", T(true, true, true), ""},
		{"{{ ([1, 2, 3] | select('==', 2) | list, [1, 2, 3] | select('!=', 2) | list, [1, 2, 3] | select('>', 2) | list, [1, 2, 3] | select('>=', 2) | list, [1, 2, 3] | select('<', 2) | list, [1, 2, 3] | select('<=', 2) | list) }}",
			T(L(2), L(1, 3), L(3), L(2, 3), L(1), L(1, 2)), ""},
		{"{{ (nope is defined, nope is undefined, 1 is defined) }}", T(false, true, true), ""},
		{"{{ ('abs' is filter, 'nope' is filter, 'odd' is test, 'upper' is callable, 'x'.upper is callable, 'x' is escaped) }}", T(true, false, true, false, true, false), ""},
		{"{{ 3 is divisibleby('a') }}", nil, te("ansible.builtin.divisibleby", "unsupported operand type(s) for %: 'int' and 'str'")},
		{"{{ 1 is odd(2) }}", nil, te("ansible.builtin.odd", "test_odd() takes 1 positional argument but 2 were given")},
		{"{{ 1 is in(1) }}", nil, te("ansible.builtin.in", "argument of type 'int' is not iterable")},
		{"{{ 'abc' is nosuchtest }}", nil, "Syntax error in template: No test named 'nosuchtest'."},
	})
}
