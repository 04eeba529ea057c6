package template

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/stretchr/testify/require"
)

func TestPyLiteral(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want any
		err  string
	}{
		{src: " True", want: true},
		{src: "False ", want: false},
		{src: "None", want: nil},
		{src: "12", want: 12},
		{src: "-1", want: -1},
		{src: "0x10", want: 16},
		{src: "1.5", want: 1.5},
		{src: `'[['`, want: "[["},
		{src: `"a\tb"`, want: "a\tb"},
		{src: `'\r\n'`, want: "\r\n"},
		{src: "[1, 2]", want: []any{1, 2}},
		{src: "yes", err: "malformed node or string on line 1: <ast.Name object at 0x"},
		{src: "'open", err: "unterminated string literal (detected at line 1) (<unknown>, line 1)"},
		{src: "True False", err: "invalid syntax (<unknown>, line 1)"},
		{src: "", err: "invalid syntax (<unknown>, line 1)"},
	} {
		got, err := pyLiteral(tc.src)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.src)
			continue
		}
		require.NoError(t, err, tc.src)
		require.Equal(t, tc.want, got, tc.src)
	}
}

func TestIsTemplate(t *testing.T) {
	custom := syntax.Default()
	custom.VariableStart, custom.VariableEnd = "[[", "]]"
	for _, tc := range []struct {
		s    string
		cfg  *syntax.Config
		want bool
	}{
		{s: "plain", want: false},
		{s: "a {{ b }}", want: true},
		{s: "{# c #}", want: true},
		{s: "#jinja2: trim_blocks: False\nplain", want: true},
		{s: " #jinja2: trim_blocks: False", want: false},
		{s: "[[ x ]]", cfg: &custom, want: true},
		{s: "{% if %}", cfg: &custom, want: true},
		{s: "{{ x }}", cfg: &custom, want: false},
	} {
		require.Equal(t, tc.want, isTemplate(tc.s, tc.cfg), tc.s)
	}
}
