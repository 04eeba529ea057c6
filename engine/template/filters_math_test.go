package template

import "testing"

func TestMathFilters(t *testing.T) {
	runCases(t, []tcase{
		// human
		{"{{ 1024 | human_readable }}", "1.00 KB", ""},
		{"{{ 1048576 | human_readable(unit='K') }}", "1024.00 KB", ""},
		{"{{ 10 | human_readable(isbits=true) }}", "10.00 bits", ""},
		{"{{ 'x' | human_readable }}", nil, fe("ansible.builtin.human_readable", "human_readable() failed on bad input: '>=' not supported between instances of 'str' and 'int'")},
		{"{{ '1K' | human_to_bytes }}", 1024, ""},
		{"{{ '1.5 MB' | human_to_bytes }}", 1572864, ""},
		{"{{ '2' | human_to_bytes('G') }}", 2147483648, ""},
		{"{{ '1Mb' | human_to_bytes(isbits=true) }}", 1048576, ""},
		{"{{ '1Mb' | human_to_bytes }}", nil, fe("ansible.builtin.human_to_bytes", "human_to_bytes() can't interpret the input: human_to_bytes() failed to convert 1Mb. Value is not a valid string (expect MB or M)")},
		{"{{ 'xyz' | human_to_bytes }}", nil, fe("ansible.builtin.human_to_bytes", "human_to_bytes() can't interpret the input: human_to_bytes() can't interpret following string: xyz")},
		// math & itertools
		{"{{ 100 | log(10) }}", 2.0, ""},
		{"{{ 2 | pow(10) }}", 1024.0, ""},
		{"{{ 16 | root }}", 4.0, ""},
		{"{{ [1,2] | product([3,4]) }}", L(T(1, 3), T(1, 4), T(2, 3), T(2, 4)), ""},
		{"{{ [1,2,3] | permutations(2) | length }}", 6, ""},
		{"{{ [1,2,3] | combinations(2) }}", L(T(1, 2), T(1, 3), T(2, 3)), ""},
		{"{{ 'x' | to_uuid }}", "66b2f013-1baa-5313-9c8c-e6f1182e0e90", ""},
	})
}
