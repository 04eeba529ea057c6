package run

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEmbeddedOnly(t *testing.T) {
	for _, tc := range []struct {
		name, expr string
		ok         bool
	}{
		{name: "single quoted", expr: "x == '{{ y }}'", ok: true},
		{name: "two constants", expr: `"{{ a }}/b" == c and 'd' in "{{ e }}"`, ok: true},
		{name: "marker outside a constant", expr: "{{ y }} == 'x'"},
		{name: "whole template", expr: "{{ x == 'a' }}"},
		{name: "no markers", expr: "x == 'y'"},
		{name: "unterminated constant", expr: "x == '{{ y }}"},
	} {
		require.Equal(t, tc.ok, embeddedOnly(tc.expr), tc.name)
	}
}
