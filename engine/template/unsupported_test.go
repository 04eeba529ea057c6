package template

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUnsupported(t *testing.T) {
	e := New()
	require.Empty(t, e.Unsupported("{{ x | default('a') | upper }} {% if y is defined %}{{ lookup('vars', 'HOME') }}{% endif %}", false))
	require.Empty(t, e.Unsupported("x is ansible.builtin.truthy and (y | ansible.builtin.to_json) and q('ansible.builtin.items', 'f')", true))
	require.Equal(t, []string{"filter 'no_such_filter'", "test 'no_such_test'", "lookup 'community.general.no_such'"},
		e.Unsupported("{% for i in l | no_such_filter %}{{ i is no_such_test }}{{ lookup('community.general.no_such') | no_such_filter }}{% endfor %}", false))
	require.Equal(t, []string{"filter 'nope'"}, e.Unsupported("{% filter nope %}x{% endfilter %}", false), "a filter block")
	require.Empty(t, e.Unsupported("{{ unclosed", false), "a syntax error is the run's to report")
	require.True(t, e.HasLookup("ansible.builtin.items"))
}
