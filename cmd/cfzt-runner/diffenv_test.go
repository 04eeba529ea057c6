package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// ANSIBLE_DIFF_ALWAYS makes diff mode the default, as DIFF_ALWAYS does in
// ansible-core; without it only -D/--diff turns it on.
func TestDiffAlwaysEnvironment(t *testing.T) {
	tests := []struct {
		env  string
		args []string
		want bool
	}{
		{"", []string{"pb.yml"}, false},
		{"", []string{"-D", "pb.yml"}, true},
		{"True", []string{"pb.yml"}, true},
		{"yes", []string{"pb.yml"}, true},
		{"false", []string{"pb.yml"}, false},
		{"false", []string{"--diff", "pb.yml"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.env+" "+tc.args[0], func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("ANSIBLE_DIFF_ALWAYS", tc.env)
			}
			c, _, err := parseArgs(tc.args)
			require.NoError(t, err)
			require.Equal(t, tc.want, c.diff)
		})
	}
}
