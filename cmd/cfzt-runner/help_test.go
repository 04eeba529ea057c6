package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHelpLooksLikeAnsiblePlaybook checks --help against the shape of
// ansible-playbook's: one usage line, the playbook argument, options
// grouped under titles with every long name and value name shown, the
// operator's run modes in a group of their own, and no per-option
// "no effect" notes. (Not a golden: the operator group is ours alone.)
func TestHelpLooksLikeAnsiblePlaybook(t *testing.T) {
	res := runCLIProcess(t, t.TempDir(), t.TempDir(), "--help")
	require.Equal(t, 0, res.rc)
	require.Empty(t, res.stderr)
	help := res.stdout
	lines := strings.Split(help, "\n")
	require.Equal(t, helpUsage, lines[0])
	require.Equal(t, 1, strings.Count(help, "usage:"), "one usage line")
	require.NotContains(t, help, "no effect")
	require.Contains(t, help, "\npositional arguments:\n  playbook              Playbook(s)\n")
	for _, title := range []string{"options", "Connection Options", "Privilege Escalation Options", "Operator Options"} {
		require.Contains(t, help, "\n"+title+":\n", title)
	}
	for _, want := range []string{
		"  -i INVENTORY, --inventory INVENTORY, --inventory-file INVENTORY\n",
		"  -e EXTRA_VARS, --extra-vars EXTRA_VARS\n",
		"  -C, --check           don't make any changes",
		"  -t TAGS, --tags TAGS  only run plays",
		"  --interval SECONDS    re-run the playbook",
		"  --watch-kind GROUP/VERSION/KIND\n",
	} {
		require.Contains(t, help, want)
	}
	operator := help[strings.Index(help, "\nOperator Options:\n"):]
	for _, name := range []string{"--interval", "--watch", "--watch-kind", "--grace", "--leader-elect", "--metrics-addr", "--log-format"} {
		require.Contains(t, operator, "  "+name+" ", name)
	}
	for _, l := range lines {
		require.LessOrEqual(t, len(l), 80, "line too wide for a terminal: %q", l)
	}
}

// TestHelpCoversEveryFlag checks that every flag the command line accepts
// is documented in --help, and every documented name is accepted.
func TestHelpCoversEveryFlag(t *testing.T) {
	documented := map[string]bool{}
	for _, g := range helpGroups {
		for _, o := range g.options {
			for _, n := range o.names {
				documented[strings.TrimLeft(n, "-")] = true
			}
		}
	}
	accepted := map[string]bool{"h": true, "help": true, "v": true, "verbose": true}
	(&cli{}).flagSet().VisitAll(func(f *flag.Flag) { accepted[f.Name] = true })
	for name := range accepted {
		require.True(t, documented[name], "flag -%s is not in --help", name)
	}
	for name := range documented {
		require.True(t, accepted[name], "--help documents -%s, which is not accepted", name)
	}
}

// TestUsageErrors checks that command-line mistakes are reported as
// ansible-playbook reports them: usage, "error:", exit status 2.
func TestUsageErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		msg  string
	}{
		{"unknown option", []string{"--bogus", "pb.yml"}, "cfzt-runner: error: unrecognized arguments: --bogus"},
		{"missing value", []string{"pb.yml", "-i"}, "cfzt-runner: error: argument -i/--inventory/--inventory-file: expected one argument"},
		{"bad forks", []string{"-f", "x", "pb.yml"}, "cfzt-runner: error: argument -f/--forks: invalid tag_value value: 'x'"},
		{"no playbook", nil, "cfzt-runner: error: the following arguments are required: playbook"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := runCLIProcess(t, t.TempDir(), t.TempDir(), tc.args...)
			require.Equal(t, 2, res.rc)
			require.Empty(t, res.stdout)
			lines := strings.Split(res.stderr, "\n")
			require.Equal(t, helpUsage, lines[0])
			require.Equal(t, tc.msg, lines[1])
		})
	}
}
