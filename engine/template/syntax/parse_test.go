package syntax

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// parseOne parses src, which must be one {{ }} output, and returns its
// expression.
func parseOne(t *testing.T, src string) Expr {
	t.Helper()
	nodes, err := Parse(src, false)
	require.NoError(t, err, src)
	require.Len(t, nodes, 1, src)
	out, ok := nodes[0].(*Output)
	require.True(t, ok, src)
	return out.Expr
}

func TestExpressionsCarryTheirStart(t *testing.T) {
	cases := []struct {
		src  string
		pick func(Expr) Expr
		want Pos
	}{
		{"{{ x }}", func(e Expr) Expr { return e }, Pos{Offset: 3, Line: 1, Col: 4}},
		{"{{ a + b }}", func(e Expr) Expr { return e.(*Binary).R }, Pos{Offset: 7, Line: 1, Col: 8}},
		{"{{ a + b }}", func(e Expr) Expr { return e }, Pos{Offset: 3, Line: 1, Col: 4}},
		{"{{ x\n  | default(1)\n  | int }}", func(e Expr) Expr { return e }, Pos{Offset: 3, Line: 1, Col: 4}},
		{"{{ (1 if\n x) }}", func(e Expr) Expr { return e.(*Cond).Cond }, Pos{Offset: 10, Line: 2, Col: 2}},
		{"{{ d['k'].a }}", func(e Expr) Expr { return e.(*Attr).Obj.(*Item).Key }, Pos{Offset: 5, Line: 1, Col: 6}},
		{"{{ -x }}", func(e Expr) Expr { return e }, Pos{Offset: 3, Line: 1, Col: 4}},
		{"{{ f(1, k=[2]) }}", func(e Expr) Expr { return e.(*Call).KwValues[0] }, Pos{Offset: 10, Line: 1, Col: 11}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, c.pick(parseOne(t, c.src)).Position(), c.src)
	}
}

func TestStatementsCarryTheirTag(t *testing.T) {
	nodes, err := Parse("a\n{% if x %}{{ y }}{% endif %}\n{% for i in l %}{% endfor %}", false)
	require.NoError(t, err)
	require.Len(t, nodes, 3, "trim_blocks drops the newline after a tag")
	require.Equal(t, Pos{Offset: 0, Line: 1, Col: 1}, nodes[0].Position())
	require.Equal(t, Pos{Offset: 2, Line: 2, Col: 1}, nodes[1].Position())
	body := nodes[1].(*If).Bodies[0]
	require.Equal(t, Pos{Offset: 12, Line: 2, Col: 11}, body[0].Position())
	require.Equal(t, Pos{Offset: 31, Line: 3, Col: 1}, nodes[2].Position())
}

func TestParseShapes(t *testing.T) {
	e := parseOne(t, "{{ x | f(1) | ansible.builtin.g is not t(2) }}")
	test := e.(*Test)
	require.True(t, test.Negate)
	require.Equal(t, "t", test.Name)
	filters := test.Expr.(*Filter).Filters
	require.Equal(t, []string{"f", "ansible.builtin.g"}, []string{filters[0].Name, filters[1].Name})

	cmp := parseOne(t, "{{ 1 < x not in y }}").(*Compare)
	require.Equal(t, []string{"<", "not in"}, cmp.Ops)

	set, err := Parse("{% set ns.a = 1, 2 %}", false)
	require.NoError(t, err)
	s := set[0].(*Set)
	require.Equal(t, "a", s.Target.Attr)
	require.Len(t, s.Value.(*Tuple).Items, 2)
}

func TestSyntaxErrorsHaveJinjaMessagesAndPositions(t *testing.T) {
	cases := []struct {
		src       string
		msg       string
		line, col int
	}{
		{"{{ foo bar }}", "expected token 'end of print statement', got 'bar'", 1, 8},
		{"x\n{% if %}", "Expected an expression, got 'end of statement block'", 2, 7},
		{"{{ (1 }}", "expected token ')', got 'end of print statement'", 1, 7},
		{"{% for x in l %}", "Unexpected end of template. Jinja was looking for the following tags: 'endfor' or 'else'. The innermost block that needs to be closed is 'for'.", 1, 17},
	}
	for _, c := range cases {
		_, err := Parse(c.src, false)
		se, ok := err.(*SyntaxError)
		require.True(t, ok, "%s: %v", c.src, err)
		require.Equal(t, c.msg, se.Msg, c.src)
		require.Equal(t, []int{c.line, c.col}, []int{se.Line, se.Col}, c.src)
	}
}

func TestStringConstants(t *testing.T) {
	cases := []struct {
		src  string
		raw  bool
		want string
	}{
		{`{{ 'a\nb' }}`, false, "a\nb"},
		{`{{ 'a\nb' }}`, true, `a\nb`},
		{`{{ 'a\\' }}`, false, `a\`},
		{`{{ "x" 'y' }}`, false, "xy"},
		{`{{ '\u00e9' }}`, false, "é"},
	}
	for _, c := range cases {
		nodes, err := Parse(c.src, c.raw)
		require.NoError(t, err, c.src)
		require.Equal(t, c.want, nodes[0].(*Output).Expr.(*Literal).Value, c.src)
	}
}
