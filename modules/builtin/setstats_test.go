package builtin

import (
	"errors"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestSetStats(t *testing.T) {
	vars := value.DictOf("suffix", "key")
	for _, tc := range []struct {
		name string
		args *value.Dict
		want string
		err  string
	}{
		{name: "no arguments records nothing", args: value.NewDict(0),
			want: `{"changed": false, "ansible_stats": {"data": {}, "per_host": false, "aggregate": true}}`},
		{name: "data with a templated key and options", args: value.DictOf("data", value.DictOf("n", 1, "my_{{ suffix }}", "v"), "per_host", "yes", "aggregate", false),
			want: `{"changed": false, "ansible_stats": {"data": {"n": 1, "my_key": "v"}, "per_host": true, "aggregate": false}}`},
		{name: "an unrecognised boolean is false", args: value.DictOf("data", value.DictOf("n", 1), "per_host", "maybe"),
			want: `{"changed": false, "ansible_stats": {"data": {"n": 1}, "per_host": false, "aggregate": true}}`},
		{name: "data that is not a dict", args: value.DictOf("data", []any{1}),
			want: `{"failed": true, "msg": "The 'data' option needs to be a dictionary/hash"}`},
		{name: "invalid stat name", args: value.DictOf("data", value.DictOf("bad name", 1)), err: "Invalid variable name 'bad name'."},
		{name: "unknown option", args: value.DictOf("data", value.NewDict(0), "colour", 1), err: "Invalid options for set_stats: colour"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := newReq(tc.args, vars, nil)
			req.Action = "set_stats"
			res, err := setStatsModule(req)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				var pe *diag.Diagnostic
				if errors.As(err, &pe) && pe.Origin != nil {
					require.Equal(t, "p.yml", pe.Origin.File, "the error points at data")
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, value.JSON(res, value.JSONOptions{}))
		})
	}
}
