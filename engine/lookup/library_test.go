package lookup

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/template"
)

// TestLibraryRegisters: the library registers beside the language without
// a name twice, every plugin of it is in the engine, and handing it twice
// is the duplicate-name error.
func TestLibraryRegisters(t *testing.T) {
	var e *template.Engine
	require.NotPanics(t, func() { e = newEngine() })
	for _, lib := range Libraries() {
		require.Contains(t, []string{"ansible.builtin", "community.general"}, lib.Collection)
		for name := range lib.Lookups {
			require.True(t, e.HasLookup(name), name)
			require.True(t, e.HasLookup(lib.Collection+"."+name), name)
		}
		for name := range lib.LookupOptions {
			_, ok := lib.Lookups[name]
			require.True(t, ok, "options of %s, which its family lacks", name)
		}
		for name := range lib.Filters {
			require.Contains(t, e.PluginNames("filter"), lib.Collection+"."+name)
		}
		for name := range lib.Tests {
			require.Contains(t, e.PluginNames("test"), lib.Collection+"."+name)
		}
	}
	// Every lookup that declares options is in the table, and no entry of
	// the table is left without its lookup.
	for name := range lookupOptionDefs() {
		defs, found := e.LookupOptionDefs(name)
		require.True(t, found, name)
		require.Equal(t, lookupOptionDefs()[name], defs, name)
	}
	require.Panics(t, func() { template.New(append(Libraries(), Libraries()...)...) })
}

// TestTakeUndefined: env and first_found receive undefined values (a
// with_first_found loop's undefined terms are dropped; env's default may
// be undef()); another lookup of this library fails on them first.
func TestTakeUndefined(t *testing.T) {
	e := newEngine()
	e.Getenv = func(string) (string, bool) { return "", false }
	renderCases(t, e, noVars(), template.Options{}, []tcase{
		{"{{ lookup('env', 'NOPE', default=undef()) }}", nil, "The environment variable 'NOPE' is not set."},
		{"{{ lookup('file', nope) }}", nil, "'nope' is undefined"},
	})
}
