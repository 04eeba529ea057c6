package template

import (
	"math"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// tcase renders src and expects want (compared with its Go type) or an
// error with exactly the message err.
type tcase struct {
	src  string
	want any
	err  string
}

func testVars() *value.Dict {
	return value.DictOf(
		"users", []any{
			value.DictOf("name", "alice", "groups", []any{"wheel", "dev"}),
			value.DictOf("name", "bob", "groups", []any{"users"}),
			value.DictOf("name", "eve"),
		},
		"d", value.DictOf("b", 1, "a", []any{1, 2.5, nil, true}, "c", value.DictOf("z", "é")),
		"s", "hello world\nfoo 42 bar 7",
		"ml", "a\nb\n\nc\n",
		"long", "The quick brown fox-jumped over the-lazy dog averyveryverylongword and  two  spaces",
		"p1", `(?P<first>h)(e)`, "r1", `\g<first>-\2`, "g1", `\g<first>`, "g2", `\2`,
		"p2", `\d+`, "p3", `([a-z]+) (\d+)`, "p4", `^(\w+)`, "r4", `[\1]`,
		"l1", []any{value.DictOf("name", "a", "x", 1), value.DictOf("name", "b", "x", 2)},
		"l2", []any{value.DictOf("name", "b", "y", 3), value.DictOf("name", "c", "y", 4)},
		"ystr", "- a\n- b: [1, 2]\n",
		"ymulti", "a: 1\n---\nb: 2\n",
		"jstr", `{"a": 1, "b": [1, 2.5, null, true], "c": "\u00e9"}`,
		"myvar", 42,
	)
}

func runCases(t *testing.T, cases []tcase) {
	t.Helper()
	e := New()
	vars := MapVars{D: testVars()}
	for _, c := range cases {
		got, err := e.Render(c.src, vars, Options{})
		if c.err != "" {
			require.Error(t, err, c.src)
			require.Equal(t, c.err, err.Error(), c.src)
			continue
		}
		require.NoError(t, err, c.src)
		if f, ok := c.want.(float64); ok && math.IsNaN(f) {
			g, isF := got.(float64)
			require.True(t, isF && math.IsNaN(g), c.src)
			continue
		}
		require.Equal(t, listifyTuples(c.want), got, c.src)
	}
}

func L(v ...any) []any           { return v }
func T(v ...any) value.Tuple     { return value.Tuple(v) }
func D(kv ...any) *value.Dict    { return value.DictOf(kv...) }
func fe(name, msg string) string { return "The filter plugin '" + name + "' failed: " + msg }
func te(name, msg string) string { return "The test plugin '" + name + "' failed: " + msg }
