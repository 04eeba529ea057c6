package template

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
)

func TestListLookups(t *testing.T) {
	users := L(
		D("name", "a", "keys", L(1, 2), "x", D("l", L("p"))),
		D("name", "b", "keys", L()),
		D("name", "c"),
	)
	e := New()
	vars := MapVars{D: value.DictOf("users", users)}
	cases := []tcase{
		{"{{ query('subelements', users, 'keys', {'skip_missing': True}) }}",
			L(L(D("name", "a", "x", D("l", L("p"))), 1), L(D("name", "a", "x", D("l", L("p"))), 2)), ""},
		{"{{ query('subelements', users, 'x.l', {'skip_missing': True}) | map('last') }}", L("p"), ""},
		{"{{ query('subelements', users, 'x.l', {'skip_missing': True})[0][0].x | length }}", 0, ""},
		{"{{ query('subelements', users, 'keys') }}", nil, le("subelements", "could not find 'keys' key in iterated item '{'name': 'c'}'")},
		{"{{ query('subelements', users, 'name') }}", nil, le("subelements", "the key name should point to a list, got 'a'")},
		{"{{ query('subelements', users) }}", nil, le("subelements", "subelements lookup expects a list of two or three items,")},
		{"{{ query('subelements', 'users', 'keys') }}", nil, le("subelements",
			"subelements lookup expects a list of two or three items, first a dict or a list, second a string pointing to the subkey")},
		{"{{ query('subelements', [{'k': [1], 'skipped': true}], 'k') }}", []any{}, ""},
		{"{{ users[0]['keys'] }}", L(1, 2), ""},
		{"{{ lookup('random_choice', 'only') }}", "only", ""},
		{"{{ query('random_choice') }}", []any{}, ""},
		{"{{ lookup('random_choice', 'a', 'b') in ['a', 'b'] }}", true, ""},
		{"{{ lookup('vars', 'missing') | default('d') }}", "d", ""},
		{"{{ lookup('vars', name='users') }}", []any{}, ""},
		{"{{ lookup('vars', 5) }}", nil, le("vars", "Variable name must be 'str' not 'int'.")},
	}
	renderCases(t, e, vars, Options{}, cases)
}
