package facts

import (
	"os"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// TestSubsetFidelity resolves every gather_subset of testdata/subsets.yaml
// and compares the collectors (or the error) with what ansible-core
// selected on Linux (testdata/subsets.expected.json, recorded by
// hack/record-fact-subsets.sh).
func TestSubsetFidelity(t *testing.T) {
	src, err := os.ReadFile("testdata/subsets.yaml")
	require.NoError(t, err)
	docs, _, err := value.DecodeYAML("subsets.yaml", src)
	require.NoError(t, err)
	raw, err := os.ReadFile("testdata/subsets.expected.json")
	require.NoError(t, err)
	exp, err := value.DecodeJSON(raw)
	require.NoError(t, err)
	cases, expected := docs[0].([]any), exp.([]any)
	require.Len(t, expected, len(cases), "re-record with hack/record-fact-subsets.sh")
	all := platformCollectors("linux")
	ix := indexCollectors(all)
	for i, c := range cases {
		want := expected[i].(*value.Dict)
		var subset []string
		for _, s := range c.([]any) {
			subset = append(subset, value.Str(s))
		}
		t.Run(value.JSON(c, value.JSONOptions{}), func(t *testing.T) {
			names, err := ix.collectorNames(subset)
			if msg, isErr := want.Get("error"); isErr {
				require.EqualError(t, err, value.Str(msg))
				return
			}
			require.NoError(t, err)
			selected, err := ix.selectCollectors(all, names)
			require.NoError(t, err)
			var got []string
			for _, c := range selected {
				got = append(got, c.name)
			}
			sort.Strings(got)
			var wantNames []string
			for _, n := range want.Default("collectors", []any{}).([]any) {
				wantNames = append(wantNames, value.Str(n))
			}
			require.Equal(t, wantNames, got)
		})
	}
}

// TestSelectionOrder checks that a collector runs after those it reads.
func TestSelectionOrder(t *testing.T) {
	all := platformCollectors("linux")
	ix := indexCollectors(all)
	names, err := ix.collectorNames([]string{"!all", "!min", "network", "pkg_mgr"})
	require.NoError(t, err)
	selected, err := ix.selectCollectors(all, names)
	require.NoError(t, err)
	pos := map[string]int{}
	for i, c := range selected {
		pos[c.name] = i
	}
	require.Less(t, pos["platform"], pos["network"])
	require.Less(t, pos["distribution"], pos["network"])
	require.Less(t, pos["distribution"], pos["pkg_mgr"])
}

func TestFilterFacts(t *testing.T) {
	facts := value.DictOf("ansible_distribution", "Debian", "ansible_distribution_version", "12", "ansible_memtotal_mb", 1,
		"ansible_swaptotal_mb", 2, "facter_os", "x", "gather_subset", []any{"all"})
	for _, tc := range []struct {
		name   string
		filter []string
		want   []string
	}{
		{"empty keeps all", nil, facts.Keys()},
		{"star keeps all", []string{"*"}, facts.Keys()},
		{"implicit prefix", []string{"distribution"}, []string{"ansible_distribution"}},
		{"wildcard", []string{"*_mb"}, []string{"ansible_memtotal_mb", "ansible_swaptotal_mb"}},
		{"explicit prefix is not doubled", []string{"ansible_mem*"}, []string{"ansible_memtotal_mb"}},
		{"facter patterns keep their name", []string{"facter_*"}, []string{"facter_os"}},
		{"pattern order", []string{"swap*", "mem*"}, []string{"ansible_swaptotal_mb", "ansible_memtotal_mb"}},
		{"sets", []string{"ansible_[ms]*_mb"}, []string{"ansible_memtotal_mb", "ansible_swaptotal_mb"}},
		{"negated set", []string{"ansible_[!m]*_mb"}, []string{"ansible_swaptotal_mb"}},
		{"no match", []string{"nothing*"}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := filterFacts(facts, tc.filter).Keys()
			if got == nil {
				got = []string{}
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestBadSubset(t *testing.T) {
	ix := indexCollectors(platformCollectors("linux"))
	_, err := ix.collectorNames([]string{"all", "nope"})
	var bad *BadSubsetError
	require.ErrorAs(t, err, &bad)
	require.Equal(t, "nope", bad.Subset)
	require.Contains(t, err.Error(), "gather_subset options allowed: all, all_ipv4_addresses, all_ipv6_addresses, apparmor")
}
