package command

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// The expected values were printed by ansible-core 2.19's
// parse_kv(line, check_raw=True).
func TestExtractFreeFormOptions(t *testing.T) {
	for _, tc := range []struct {
		line string
		want *value.Dict
	}{
		{"echo hi", value.DictOf("_raw_params", "echo hi")},
		{"echo hi creates=/tmp/x", value.DictOf("_raw_params", "echo hi", "creates", "/tmp/x")},
		{"ls  -l   chdir=/tmp   foo=bar", value.DictOf("_raw_params", "ls  -l   foo=bar", "chdir", "/tmp")},
		{`echo "a b" removes='/tmp/y z'`, value.DictOf("_raw_params", `echo "a b"`, "removes", "/tmp/y z")},
		{"cat stdin_add_newline=no stdin=hello", value.DictOf("_raw_params", "cat", "stdin_add_newline", "no", "stdin", "hello")},
		{"echo {{ x }} chdir={{ d }}", value.DictOf("_raw_params", "echo {{ x }}", "chdir", "{{ d }}")},
		{"line1\nline2 creates=/x\n  indented", value.DictOf("_raw_params", "line1\nline2 indented", "creates", "/x")},
		{"echo 'creates=/not/option'", value.DictOf("_raw_params", "echo 'creates=/not/option'")},
		{`echo x creates=\x41 c\=d =e`, value.DictOf("_raw_params", "echo x c=d =e", "creates", "A")},
		{"echo x executable=/bin/bash warn=no", value.DictOf("_raw_params", "echo x", "executable", "/bin/bash", "warn", "no")},
		{"echo x chdir=/a chdir=/b", value.DictOf("_raw_params", "echo x", "chdir", "/b")},
		{"chdir=/tmp", value.DictOf("chdir", "/tmp")},
		// Unbalanced quotes cannot be split: the line is left alone.
		{`echo "x creates=/y`, value.DictOf("_raw_params", `echo "x creates=/y`)},
	} {
		t.Run(tc.line, func(t *testing.T) {
			got := extractFreeFormOptions(value.DictOf("_raw_params", tc.line))
			require.ElementsMatch(t, tc.want.Keys(), got.Keys())
			for _, k := range tc.want.Keys() {
				require.Equal(t, tc.want.Default(k, nil), got.Default(k, nil), k)
			}
		})
	}
}

func TestExtractFreeFormOptionsKeepsOtherArgs(t *testing.T) {
	args := value.DictOf("_raw_params", "ls creates=/a", "chdir", "/tmp", "creates", "/b")
	got := extractFreeFormOptions(args)
	require.Equal(t, "ls", got.Default("_raw_params", nil))
	require.Equal(t, "/a", got.Default("creates", nil), "the line's option wins, as ansible-core's merge")
	require.Equal(t, "/tmp", got.Default("chdir", nil))
	require.Equal(t, "ls creates=/a", args.Default("_raw_params", nil), "the request's args are not modified")
}

// The expected values were printed by Python's shlex.split.
func TestShlexSplit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"a b", []string{"a", "b"}},
		{"a 'b c' d", []string{"a", "b c", "d"}},
		{`a "b \" c"`, []string{"a", `b " c`}},
		{`a\ b`, []string{"a b"}},
		{`"a\nb"`, []string{`a\nb`}},
		{`'a\b'`, []string{`a\b`}},
		{"x''y", []string{"xy"}},
		{"''", []string{""}},
		{`a "" b`, []string{"a", "", "b"}},
		{"a\\\nb", []string{"a\nb"}},
		{"\ta\r\nb ", []string{"a", "b"}},
		{"é 'ü ö'", []string{"é", "ü ö"}},
		{"", nil},
	} {
		got, err := shlexSplit(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
	for in, want := range map[string]error{`"a`: errNoClosingQuote, "'a": errNoClosingQuote, `a\`: errNoEscapedChar} {
		_, err := shlexSplit(in)
		require.Equal(t, want, err, in)
	}
}

func TestExpandPath(t *testing.T) {
	env := map[string]string{"HOME": "/home/u/", "A": "1", "B_2": "two"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for in, want := range map[string]string{
		"~":              "/home/u",
		"~/x":            "/home/u/x",
		"$A/${B_2}":      "1/two",
		"$NOPE ${NOPE}x": "$NOPE ${NOPE}x",
		"${A":            "${A",
		"~nosuchuser9/x": "~nosuchuser9/x",
		"a~":             "a~",
		"$A$A":           "11",
	} {
		require.Equal(t, want, expandPath(in, lookup), in)
	}
}
