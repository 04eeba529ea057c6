package syntax

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLayoutCollectsBlocks(t *testing.T) {
	cases := []struct {
		name     string
		src      string
		blocks   []string
		topLevel map[string]bool
		scoped   map[string]bool
		required map[string]bool
	}{
		{name: "a plain template is no layout", src: "a {{ b }}"},
		{name: "an extends alone makes a layout", src: `{% extends "p" %}`, blocks: []string{}},
		{
			name:     "nested blocks, blocks in ifs and loops",
			src:      "{% block a %}{% block b %}{% endblock %}{% endblock a %}{% if x %}{% block c scoped required %}{% endblock %}{% endif %}{% for i in l %}{% block d scoped %}{% endblock %}{% endfor %}",
			blocks:   []string{"a", "b", "c", "d"},
			topLevel: map[string]bool{"a": true, "b": false, "c": true, "d": false},
			scoped:   map[string]bool{"c": true, "d": true},
			required: map[string]bool{"c": true},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nodes, err := Parse(c.src, false)
			require.NoError(t, err)
			l, ok := nodes[0].(*Layout)
			if c.blocks == nil {
				require.False(t, ok)
				return
			}
			require.True(t, ok)
			require.Len(t, nodes, 1)
			require.Len(t, l.Blocks, len(c.blocks))
			for _, name := range c.blocks {
				b := l.Blocks[name]
				require.NotNil(t, b, name)
				require.Equal(t, c.topLevel[name], b.TopLevel, name)
				require.Equal(t, c.scoped[name], b.Scoped, name)
				require.Equal(t, c.required[name], b.Required, name)
			}
		})
	}
}

func TestInheritanceSyntaxErrors(t *testing.T) {
	cases := []struct {
		src, msg string
		line     int
	}{
		{"{% for i in l %}{% extends 'p' %}{% endfor %}", "cannot use extend from a non top-level scope", 1},
		{"{% block a %}\n{% extends 'p' %}{% endblock %}", "cannot use extend from a non top-level scope", 2},
		{"{% macro m() %}{% extends 'p' %}{% endmacro %}", "cannot use extend from a non top-level scope", 1},
		{"{% block a %}{% endblock %}\n{% if x %}{% block a %}{% endblock %}{% endif %}", "block 'a' defined twice", 2},
		{"{% block a-b %}{% endblock %}", "Block names in Jinja have to be valid Python identifiers and may not contain hyphens, use an underscore instead.", 1},
		{"{% block a required %}x{% endblock %}", "Required blocks can only contain comments or whitespace", 1},
		{"{% block a required scoped %}{% endblock %}", "expected token 'end of statement block', got 'scoped'", 1},
		{"{% block a %}{% endblock b %}", "expected token 'end of statement block', got 'b'", 1},
		{"{% block a %}", "Unexpected end of template. Jinja was looking for the following tags: 'endblock'. The innermost block that needs to be closed is 'block'.", 1},
		{"{% extends %}", "unexpected 'end of statement block'", 1},
		{"{% block %}{% endblock %}", "expected token 'name', got 'end of statement block'", 1},
	}
	for _, c := range cases {
		_, err := Parse(c.src, false)
		var se *SyntaxError
		require.ErrorAs(t, err, &se, c.src)
		require.Equal(t, c.msg, se.Msg, c.src)
		require.Equal(t, c.line, se.Line, c.src)
	}
}

func TestRequiredBlockMayHoldWhitespaceAndComments(t *testing.T) {
	nodes, err := Parse("{% block a required %}\n  {# note #}\n{% endblock %}", false)
	require.NoError(t, err)
	require.True(t, nodes[0].(*Layout).Blocks["a"].Required)
}
