package template

import "testing"

func TestDateFilters(t *testing.T) {
	runCases(t, []tcase{
		// dates
		{"{{ '2024-01-02 03:04:05' | to_datetime | string }}", "2024-01-02 03:04:05", ""},
		{"{{ '2024-01-02' | to_datetime('%Y-%m-%d') | type_debug }}", "datetime", ""},
		{"{{ 'a' | to_datetime }}", nil, fe("ansible.builtin.to_datetime", "time data 'a' does not match format '%Y-%m-%d %H:%M:%S'")},
		{"{{ '%Y-%m-%d %H:%M:%S' | strftime(0, utc=true) }}", "1970-01-01 00:00:00", ""},
		{"{{ '%Y-%m-%d' | strftime(1700000000.7, true) }}", "2023-11-14", ""},
		{"{{ '%Y' | strftime('a') }}", nil, fe("ansible.builtin.strftime", "Invalid value for epoch value (a)")},
	})
}
