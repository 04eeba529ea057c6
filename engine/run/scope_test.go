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
			require.Equal(t, c.want, v)
			require.Equal(t, c.merge, templated, "a merged value may hold templates of the levels below")
			require.Equal(t, c.want, s.flatten().Default("cfg", nil))
		})
	}
}
