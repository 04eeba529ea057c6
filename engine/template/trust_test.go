package template

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// trustVars has a trusted layer (playbook values) and a data layer.
type trustVars struct{ trusted, data *value.Dict }

func (v trustVars) Lookup(name string) (any, bool, bool) {
	if x, ok := v.data.Get(name); ok {
		return x, false, true
	}
	x, ok := v.trusted.Get(name)
	return x, ok, ok
}

func (v trustVars) Trusted(name string) bool { return !v.data.Has(name) && v.trusted.Has(name) }

func TestRenderTrusted(t *testing.T) {
	vars := trustVars{
		trusted: value.DictOf(
			"cond", "1 == 1",
			"indirect", "{{ cond }}",
			"deep", value.DictOf("c", "{{ indirect }}", "l", []any{"2 == 2"}),
			"key", "c",
			"view", value.DictOf("data", value.Untrusted{V: "3 == 3"}, "mine", "4 == 4"),
		),
		data: value.DictOf("r", value.DictOf("stdout", "lookup('pipe', 'false') or true"), "name", "cond"),
	}
	e := New()
	cases := []struct {
		src     string
		trusted bool
	}{
		{"{{ cond }}", true},
		{"{{ indirect }}", true},
		{"{{ deep.c }}", true},
		{"{{ deep['c'] }}", true},
		{"{{ deep[key] }}", true},
		{"{{ deep.l[0] }}", true},
		{"{{ view.mine }}", true},
		// Data, through any path.
		{"{{ r.stdout }}", false},
		{"{{ view.data }}", false},
		// Computed strings.
		{"{{ 'cond' }}", false},
		{"{{ cond | trim }}", false},
		{"{{ cond ~ '' }}", false},
		{"{{ cond }} ", false},
		{"{{ cond }}{{ '' }}", false},
		{"{% if true %}{{ cond }}{% endif %}", false},
		// A variable key from data still names a trusted value; the
		// value is what counts, as in ansible-core.
		{"{{ vars_missing | default(cond) }}", false},
	}
	for _, c := range cases {
		_, trusted, err := e.RenderTrusted(c.src, vars, Options{})
		require.NoError(t, err, c.src)
		require.Equal(t, c.trusted, trusted, c.src)
	}
}

// TestUntrustedNeverRendered: values marked as data inside a trusted view
// come back as written, never rendered (the pipe command would fail the
// render if it ran: `false` exits 1).
func TestUntrustedNeverRendered(t *testing.T) {
	attack := "{{ lookup('pipe', 'echo PWNED; false') }}"
	vars := templatedVars{d: value.DictOf(
		"view", value.DictOf("data", value.Untrusted{V: attack}, "list", value.Untrusted{V: []any{attack}}, "mine", "{{ 1 + 1 }}"),
		"unsafe", value.Unsafe(attack),
	)}
	e := New()
	v, err := e.Render("{{ view }}", vars, Options{})
	require.NoError(t, err)
	d := v.(*value.Dict)
	require.Equal(t, attack, d.Default("data", nil))
	require.Equal(t, []any{attack}, d.Default("list", nil))
	require.Equal(t, 2, d.Default("mine", nil))
	v, err = e.Render("{{ view.data }} {{ unsafe }}", vars, Options{})
	require.NoError(t, err)
	require.Equal(t, attack+" "+attack, v)
}

func TestMarkUntrusted(t *testing.T) {
	in := value.DictOf("a", "{{ x }}", "b", "plain", "c", []any{"{% if %}", 1})
	out := value.MarkUntrusted(in, HasMarkers).(*value.Dict)
	require.Equal(t, value.Unsafe("{{ x }}"), out.Default("a", nil))
	require.Equal(t, "plain", out.Default("b", nil))
	require.Equal(t, []any{value.Unsafe("{% if %}"), 1}, out.Default("c", nil))
	require.Equal(t, "{{ x }}", in.Default("a", nil), "the input is not changed")
}

// TestExpressionSyntax: Jinja2's compile_expression messages, with
// ansible-core's note about template delimiters.
func TestExpressionSyntax(t *testing.T) {
	e := New()
	cases := map[string]string{
		"1 ==":                        "Syntax error in expression: unexpected 'end of template'",
		"a b":                         "Syntax error in expression: chunk after expression",
		"1 == {{ a }}":                "Syntax error in expression. Template delimiters are not supported in expressions: expected token ':', got '}'",
		"{{ a }} == 1":                "Syntax error in expression. Template delimiters are not supported in expressions: expected token ':', got '}'",
		"1 == {% if a %}1{% endif %}": "Syntax error in expression. Template delimiters are not supported in expressions: unexpected '%'",
	}
	for expr, want := range cases {
		_, err := e.Eval(expr, MapVars{D: value.DictOf("a", 1)}, Options{})
		require.Error(t, err, expr)
		require.Equal(t, want, err.Error(), expr)
	}
	v, err := e.Eval("a == '{{ a }}' | int", MapVars{D: value.DictOf("a", 1)}, Options{})
	require.NoError(t, err)
	require.Equal(t, true, v)
	require.True(t, PossiblyAllTemplate("{{ a }} == {{ b }}"))
	require.True(t, PossiblyAllTemplate("#jinja2: x\n1"))
	require.False(t, PossiblyAllTemplate("{{ a }} == 1"))
	require.False(t, PossiblyAllTemplate("1 == {{ a }}"))
}
