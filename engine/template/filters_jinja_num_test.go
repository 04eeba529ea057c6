package template

import (
	"math"
	"testing"
)

func TestJinjaNumFilters(t *testing.T) {
	runCases(t, []tcase{
		// abs
		{"{{ -3 | abs }}", 3, ""},
		{"{{ -3.5 | abs }}", 3.5, ""},
		{"{{ 'a' | abs }}", nil, fe("ansible.builtin.abs", "bad operand type for abs(): 'str'")},
		{"{{ 1 | abs(2) }}", nil, fe("ansible.builtin.abs", "abs() takes exactly one argument (2 given)")},
		// filesizeformat
		{"{{ 1000000 | filesizeformat }}", "1.0 MB", ""},
		{"{{ 1 | filesizeformat }}", "1 Byte", ""},
		{"{{ 999 | filesizeformat }}", "999 Bytes", ""},
		{"{{ 1048576 | filesizeformat(true) }}", "1.0 MiB", ""},
		{"{{ '3e30' | filesizeformat }}", "3000000.0 YB", ""},
		{"{{ 'x' | filesizeformat }}", nil, fe("ansible.builtin.filesizeformat", "could not convert string to float: 'x'")},
		// float / int
		{"{{ ' 1.5 ' | float }}", 1.5, ""},
		{"{{ True | float }}", 1.0, ""},
		{"{{ 'inf' | float }}", math.Inf(1), ""},
		{"{{ 'x' | float(None) }}", nil, ""},
		{"{{ 'x' | float(zzz=1) }}", nil, fe("ansible.builtin.float", "do_float() got an unexpected keyword argument 'zzz'")},
		{"{{ '42' | int }}", 42, ""},
		{"{{ '4.2' | int }}", 4, ""},
		{"{{ 'bad' | int }}", 0, ""},
		{"{{ ' 0x1A ' | int(base=16) }}", 26, ""},
		{"{{ '0b101' | int(base=0) }}", 5, ""},
		{"{{ '1_000' | int }}", 1000, ""},
		{"{{ '1e3' | int }}", 1000, ""},
		{"{{ 'nan' | int }}", 0, ""},
		{"{{ '12abc' | int('d') }}", "d", ""},
		{"{{ None | int }}", 0, ""},
		{"{{ -3.99 | int }}", -3, ""},
		{"{{ 'x' | int(1,2,3) }}", nil, fe("ansible.builtin.int", "do_int() takes from 1 to 3 positional arguments but 4 were given")},
		{"{{ 'x' | int(1, default=2) }}", nil, fe("ansible.builtin.int", "do_int() got multiple values for argument 'default'")},
		// round
		{"{{ 42 | round }}", 42, ""},
		{"{{ 42.55 | round }}", 43.0, ""},
		{"{{ 2.675 | round(2) }}", 2.67, ""},
		{"{{ 1250 | round(-2) }}", 1200, ""},
		{"{{ 1234.5 | round(-2) }}", 1200.0, ""},
		{"{{ 42.55 | round(1, 'floor') }}", 42.5, ""},
		{"{{ 42 | round(1, 'ceil') }}", 42.0, ""},
		{"{{ 'x' | round }}", nil, fe("ansible.builtin.round", "type str doesn't define __round__ method")},
		{"{{ 1.5 | round(method='x') }}", nil, fe("ansible.builtin.round", "method must be common, ceil or floor")},
	})
}
