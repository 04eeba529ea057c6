package run

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// warnings is a Display that keeps the warnings it is given.
type warnings struct {
	Display
	got []string
}

func (w *warnings) Warning(msg string) { w.got = append(w.got, msg) }

func TestHostsByPattern(t *testing.T) {
	groups := value.DictOf(
		"all", []any{"web1", "web2", "db1"},
		"ungrouped", []any{},
		"web", []any{"web1", "web2"},
		"db", []any{"db1"},
		"prod", []any{"web1", "web2", "db1"},
	)
	cases := []struct {
		patterns []string
		want     []string
		warning  string
	}{
		{patterns: []string{"all"}, want: []string{"web1", "web2", "db1"}},
		{patterns: []string{"all:!db1"}, want: []string{"web1", "web2"}},
		{patterns: []string{"prod:&web"}, want: []string{"web1", "web2"}},
		{patterns: []string{"web[1]", "db"}, want: []string{"web2", "db1"}},
		{patterns: []string{"web[-1]"}, want: []string{"web2"}},
		{patterns: []string{"prod[1:]"}, want: []string{"web2", "db1"}},
		{patterns: []string{"prod[0:1]"}, want: []string{"web1", "web2"}},
		{patterns: []string{"web[5]"}, want: nil},
		{patterns: []string{"~web.*"}, want: []string{"web1", "web2"}},
		{patterns: []string{"nomatch"}, want: nil, warning: "Could not match supplied host pattern, ignoring: nomatch"},
	}
	for _, c := range cases {
		d := &warnings{}
		r := &Runner{Inventory: NewInventory(), Display: d}
		got := r.hostsByPattern(groups, c.patterns)
		require.Equal(t, c.want, got, c.patterns)
		if c.warning != "" {
			require.Equal(t, []string{c.warning}, d.got, c.patterns)
		} else {
			require.Empty(t, d.got, c.patterns)
		}
	}
}

func TestSplitSubscript(t *testing.T) {
	cases := []struct {
		in     string
		expr   string
		sub    *subscript
		dashed bool
	}{
		{in: "web", expr: "web"},
		{in: "web[0]", expr: "web", sub: &subscript{start: 0, single: true}},
		{in: "web[-2]", expr: "web", sub: &subscript{start: -2, single: true}},
		{in: "web[1:3]", expr: "web", sub: &subscript{start: 1, end: 3}},
		{in: "web[2:]", expr: "web", sub: &subscript{start: 2, end: -1}},
		{in: "web[1-2]", expr: "web", sub: &subscript{start: 1, end: 2}, dashed: true},
		{in: "~web[0]", expr: "~web[0]"},
		{in: "web[a]", expr: "web[a]"},
	}
	for _, c := range cases {
		expr, sub, dashed := splitSubscript(c.in)
		require.Equal(t, c.expr, expr, c.in)
		require.Equal(t, c.sub, sub, c.in)
		require.Equal(t, c.dashed, dashed, c.in)
	}
	_, err := (&subscript{start: 3, single: true}).apply([]string{"a"}, "g[3]")
	require.EqualError(t, err, "No hosts matched the subscripted pattern 'g[3]'")
	got, err := (&subscript{start: 0, end: 0}).apply([]string{"a", "b"}, "g[0:0]")
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, got)
}
