package run

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEmbeddedOnly(t *testing.T) {
	for _, tc := range []struct {
		name, expr string
		texts      []string
		ok         bool
	}{
		{name: "single quoted", expr: "x == '{{ y }}'", texts: []string{"{{ y }}"}, ok: true},
		{name: "two constants", expr: `"{{ a }}/b" == c and 'd' in "{{ e }}"`, texts: []string{"{{ a }}/b", "{{ e }}"}, ok: true},
		{name: "marker outside a constant", expr: "{{ y }} == 'x'"},
		{name: "whole template", expr: "{{ x == 'a' }}"},
		{name: "no markers", expr: "x == 'y'"},
		{name: "unterminated constant", expr: "x == '{{ y }}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lits, ok := embeddedOnly(tc.expr)
			require.Equal(t, tc.ok, ok)
			var texts []string
			for _, l := range lits {
				texts = append(texts, l.text)
				require.Equal(t, tc.expr[l.start+1:l.end-1], l.text)
			}
			if tc.ok {
				require.Equal(t, tc.texts, texts)
			}
		})
	}
}
