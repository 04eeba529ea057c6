package template

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// TestOmitDropsOutOfFinalizedContainers: omit inside lists and dicts, at
// any depth, drops out of a template's result and out of the outputs a
// template concatenates, as ansible-core 2.19 finalizes them; a template
// that is omit itself stays omit (the module-argument layer drops it).
func TestOmitDropsOutOfFinalizedContainers(t *testing.T) {
	eng := New()
	vars := MapVars{D: value.DictOf("omit", value.Omit{},
		"d", value.DictOf("a", value.Omit{}, "b", 1, "n", value.DictOf("x", value.Omit{}, "l", []any{value.Omit{}, 2})),
	)}
	v, err := eng.Render("{{ d }}", vars, Options{})
	require.NoError(t, err)
	require.Equal(t, `{"b": 1, "n": {"l": [2]}}`, value.JSON(v, value.JSONOptions{}))
	v, err = eng.Render("<{{ omit }}{{ d.n }}>", vars, Options{})
	require.NoError(t, err)
	require.Equal(t, "<{'l': [2]}>", v)
	v, err = eng.Render("{{ omit }}", vars, Options{})
	require.NoError(t, err)
	require.Equal(t, value.Omit{}, v)
	// The original variable is not changed by finalizing a copy.
	n, _ := vars.D.Get("d")
	require.True(t, n.(*value.Dict).Has("a"))
}

// TestOmitPlaceholderStringIsData: a string that reads like omit's
// placeholder (from a module result, a fact, an API answer) is data, not
// omit: it is never dropped, so untrusted data cannot remove keys from
// what a task sends.
func TestOmitPlaceholderStringIsData(t *testing.T) {
	eng := New()
	vars := MapVars{D: value.DictOf(
		"result", value.DictOf("a", value.OmitPlaceholder, "b", []any{value.OmitPlaceholder}),
	)}
	v, err := eng.Render("{{ result }}", vars, Options{})
	require.NoError(t, err)
	require.Equal(t, `{"a": "`+value.OmitPlaceholder+`", "b": ["`+value.OmitPlaceholder+`"]}`, value.JSON(v, value.JSONOptions{}))
	v, err = eng.Render("x{{ result.a }}y", vars, Options{})
	require.NoError(t, err)
	require.Equal(t, "x"+value.OmitPlaceholder+"y", v)
}
