package template

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestSmoke(t *testing.T) {
	e := New()
	vars := MapVars{D: value.DictOf("n", 5, "l", []any{1, 2}, "d", value.DictOf("a", 1, "b", []any{true, nil}), "s", "x")}
	cases := map[string]any{
		"{{ 1 + 1 }}":                 2,
		"a{{ 1 + 1 }}":                "a2",
		"{{ l }}":                     []any{1, 2},
		"x{{ [1, 2] }}":               "x[1, 2]",
		"{{ d.b }}":                   []any{true, nil},
		"{{ d }}{{ '' }}":             "{'a': 1, 'b': [True, None]}",
		"{{ 'a' if n > 3 else 'b' }}": "a",
		"{{ 'a' if n == 1 else 'b' if n == 5 else 'c' }}": "b",
		"{{ (n if n else 0) + 1 }}":                       6,
		"{{ 7 / 2 }} {{ 6 / 2 }} {{ 7 // 2 }}":            "3.5 3.0 3",
		"{{ nope | default('D') }}":                       "D",
		"{{ nope.deeper | default('x') }}":                "x",
		"{% for x in l %}{{ x }},{% endfor %}":            "1,2,",
		"{% set ns = namespace(v=[]) %}{% for x in l %}{% set ns.v = ns.v + [x] %}{% endfor %}{{ ns.v }}": []any{1, 2},
		"{% set acc = [] %}{% for x in l %}{{ acc.append(x * 10) }}{% endfor %}{{ acc }}":                 []any{10, 20},
		// The in-place append of ns.a = ns.a + [...] must not show through
		// a copy taken earlier, nor let that copy's own growth show here.
		"{% set ns = namespace(l=[]) %}{% set keep = namespace(v=none) %}{% for i in range(5) %}{% set ns.l = ns.l + [i] %}{% if i == 2 %}{% set keep.v = ns.l %}{% endif %}{% endfor %}{% set ns2 = namespace(l=keep.v) %}{% set ns2.l = ns2.l + ['x'] %}{% set ns.l = ns.l + [5] %}{{ ns.l }} {{ keep.v }} {{ ns2.l }}": "[0, 1, 2, 3, 4, 5] [0, 1, 2] [0, 1, 2, 'x']",
		"{% set ns = namespace(l=[1]) %}{% set ns.l = ns.l + [2] %}{% set ns.l = 'reset' %}{% set ns.l = [7] %}{% set ns.l = ns.l + [8] %}{{ ns.l }}":                                                                                                                                                                     []any{7, 8},
		"{% set ns = namespace(l=[1]) %}{% set ns.l = ns.l + [2] %}{{ ns.l.append(3) }}{{ ns.l }}":                                                                                                                                                                                                                        []any{1, 2, 3},
		"{% set ns = namespace(s='a') %}{% set ns.s = ns.s + 'b' %}{{ ns.s }}":                                                                                                                                                                                                                                            "ab",
		"{{ 'a\\\\b' }}":                           `a\\b`,
		"{{ 'x,y'.split(',') }}":                   []any{"x", "y"},
		"{{ ('a' ~ 'b').upper() }}":                "AB",
		"{{ d.items() | list | length }}":          2,
		"{{ n is defined and nope is undefined }}": true,
		"{{ l[-1] }} {{ l[::-1] }}":                "2 [2, 1]",
		"{{ '%s-%02d' % ('a', 3) }}":               "a-03",
		"{{ '{}:{}'.format('a', 1) }}":             "a:1",
	}
	for src, want := range cases {
		got, err := e.Render(src, vars, Options{})
		require.NoError(t, err, src)
		require.True(t, value.Equal(want, got), "%s: got %#v", src, got)
	}
	_, err := e.Render("{{ nope }}", vars, Options{})
	require.EqualError(t, err, "'nope' is undefined")
	_, err = e.Render("{{ d.missing }}", vars, Options{})
	require.EqualError(t, err, "object of type 'dict' has no attribute 'missing'")
	_, err = e.Render("{{ 'a' + 1 }}", vars, Options{})
	require.EqualError(t, err, `Error rendering template: can only concatenate str (not "int") to str`)
}
