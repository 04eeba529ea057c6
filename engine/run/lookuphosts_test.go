package run

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/inventory"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// warnings is a Display that keeps the warnings it is given.
type warnings struct {
	Display
	got []string
}

func (w *warnings) Warn(d *diag.Diagnostic) { w.got = append(w.got, d.Summary) }

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
		r := &Runner{Inventory: inventory.New(), Display: d}
		got := r.hostsByPattern(groups, c.patterns)
		require.Equal(t, c.want, got, c.patterns)
		if c.warning != "" {
			require.Equal(t, []string{c.warning}, d.got, c.patterns)
		} else {
			require.Empty(t, d.got, c.patterns)
		}
	}
}
