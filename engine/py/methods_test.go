package py

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestStrMethods(t *testing.T) {
	cases := []struct {
		s, method string
		args      []any
		kw        *value.Dict
		want      any
	}{
		{"ab", "center", []any{5, "*"}, nil, "**ab*"}, // pad 3: one more left, as width is odd
		{"abc", "center", []any{6}, nil, " abc  "},
		{"ab", "ljust", []any{4, "-"}, nil, "ab--"},
		{"ab", "rjust", []any{4}, nil, "  ab"},
		{"abc", "rjust", []any{2}, nil, "abc"},
		{"a=b=c", "partition", []any{"="}, nil, value.Tuple{"a", "=", "b=c"}},
		{"a=b=c", "rpartition", []any{"="}, nil, value.Tuple{"a=b", "=", "c"}},
		{"abc", "partition", []any{"="}, nil, value.Tuple{"abc", "", ""}},
		{"abc", "rpartition", []any{"="}, nil, value.Tuple{"", "", "abc"}},
		{"-42", "zfill", []any{5}, nil, "-0042"},
		{"Straße", "upper", nil, nil, "STRASSE"},
		{"hello world", "title", nil, nil, "Hello World"},
		{"{0}-{name}", "format", []any{1}, value.DictOf("name", "n"), "1-n"},
	}
	for _, c := range cases {
		got, _, err := CallMethod(c.s, c.method, &Args{Pos: c.args, Kw: c.kw})
		require.NoError(t, err, "%q.%s%v", c.s, c.method, c.args)
		require.Equal(t, c.want, got, "%q.%s%v", c.s, c.method, c.args)
	}
}
