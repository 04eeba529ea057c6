package template

import (
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// posVars is a Vars with templated values and known origins.
type posVars struct{ d *value.Dict }

func (p posVars) Lookup(name string) (any, bool, bool) {
	v, ok := p.d.Get(name)
	return v, true, ok
}

func (p posVars) Origin(name string, path []any) (value.Pos, bool) {
	return value.Pos{File: "vars.yml", Line: len(name), Col: len(path) + 1}, true
}

func render(t *testing.T, src string, opt Options) (any, error) {
	t.Helper()
	vars := posVars{d: value.DictOf(
		"n", 3, "l", []any{1, 2}, "none_", nil, "s", "x",
		"hosts", []any{value.DictOf("name", "a", "zone", "e"), value.DictOf("name", "b", "zone", "w")},
		"broken", "{{ 1 + 'a' }}", "loop_a", "{{ loop_b }}", "loop_b", "{{ loop_a }}",
		"nested", value.DictOf("inner", "{{ nope }}"),
	)}
	e := New()
	e.Now = func() time.Time { return time.Date(2024, 2, 29, 13, 45, 10, 0, time.UTC) }
	return e.Render(src, vars, opt)
}

func TestNativeConcat(t *testing.T) {
	cases := map[string]any{
		"{% set x = [1] %}{{ x }}":        []any{1},
		"{{ none }}":                      nil,
		"[{{ none }}]":                    "[]",
		"x{{ none_ }}y":                   "xy",
		"{{ (1, 'a') }}":                  []any{1, "a"},
		"t={{ (1, 'a') }}":                "t=[1, 'a']",
		"{{ {'a': 1}.items() | list }}":   []any{[]any{"a", 1}},
		"i={{ {'a': 1}.items() | list }}": "i=[['a', 1]]",
		"[{{ 'y' if false }}]":            "[]",
		"{{ [1] }}\n":                     []any{1},
		"a{{ 1 }}\n\n":                    "a1\n\n",
		"{% macro m() %}{{ [1] }}{% endmacro %}{{ m() | type_debug }}": "list",
		"{{ 2 ** 64 }}{{ '' }}": "18446744073709551616",
		"{{ 'ß'.upper() }} {{ 'ß' | title }} {{ 'ß' | capitalize }}": "SS SS Ss",
	}
	for src, want := range cases {
		got, err := render(t, src, Options{})
		require.NoError(t, err, src)
		require.Equal(t, want, got, src)
	}
}

func TestBackslashEscapes(t *testing.T) {
	got, err := render(t, `{{ 'a\nb' | length }} {% set v = 'a\nb' %}{{ v | length }}`, Options{})
	require.NoError(t, err)
	require.Equal(t, "4 3", got)
	got, err = render(t, `{{ 'x' | regex_replace('x', '\\') }}`, Options{})
	require.NoError(t, err)
	require.Equal(t, `\`, got)
	b, err := New().Eval(`'a\nb' | length == 3`, posVars{d: value.NewDict(0)}, Options{})
	require.NoError(t, err)
	require.Equal(t, true, b)
}

func TestStorageErrors(t *testing.T) {
	for src, msg := range map[string]string{
		"{{ 'y' if false }}": "Type 'Undefined' is unsupported for variable storage.",
		"{{ 'abc'.upper }}":  "Type 'builtin_function_or_method' is unsupported for variable storage.",
		"{{ range(2) }}":     "Type 'range' is unsupported for variable storage.",
	} {
		_, err := render(t, src, Options{})
		re, ok := err.(*RuntimeError)
		require.True(t, ok, src)
		require.Equal(t, msg, re.Msg, src)
		require.True(t, re.UnknownOrigin, src)
	}
	got, err := render(t, "as text: {{ 'abc'.upper }}", Options{})
	require.NoError(t, err)
	require.Equal(t, "as text: <built-in method upper of str object at "+fakeAddr+">", got)
}

func TestConversionWarnings(t *testing.T) {
	type warning struct {
		*diag.Diagnostic
		atValue bool
	}
	var warns []warning
	opt := Options{Warn: func(w *diag.Diagnostic, atValue bool) { warns = append(warns, warning{w, atValue}) }}
	got, err := render(t, "{{ hosts | groupby('zone') }}", opt)
	require.NoError(t, err)
	require.Len(t, got, 2)
	got, err = render(t, "{% for g in hosts | groupby('zone') %}{{ g.grouper }}={{ g.list | length }} {% endfor %}", opt)
	require.NoError(t, err)
	require.Equal(t, "e=1 w=1 ", got)
	_, err = render(t, "{{ [1] | tojson }}", opt)
	require.NoError(t, err)
	_, err = render(t, "{{ 'y' | bool }}", opt)
	require.NoError(t, err)
	require.Equal(t, []warning{
		{diag.Warn("Type 'GroupTuple' is unsupported in variable storage, converting to 'list'.", nil), true},
		{diag.Warn("Type 'Markup' is unsupported in variable storage, converting to 'str'.", nil), true},
		{diag.Deprecate("The `bool` filter coerced invalid value 'y' (str) to False.", "2.23", nil), false},
	}, warns)
}

func TestDatetime(t *testing.T) {
	got, err := render(t, "{{ (('2024-03-01' | to_datetime('%Y-%m-%d')) - ('2024-02-29 12:00:00' | to_datetime)).total_seconds() }} "+
		"{{ ('2024-02-29 13:45:10' | to_datetime).strftime('%d/%m') }} {{ now().year }} {{ now() | type_debug }}", Options{})
	require.NoError(t, err)
	require.Equal(t, "43200.0 29/02 2024 datetime", got)
}

func TestLookupMerging(t *testing.T) {
	cases := map[string]any{
		"{{ lookup('items', []) }}":                        []any{},
		"{{ lookup('items', ['only']) }}":                  "only",
		"{{ lookup('items', ['a', 'b']) }}":                "a,b",
		"{{ lookup('items', [1, 'b']) }}":                  []any{1, "b"},
		"{{ lookup('items', [[1]]) }}":                     []any{1},
		"{{ lookup('items', ['a', 'b'], wantlist=true) }}": []any{"a", "b"},
		"{{ lookup('dict', 'x', errors='ignore') }}":       nil,
		"{{ query('dict', 'x', errors='ignore') }}":        []any{},
	}
	for src, want := range cases {
		got, err := render(t, src, Options{})
		require.NoError(t, err, src)
		require.Equal(t, want, got, src)
	}
	_, err := render(t, "{{ lookup('nonexistent', 'x') }}", Options{})
	require.EqualError(t, err, "The lookup plugin 'nonexistent' was not found.")
	var warns []*diag.Diagnostic
	_, err = render(t, "{{ lookup('dict', 'x', errors='warn') }}", Options{Warn: func(w *diag.Diagnostic, _ bool) { warns = append(warns, w) }})
	require.NoError(t, err)
	require.Len(t, warns, 1)
	require.True(t, strings.HasPrefix(warns[0].Summary, "An error occurred while running the lookup plugin 'dict': "), warns[0].Summary)
}

func TestMarkers(t *testing.T) {
	m := &Markers{}
	got, err := render(t, "hello {{ ghost }} and {{ n }}", Options{Markers: m})
	require.NoError(t, err)
	require.Equal(t, "hello << error 1 - 'ghost' is undefined >> and 3", got)
	require.Equal(t, "Encountered 1 template error.\nerror 1 - 'ghost' is undefined", m.Warning())
	m = &Markers{}
	v, err := New().Eval("l.x", posVars{d: value.DictOf("l", value.DictOf())}, Options{Markers: m})
	require.NoError(t, err)
	require.Equal(t, "<< error 1 - object of type 'dict' has no attribute 'x' >>", v)
	_, err = render(t, "{{ 1 / 0 }}", Options{Markers: &Markers{}})
	require.Error(t, err, "only undefined values are replaced unless All is set")
}

func TestErrorLinks(t *testing.T) {
	_, err := render(t, "{{ broken }}", Options{})
	require.Equal(t, []diag.Diagnostic{{Summary: "Error rendering template.", Origin: &value.Pos{File: "vars.yml", Line: 6, Col: 1}}, {Summary: "unsupported operand type(s) for +: 'int' and 'str'"}}, diag.Links(err))
	require.Equal(t, "Error rendering template: unsupported operand type(s) for +: 'int' and 'str'", err.Error())

	_, err = render(t, "{{ nested.inner }}", Options{})
	require.True(t, IsUndefined(err))
	require.Equal(t, []diag.Diagnostic{{Summary: "'nope' is undefined", Origin: &value.Pos{File: "vars.yml", Line: 6, Col: 2}}}, diag.Links(err))

	_, err = render(t, "{{ loop_a }}", Options{})
	require.Equal(t, "Recursive loop detected in template: maximum recursion depth exceeded", err.Error())
	l := diag.Links(err)
	require.Len(t, l, 2)
	require.True(t, l[1].Detached)

	_, err = render(t, "{{ 'abc' | hash('nope') }}", Options{})
	require.Equal(t, []diag.Diagnostic{{Summary: "The filter plugin 'ansible.builtin.hash' failed."}, {Summary: "unsupported hash type nope", Detached: true}}, diag.Links(err))
	require.Equal(t, "The filter plugin 'ansible.builtin.hash' failed: unsupported hash type nope", err.Error())

	_, err = render(t, "{{ range(2) }}", Options{})
	require.Equal(t, []diag.Diagnostic{{Summary: "Error rendering template."}, {Summary: "Type 'range' is unsupported for variable storage.", Origin: &value.Pos{}, Note: "range(0, 2)"}}, diag.Links(err))
}

func TestJinjaSyntax(t *testing.T) {
	for src, msg := range map[string]string{
		"{{ foo bar }}":                          "expected token 'end of print statement', got 'bar'",
		"{% if %}x{% endif %}":                   "Expected an expression, got 'end of statement block'",
		"{{ unclosed":                            "unexpected end of template, expected 'end of print statement'.",
		"{{ }}":                                  "Expected an expression, got 'end of print statement'",
		"{% do x %}":                             "Encountered unknown tag 'do'.",
		"{% for x in l %}{% endif %}":            "Encountered unknown tag 'endif'. Jinja was looking for the following tags: 'endfor' or 'else'. The innermost block that needs to be closed is 'for'.",
		"{% if 1 %}{% for x in l %}{% endfor %}": "Unexpected end of template. Jinja was looking for the following tags: 'elif' or 'else' or 'endif'. The innermost block that needs to be closed is 'if'.",
		"{% for x in l %}{% if x %}{% continue %}{% endif %}{% endfor %}": "Encountered unknown tag 'continue'. Jinja was looking for the following tags: 'elif' or 'else' or 'endif'. The innermost block that needs to be closed is 'if'.",
	} {
		_, err := render(t, src, Options{})
		se, ok := err.(*TemplateSyntaxError)
		require.True(t, ok, "%s: %v", src, err)
		require.Equal(t, msg, se.Msg, src)
	}
	for src, want := range map[string]any{
		"{% raw %}{{ x }}{% endraw %}": "{{ x }}",
		"{% macro w() %}[{{ caller() }}]{% endmacro %}{% call w() %}in{% endcall %}": "[in]",
		"{% for x in l if x > 1 %}{{ x }}{{ loop.cycle('+', '-') }}{% endfor %}":     "2+",
		"a  {{- ' b ' -}}  c":                          "a b c",
		"{# c #}x{#- t -#} y":                          "xy",
		"{% for i in l -%}\n  i{{ i }}\n{%- endfor %}": "i1i2",
		"{% print 'p' %}":                              "p",
	} {
		got, err := render(t, src, Options{})
		require.NoError(t, err, src)
		require.Equal(t, want, got, src)
	}
}

func TestExprVarRef(t *testing.T) {
	e := New()
	name, path, ok := e.ExprVarRef("cfg.db['port']")
	require.True(t, ok)
	require.Equal(t, "cfg", name)
	require.Equal(t, []any{"db", "port"}, path)
	_, _, ok = e.ExprVarRef("x | default(1)")
	require.False(t, ok)
	_, _, ok = e.ExprVarRef("none")
	require.False(t, ok, "a literal has no origin")
}
