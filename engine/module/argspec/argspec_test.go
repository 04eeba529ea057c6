package argspec

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// TestFidelity runs every case of testdata/cases.yaml and compares the
// parameters and errors with what ansible-core's ArgumentSpecValidator
// gave (testdata/cases.expected.json, recorded by hack/record-argspec.sh).
func TestFidelity(t *testing.T) {
	lookupEnv = func(string) (string, bool) { return "", false }
	defer func() { lookupEnv = os.LookupEnv }()
	src, err := os.ReadFile("testdata/cases.yaml")
	require.NoError(t, err)
	docs, _, err := value.DecodeYAML("cases.yaml", src)
	require.NoError(t, err)
	cases := docs[0].([]any)
	raw, err := os.ReadFile("testdata/cases.expected.json")
	require.NoError(t, err)
	exp, err := value.DecodeJSON(raw)
	require.NoError(t, err)
	expected := exp.([]any)
	require.Len(t, expected, len(cases), "re-record with hack/record-argspec.sh")
	for i, c := range cases {
		in := c.(*value.Dict)
		want := expected[i].(*value.Dict)
		name := value.Str(in.Default("name", ""))
		require.Equal(t, name, value.Str(want.Default("name", "")))
		t.Run(name, func(t *testing.T) {
			spec, _ := in.Default("spec", nil).(*value.Dict)
			rules, _ := in.Default("rules", nil).(*value.Dict)
			params, _ := in.Default("params", nil).(*value.Dict)
			if params == nil {
				params = value.NewDict(0)
			}
			s, err := FromData(spec, rules)
			require.NoError(t, err)
			res := s.Validate(params)
			var gotErrs []any
			for _, e := range res.Errors {
				gotErrs = append(gotErrs, value.DictOf("msg", e.Msg, "unsupported", e.Unsupported))
			}
			wantErrs, _ := want.Default("errors", nil).([]any)
			require.Equal(t, canon(wantErrs), canon(gotErrs), "errors")
			if len(wantErrs) == 0 {
				require.Equal(t, canon(want.Default("params", nil)), canon(res.Params), "params")
			}
		})
	}
}

// canon renders a value as sorted-key JSON for comparison.
func canon(v any) string {
	if l, ok := v.([]any); ok && len(l) == 0 {
		v = nil
	}
	return value.JSON(v, value.JSONOptions{SortKeys: true})
}

func TestNoLogValues(t *testing.T) {
	s := &Spec{Options: []Option{{Name: "token", NoLog: true}, {Name: "auth", Type: Dict, Options: []Option{{Name: "pass", NoLog: true}}}}}
	res := s.Validate(value.DictOf("token", "t0k", "auth", value.DictOf("pass", "p4ss")))
	require.Empty(t, res.Errors)
	require.ElementsMatch(t, []string{"t0k", "p4ss"}, res.NoLogValues)
}

func TestValidateDoesNotModifyArgs(t *testing.T) {
	inner := value.DictOf("port", "80")
	args := value.DictOf("cfg", inner, "n", "5")
	s := &Spec{Options: []Option{{Name: "n", Type: Int}, {Name: "cfg", Type: Dict, Options: []Option{{Name: "port", Type: Int}, {Name: "host", Default: "h"}}}}}
	res := s.Validate(args)
	require.Empty(t, res.Errors)
	require.Equal(t, 5, res.P().Int("n"))
	require.Equal(t, 80, res.P().Map("cfg").Default("port", nil))
	require.Equal(t, "80", inner.Default("port", nil))
	require.False(t, inner.Has("host"))
	require.Equal(t, "5", args.Default("n", nil))
}

func TestMessageAndFailure(t *testing.T) {
	s := &Spec{Options: []Option{{Name: "a"}}}
	res := s.Validate(value.DictOf("b", 1))
	require.Equal(t, "Unsupported parameters for (ansible.legacy.x) module: b. Supported parameters include: a.", res.Message("ansible.legacy.x"))
	f := res.Failure("ansible.legacy.x")
	require.Equal(t, true, f.Default("failed", nil))
	require.Error(t, res.ActionError("x"))
	require.Nil(t, s.Validate(value.DictOf("a", 1)).Failure("x"))
}

func TestEnvFallback(t *testing.T) {
	lookupEnv = func(k string) (string, bool) {
		if k == "TOKEN_B" {
			return "from-env", true
		}
		return "", false
	}
	defer func() { lookupEnv = os.LookupEnv }()
	s := &Spec{Options: []Option{{Name: "token", NoLog: true, EnvFallback: []string{"TOKEN_A", "TOKEN_B"}}}}
	res := s.Validate(value.NewDict(0))
	require.Equal(t, "from-env", res.P().Str("token"))
	require.Equal(t, []string{"from-env"}, res.NoLogValues)
}
