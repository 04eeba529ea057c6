package run

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// TestScopeHashBehaviour checks lookups under hash_behaviour replace and
// merge: merging dicts of the same name across levels down to the first
// non-dict, while vars joined into one level (a task and its blocks)
// still replace each other.
func TestScopeHashBehaviour(t *testing.T) {
	layers := func(s *scope) *scope {
		s.add(value.DictOf("cfg", "not a dict"), true)
		s.add(value.DictOf("cfg", value.DictOf("a", 1, "n", value.DictOf("x", 1))), true)
		s.addLevel([]*value.Dict{value.DictOf("cfg", value.DictOf("block", 1)), value.DictOf("cfg", value.DictOf("task", 1))}, true)
		s.add(value.DictOf("cfg", value.DictOf("n", value.DictOf("y", 2))), false)
		return s
	}
	cases := []struct {
		name  string
		merge bool
		want  *value.Dict
	}{
		{"replace: the highest wins", false, value.DictOf("n", value.DictOf("y", 2))},
		{"merge: levels merge, a level's own dicts replace", true, value.DictOf("a", 1, "n", value.DictOf("x", 1, "y", 2), "task", 1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := layers(&scope{merge: c.merge})
			v, templated, ok := s.Lookup("cfg")
			require.True(t, ok)
			require.Equal(t, c.want, unmark(v))
			require.Equal(t, c.merge, templated, "a merged value may hold templates of the levels below")
			require.Equal(t, c.want, unmark(s.flatten().Default("cfg", nil)))
			if c.merge {
				// The data layer's leaf stays marked in the merge.
				n := v.(*value.Dict).Default("n", nil).(*value.Dict)
				require.Equal(t, value.Untrusted{V: 2}, n.Default("y", nil))
				require.Equal(t, 1, n.Default("x", nil))
			}
		})
	}
}

// unmark removes the value.Untrusted marks of a view, as resolving it does.
func unmark(v any) any {
	switch x := v.(type) {
	case value.Untrusted:
		return unmark(x.V)
	case *value.Dict:
		out := value.NewDict(x.Len())
		x.Each(func(k string, e any) bool { out.Set(k, unmark(e)); return true })
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = unmark(e)
		}
		return out
	}
	return v
}
