package external

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidateArgs(t *testing.T) {
	for _, tc := range []struct {
		name, request, want string
	}{
		{
			name: "defaults, conversions, aliases and no_log values",
			request: `{"argument_spec": {"name": {"required": true, "aliases": ["who"]}, "count": {"type": "int", "default": 2},
				"on": {"type": "bool"}, "token": {"no_log": true}}, "rules": null,
				"params": {"who": "x", "on": "yes", "token": "s3cret"}}`,
			want: `{"params": {"who": "x", "on": true, "token": "s3cret", "name": "x", "count": 2}, "no_log_values": ["s3cret"], "warnings": []}`,
		},
		{
			name:    "an invalid choice is ansible-core's message",
			request: `{"argument_spec": {"style": {"choices": ["a", "b"]}}, "params": {"style": "c"}}`,
			want:    `{"params": {"style": "c"}, "no_log_values": [], "warnings": [], "error": "value of style must be one of: a, b, got: c", "unsupported": false}`,
		},
		{
			name:    "unknown parameters are marked unsupported",
			request: `{"argument_spec": {"name": {}}, "params": {"colour": "red"}}`,
			want:    `{"params": {"colour": "red", "name": null}, "no_log_values": [], "warnings": [], "error": "colour. Supported parameters include: name.", "unsupported": true}`,
		},
		{
			name:    "the relational rules apply",
			request: `{"argument_spec": {"a": {}, "b": {}}, "rules": {"mutually_exclusive": [["a", "b"]]}, "params": {"a": 1, "b": 2}}`,
			want:    `{"params": {"a": "1", "b": "2"}, "no_log_values": [], "warnings": [], "error": "parameters are mutually exclusive: a|b", "unsupported": false}`,
		},
		{
			name:    "required_if",
			request: `{"argument_spec": {"state": {}, "path": {}}, "rules": {"required_if": [["state", "present", ["path"]]]}, "params": {"state": "present"}}`,
			want:    `{"params": {"state": "present", "path": null}, "no_log_values": [], "warnings": [], "error": "state is present but all of the following are missing: path", "unsupported": false}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, ValidateArgs(strings.NewReader(tc.request), &out))
			require.JSONEq(t, tc.want, out.String())
		})
	}
}

func TestValidateArgsRejectsBadRequests(t *testing.T) {
	for _, tc := range []struct{ name, request, want string }{
		{"not JSON", `{`, "__validate-args: the request is not JSON"},
		{"not an object", `[1]`, "__validate-args: the request is not a JSON object"},
		{"a bad spec entry", `{"argument_spec": {"a": 1}}`, `__validate-args: argument spec entry "a" is not a dict`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateArgs(strings.NewReader(tc.request), &bytes.Buffer{})
			require.ErrorContains(t, err, tc.want)
		})
	}
}
