package lookup

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// inventory_hostnames hands the groups variable and the patterns to the
// run's host matcher.
func TestInventoryHostnamesLookup(t *testing.T) {
	e := newEngine()
	groups := value.DictOf("all", L("a", "b"), "web", L("a"))
	var gotPatterns []string
	opt := template.Options{Hosts: func(g *value.Dict, patterns []string) []string {
		require.Equal(t, groups, g)
		gotPatterns = patterns
		return []string{"a"}
	}}
	got, err := e.Render("{{ query('inventory_hostnames', 'all:!b', 'web') }}", template.MapVars{D: value.DictOf("groups", groups)}, opt)
	require.NoError(t, err)
	require.Equal(t, L("a"), got)
	require.Equal(t, []string{"all:!b", "web"}, gotPatterns)

	got, err = e.Render("{{ query('inventory_hostnames', 'all') }}", template.MapVars{D: value.DictOf("groups", groups)}, template.Options{})
	require.NoError(t, err)
	require.Equal(t, []any{}, got)
}
