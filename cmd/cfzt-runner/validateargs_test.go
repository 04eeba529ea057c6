package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestValidateArgsSubcommand runs the internal __validate-args command as
// the compatibility package runs it: a JSON request on standard input,
// the validated arguments on standard output, and no playbook run.
func TestValidateArgsSubcommand(t *testing.T) {
	for _, tc := range []struct {
		name, request, wantOut string
		wantCode               int
	}{
		{name: "validated params", request: `{"argument_spec": {"n": {"type": "int", "default": 1}}, "params": {}}`,
			wantOut: `{"params": {"n": 1}, "no_log_values": [], "warnings": []}`},
		{name: "a bad request", request: `nope`, wantCode: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in")
			require.NoError(t, os.WriteFile(in, []byte(tc.request), 0o600))
			stdin, err := os.Open(in)
			require.NoError(t, err)
			defer stdin.Close()
			stdout, err := os.Create(filepath.Join(dir, "out"))
			require.NoError(t, err)
			defer stdout.Close()
			oldIn, oldOut := os.Stdin, os.Stdout
			os.Stdin, os.Stdout = stdin, stdout
			code := runSubcommand(context.Background(), []string{"__validate-args"}, func(context.Context, []string) int {
				t.Fatal("__validate-args fell through to the playbook runner")
				return 2
			})
			os.Stdin, os.Stdout = oldIn, oldOut
			require.Equal(t, tc.wantCode, code)
			out, err := os.ReadFile(filepath.Join(dir, "out"))
			require.NoError(t, err)
			if tc.wantOut != "" {
				require.JSONEq(t, tc.wantOut, string(out))
			}
		})
	}
}
