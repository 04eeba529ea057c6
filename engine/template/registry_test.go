package template

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/settings"
	"github.com/stretchr/testify/require"
)

func TestFQCNFilterNames(t *testing.T) {
	runCases(t, []tcase{
		// FQCN
		{"{{ [3, 1] | ansible.builtin.sort }}", L(1, 3), ""},
	})
}

func TestFamiliesRegisterEachNameOnce(t *testing.T) {
	for _, f := range families() {
		require.NotEmpty(t, f.Collection)
		require.NotEmpty(t, len(f.Filters)+len(f.Tests)+len(f.Lookups), f.Collection)
	}
	require.NotPanics(t, func() { New() })
	dup := Library{Collection: "community.general", Filters: map[string]FilterFunc{"basename": filterCommonpath}}
	require.PanicsWithError(t, "filter basename is registered twice", func() { New(dup) })
	dupLookup := Library{Collection: "community.general", Lookups: map[string]LookupFunc{"items": lookupItems}}
	require.PanicsWithError(t, "lookup items is registered twice", func() { New(dupLookup) })
}

// TestLibraryDeclarations: a library's option declarations and
// undefined-taking lookups must name lookups it has.
func TestLibraryDeclarations(t *testing.T) {
	e := &Engine{filters: map[string]FilterFunc{}, tests: map[string]TestFunc{}, lookups: map[string]LookupFunc{},
		lookupOpts: map[string]map[string]settings.Def{}, takesUndefined: map[string]bool{}}
	require.EqualError(t, e.register([]Library{{LookupOptions: map[string]map[string]settings.Def{"nope": {}}}}),
		"options of lookup nope, which the library lacks")
	require.EqualError(t, e.register([]Library{{TakeUndefined: []string{"nope"}}}),
		"lookup nope takes undefined values but the library lacks it")
}

// TestLanguageAlone: an engine given no library is the template language
// without I/O: the lookups, tests and filters that read files, run
// processes or read the environment are not there, and fail as unknown
// plugins do.
func TestLanguageAlone(t *testing.T) {
	e := New()
	for _, name := range []string{"file", "pipe", "lines", "env", "url", "password", "template", "fileglob", "first_found", "config", "csvfile", "ini", "unvault", "inventory_hostnames"} {
		require.False(t, e.HasLookup(name), name)
	}
	for _, name := range []string{"items", "list", "dict", "nested", "sequence", "subelements", "vars", "varnames"} {
		require.True(t, e.HasLookup(name), name)
	}
	_, err := e.Render("{{ lookup('pipe', 'echo attack') }}", MapVars{D: D()}, Options{})
	require.EqualError(t, err, "The lookup plugin 'pipe' was not found.")
	_, err = e.Render("{{ '/etc/passwd' is file }}", MapVars{D: D()}, Options{})
	require.Error(t, err)
	_, err = e.Render("{{ '~' | expanduser }}", MapVars{D: D()}, Options{})
	require.Error(t, err)
	got, err := e.Render("{{ '/etc' is abs }}", MapVars{D: D()}, Options{})
	require.NoError(t, err)
	require.Equal(t, true, got)
}

func TestPluginErrorsNameTheirCollection(t *testing.T) {
	runCases(t, []tcase{
		{"{{ 'x' | to_json(zzz=1) }}", nil, fe("ansible.builtin.to_json", "JSONEncoder.__init__() got an unexpected keyword argument 'zzz'")},
		{"{{ 'x' | community.general.version_sort(1) }}", nil, fe("community.general.version_sort", "version_sort() takes 1 positional argument but 2 were given")},
		{"{{ 'x' | ansible.utils.ipwrap(1, 2) }}", nil, fe("ansible.utils.ipwrap", "ipwrap() takes from 1 to 2 positional arguments but 3 were given")},
		{"{{ 1 is ansible.builtin.odd(2) }}", nil, te("ansible.builtin.odd", "test_odd() takes 1 positional argument but 2 were given")},
	})
}
