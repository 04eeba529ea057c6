package template

import "testing"

func TestRandomFilters(t *testing.T) {
	runCases(t, []tcase{
		// random (seeded: Python's Mersenne Twister)
		{"{{ [1,2,3] | random(seed='x') }}", 3, ""},
		{"{{ 59 | random(seed='myhost') }}", 53, ""},
		{"{{ 100 | random(seed=42) }}", 81, ""},
		{"{{ 100 | random(10, 5, seed='s') }}", 85, ""},
		{"{{ 'abcdef' | random(seed=3) }}", "b", ""},
		{"{{ 10 | random(seed=2.5) }}", 6, ""},
		{"{{ 5 | random < 5 }}", true, ""},
		{"{{ [] | random }}", nil, fe("ansible.builtin.random", "Cannot choose from an empty sequence")},
		{"{{ [1,2,3,4,5,6] | shuffle(seed='abc') }}", L(6, 1, 2, 3, 4, 5), ""},
	})
}
