package template

import "testing"

func TestCommunityFilters(t *testing.T) {
	runCases(t, []tcase{
		// community.general
		{"{{ [['a',1],['b',2]] | community.general.dict }}", D("a", 1, "b", 2), ""},
		{"{{ 'a' | community.general.dict }}", nil, fe("community.general.dict", "dictionary update sequence element #0 has length 1; 2 is required")},
		{"{{ 5 | community.general.dict_kv('x') }}", D("x", 5), ""},
		{"{{ l1 | community.general.lists_mergeby(l2, 'name') }}", L(D("name", "a", "x", 1), D("name", "b", "x", 2, "y", 3), D("name", "c", "y", 4)), ""},
		{"{{ 'x' | community.general.lists_mergeby(zzz=1) }}", nil, fe("community.general.lists_mergeby", "'recursive' and 'list_merge' are the only valid keyword arguments.")},
	})
}
