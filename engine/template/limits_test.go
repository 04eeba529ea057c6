package template

import (
	"strings"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// Hostile templates that would exhaust memory or recurse without end fail
// as ansible-core 2.19 fails there, before anything large is allocated.
func TestLimitsHostileTemplates(t *testing.T) {
	e := New()
	vars := MapVars{D: value.NewDict(0)}
	memory := []string{
		"{{ ('a' * 10**10) | length }}",
		"{{ (10**10 * 'a') | length }}",
		"{{ ([1, 2] * 10**9) | length }}",
		"{{ range(10**8) | list | length }}",
		"{% set s = namespace(v='a') %}{% for i in range(40) %}{% set s.v = s.v ~ s.v %}{% endfor %}{{ s.v | length }}",
		"{% set s = namespace(v='a') %}{% for i in range(40) %}{% set s.v = s.v + s.v %}{% endfor %}{{ s.v | length }}",
		"{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l | length }}",
		"{% for i in range(10**9) %}aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa{% endfor %}",
		"{% for i in range(10**9) %}{{ 'b' * 40 }}{% endfor %}",
		"{% macro m() %}{% for i in range(10**9) %}a{% endfor %}{% endmacro %}{{ m() }}",
	}
	for _, src := range memory {
		_, err := e.Render(src, vars, Options{})
		require.Error(t, err, src)
		var re *RuntimeError
		require.ErrorAs(t, err, &re, src)
		require.Empty(t, re.Msg, src) // Python's MemoryError has no message
	}
	// ansible-core's Jinja2 reaches 159 nested macro calls (f(0)..f(158))
	// and fails at the 160th.
	for _, src := range []string{
		"{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
		"{% macro f(n) %}{% if n >= 159 %}{{ n }}{% else %}{{ f(n + 1) }}{% endif %}{% endmacro %}{{ f(0) }}",
	} {
		_, err := e.Render(src, vars, Options{})
		require.EqualError(t, err, "Recursive loop detected in template: maximum recursion depth exceeded", src)
	}
	// Below the limits everything still works.
	v, err := e.Render("{{ ('ab' * 3) }} {{ [0] * 2 }} {{ range(10**15) | length }} {% macro f(n) %}{% if n >= 158 %}{{ n }}{% else %}{{ f(n + 1) }}{% endif %}{% endmacro %}{{ f(0) }}", vars, Options{})
	require.NoError(t, err)
	require.Equal(t, "ababab [0, 0] 1000000000000000 158", v)
	v, err = e.Render("{{ ('a' * 1000000) | length }}", vars, Options{})
	require.NoError(t, err)
	require.Equal(t, 1000000, v)
}

// A loop cannot nest a value without end (which would exhaust the Go
// stack in the walkers that show, compare and encode it): whatever a
// namespace or a mutated list carries to the next iteration is bounded
// by value.MaxDepth, and so is a template's result.
func TestLimitsDeepValues(t *testing.T) {
	e := New()
	vars := MapVars{D: value.NewDict(0)}
	for _, src := range []string{
		"{% set ns = namespace(x=[]) %}{% for i in range(3000000) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x | to_json }}",
		"{% set ns = namespace(x={}) %}{% for i in range(3000000) %}{% set ns.x = {'k': ns.x} %}{% endfor %}{{ ns.x == ns.x }}",
		"{% set ns = namespace(x=[]) %}{% for i in range(3000000) %}{% set ns.x = ns.x + [[[i, ns.x[-1:]]]] %}{% endfor %}{{ ns.x }}",
		"{% set l = [] %}{% for i in range(3000000) %}{% set _ = l.append([l[-1:]]) %}{% endfor %}{{ l }}",
		"{% set d = {} %}{% for i in range(3000000) %}{% set _ = d.update({'k': d}) %}{% endfor %}{{ d }}",
		"{% macro f(x) %}{{ x }}{% endmacro %}{{ " + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + " }}",
	} {
		_, err := e.Render(src, vars, Options{})
		require.EqualError(t, err, "Recursive loop detected in template: maximum recursion depth exceeded", src[:60])
	}
	v, err := e.Render("{% set ns = namespace(x=[]) %}{% for i in range(900) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x | flatten | length }}", vars, Options{})
	require.NoError(t, err)
	require.Equal(t, 0, v)
	// A namespace that holds itself shows as Python shows it.
	v, err = e.Render("{% set ns = namespace(a=1) %}{% set ns.me = ns %}{{ ns.me.me.a }} {{ ns | string }}", vars, Options{})
	require.NoError(t, err)
	require.Equal(t, "1 <Namespace {'a': 1, 'me': <Namespace {...}>}>", v)
}
