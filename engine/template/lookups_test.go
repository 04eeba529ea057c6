package template

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func le(name, msg string) string { return "The lookup plugin '" + name + "' failed: " + msg }

// TestLookups: the language's own lookups (variables, list shapes,
// sequence); engine/lookup tests those that read files, run processes or
// read the environment.
func TestLookups(t *testing.T) {
	e := New()
	vars := MapVars{D: value.DictOf("myvar", 42, "who", "you")}
	cases := []tcase{
		{"{{ lookup('vars', 'myvar') }}", 42, ""},
		{"{{ lookup('vars', 'nope', default='d') }}", "d", ""},
		{"{{ lookup('vars', 'nope') }}", nil, "No variable named 'nope' was found."},
		{"{{ lookup('vars', 5) }}", nil, le("vars", "Variable name must be 'str' not 'int'.")},
		{"{{ query('items', [1, [2, 3]], 4) }}", L(1, L(2, 3), 4), ""},
		{"{{ query('items', [1, 2], [3]) }}", L(1, 2, 3), ""},
		{"{{ query('list', [1, [2]], 3) }}", L(L(1, L(2)), 3), ""},
		{"{{ query('indexed_items', ['a', 'b']) }}", L(T(0, "a"), T(1, "b")), ""},
		{"{{ query('dict', {'a': 1, 'b': 2}) }}", L(D("key", "a", "value", 1), D("key", "b", "value", 2)), ""},
		{"{{ lookup('dict', 'x') }}", nil, le("dict", "the 'dict' lookup plugin expects a dictionary, got 'x' of type <class 'str'>)")},
		{"{{ query('sequence', 'start=1 end=5') }}", L("1", "2", "3", "4", "5"), ""},
		{"{{ query('sequence', '4:host%02d') }}", L("host01", "host02", "host03", "host04"), ""},
		{"{{ query('sequence', '2-10/2') }}", L("2", "4", "6", "8", "10"), ""},
		{"{{ query('sequence', 'start=0 count=5 stride=2') }}", L("0", "2", "4", "6", "8"), ""},
		{"{{ query('sequence', start=5, end=7) }}", L("5", "6", "7"), ""},
		{"{{ query('sequence', 'start=10 end=1') }}", nil, le("sequence", "to count backwards make stride negative")},
		{"{{ query('sequence', 'start=1 end=5 bad=1') }}", nil, le("sequence", "unrecognized arguments to with_sequence: ['bad']")},
		{"{{ query('sequence', 'end=5 count=2') }}", nil, le("sequence", "can't specify both count and end in with_sequence")},
		{"{{ query('sequence', 'start=a end=2') }}", nil, le("sequence", "Config 'start' for 'sequence' lookup plugin from 'Direct' has an invalid value: Invalid value provided for 'integer': 'a'")},
		{"{{ query('sequence', 'count=0') }}", []any{}, ""},
		{"{{ query('together', [1, 2], ['a']) }}", L(L(1, "a"), L(2, nil)), ""},
		{"{{ query('nested', [1, 2], ['a']) }}", L(L(1, "a"), L(2, "a")), ""},
		{"{{ query('subelements', [{'n': 1, 'l': [5, 6]}], 'l') | map('last') | list }}", L(5, 6), ""},
	}
	renderCases(t, e, vars, Options{}, cases)
}

// renderCases renders each case with e, vars and opt and checks its
// result or its error.
func renderCases(t *testing.T, e *Engine, vars Vars, opt Options, cases []tcase) {
	t.Helper()
	for _, c := range cases {
		got, err := e.Render(c.src, vars, opt)
		if c.err != "" {
			require.EqualError(t, err, c.err, c.src)
			continue
		}
		require.NoError(t, err, c.src)
		require.Equal(t, listifyTuples(c.want), got, c.src)
	}
}

// TestCartesianBomb: a product too long to list is an error, not an
// exhausted machine.
func TestCartesianBomb(t *testing.T) {
	_, err := render(t, "{{ query('community.general.cartesian', range(3000), range(3000), range(3000)) | length }}", Options{})
	require.Error(t, err)
	got, err := render(t, "{{ query('community.general.cartesian', [1, 2], ['a']) }}", Options{})
	require.NoError(t, err)
	require.Equal(t, []any{[]any{1, "a"}, []any{2, "a"}}, got)
}
