package template

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// TestUndefinedArgs checks that an undefined argument is passed on as a
// value (ansible-core's markers) and fails only where it is used.
func TestUndefinedArgs(t *testing.T) {
	e := New()
	vars := MapVars{D: value.DictOf("a", value.DictOf("b", 1, "e", ""))}
	ok := map[string]any{
		"{{ a.b | default(a.missing) }}":                     1,
		"{{ a.missing | default(a.b) }}":                     1,
		"{{ a.e | default(a.missing, true) | default(2) }}":  2,
		"{{ [1, 2] | join(a.missing) | default('x') }}":      "x",
		"{{ a.missing | upper | default('y') }}":             "y",
		"{{ (a.b is divisibleby(a.missing)) | default(3) }}": 3,
		"{{ 'ab'.upper(a.missing) | default('m') }}":         "m",
		"{{ range(a.missing) | default('r') }}":              "r",
		"{{ a.b | ternary(a.missing, 0) | default('t') }}":   "t",
		"{{ a.missing | default(a.missing2) is defined }}":   false,
	}
	for src, want := range ok {
		got, err := e.Render(src, vars, Options{})
		require.NoError(t, err, src)
		require.True(t, value.Equal(want, got), "%s: got %#v", src, got)
	}
	fail := map[string]string{
		"{{ a.e | default(a.missing, true) }}":           "object of type 'dict' has no attribute 'missing'",
		"{{ 'abc' | replace(a.missing, 'q') }}":          "object of type 'dict' has no attribute 'missing'",
		"{{ a.missing | default(a.other) | mandatory }}": "Mandatory variable 'other' not defined.",
	}
	for src, want := range fail {
		_, err := e.Render(src, vars, Options{})
		require.Error(t, err, src)
		require.Contains(t, err.Error(), want, src)
	}
}
