package template

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// fileOptsCase is one record of testdata/fileopts.expected.json: a
// template file's text, the template module's options, the variables and
// what ansible-core rendered (Out) or the error it raised (Err).
type fileOptsCase struct {
	Name string          `json:"name"`
	Src  string          `json:"src"`
	Opts map[string]any  `json:"opts"`
	Vars json.RawMessage `json:"vars"`
	Out  any             `json:"out"`
	Err  *string         `json:"err"`
}

// templatedVars holds variables from a playbook: string values are
// templates, rendered when used.
type templatedVars struct{ d *value.Dict }

func (v templatedVars) Lookup(name string) (any, bool, bool) {
	x, ok := v.d.Get(name)
	return x, true, ok
}

// optionsConfig applies the module options of a case to the default
// environment, as the template action passes them to ansible-core.
func optionsConfig(t *testing.T, opts map[string]any) *syntax.Config {
	cfg := syntax.Default()
	for k, v := range opts {
		set, ok := overrideFields[k]
		require.True(t, ok, k)
		require.NoError(t, set(&cfg, v), k)
	}
	return &cfg
}

func TestFileOptions(t *testing.T) {
	data, err := os.ReadFile("testdata/fileopts.expected.json")
	require.NoError(t, err)
	var cases []fileOptsCase
	require.NoError(t, json.Unmarshal(data, &cases))
	require.NotEmpty(t, cases)
	e := New()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			vars, err := value.DecodeJSON(c.Vars)
			require.NoError(t, err)
			got, err := e.RenderFile("/t/"+c.Name, c.Src, templatedVars{vars.(*value.Dict)}, Options{Syntax: optionsConfig(t, c.Opts)})
			if c.Err != nil {
				require.Error(t, err, "%q", c.Src)
				require.Equal(t, *c.Err, err.Error(), "%q", c.Src)
				return
			}
			require.NoError(t, err, "%q", c.Src)
			want, _ := json.Marshal(c.Out)
			have, err := json.Marshal(got)
			require.NoError(t, err)
			require.Equal(t, string(want), string(have), "%q with %v", c.Src, c.Opts)
		})
	}
}
