package template

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFQCNFilterNames(t *testing.T) {
	runCases(t, []tcase{
		// FQCN
		{"{{ [3, 1] | ansible.builtin.sort }}", L(1, 3), ""},
	})
}

func TestFamiliesRegisterEachNameOnce(t *testing.T) {
	e := &Engine{filters: map[string]FilterFunc{}, tests: map[string]TestFunc{}, lookups: map[string]LookupFunc{}}
	require.NoError(t, e.register(families()))
	for _, f := range families() {
		require.NotEmpty(t, f.collection)
		require.NotEmpty(t, len(f.filters)+len(f.tests)+len(f.lookups), f.collection)
	}
	dup := family{collection: "community.general", filters: map[string]FilterFunc{"basename": filterFileglob}}
	require.EqualError(t, e.register([]family{dup}), "filter basename is registered twice")
}

func TestPluginErrorsNameTheirCollection(t *testing.T) {
	runCases(t, []tcase{
		{"{{ 'x' | to_json(zzz=1) }}", nil, fe("ansible.builtin.to_json", "JSONEncoder.__init__() got an unexpected keyword argument 'zzz'")},
		{"{{ 'x' | community.general.version_sort(1) }}", nil, fe("community.general.version_sort", "version_sort() takes 1 positional argument but 2 were given")},
		{"{{ 'x' | ansible.utils.ipwrap(1, 2) }}", nil, fe("ansible.utils.ipwrap", "ipwrap() takes from 1 to 2 positional arguments but 3 were given")},
		{"{{ 1 is ansible.builtin.odd(2) }}", nil, te("ansible.builtin.odd", "test_odd() takes 1 positional argument but 2 were given")},
	})
}
