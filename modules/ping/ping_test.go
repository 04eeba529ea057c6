package ping

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
)

func TestPing(t *testing.T) {
	h := moduletest.NewHost(nil)
	for _, tc := range []struct {
		name string
		args []any
		want *value.Dict
		err  string
	}{
		{name: "pong", want: value.DictOf("changed", false, "ping", "pong")},
		{name: "data", args: []any{"data", 42}, want: value.DictOf("changed", false, "ping", "42")},
		{name: "crash", args: []any{"data", "crash"}, want: module.Crashed(errCrash)},
		{name: "bad argument", args: []any{"date", "x"},
			want: module.Failed("Unsupported parameters for (ping) module: date. Supported parameters include: data.")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Entries()[0].Module.Run(h.Request("ping", tc.args...))
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, res)
		})
	}
}
