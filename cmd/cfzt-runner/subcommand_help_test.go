package main

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHelpListsSubcommands checks that --help lists every subcommand a
// user can type (each literal runSubcommand and the vault command
// dispatch on, internal ones starting with "__" aside) in argparse's
// subparser layout, and that each one's own --help works: usage on
// stdout, exit status 0, nothing run.
func TestHelpListsSubcommands(t *testing.T) {
	dispatched := map[string]bool{}
	for _, file := range []string{"sdkoperator.go", "vaultcmd.go"} {
		src, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, m := range regexp.MustCompile(`args\[0\] == "([^"]+)"`).FindAllStringSubmatch(string(src), -1) {
			if !strings.HasPrefix(m[1], "__") {
				dispatched[m[1]] = true
			}
		}
	}
	require.NotEmpty(t, dispatched)
	var listed []string
	for _, s := range helpSubcommands {
		listed = append(listed, s.name)
	}
	for name := range dispatched {
		require.Contains(t, listed, name, "subcommand %q is not in --help", name)
	}

	res := runCLIProcess(t, t.TempDir(), t.TempDir(), "--help")
	require.Equal(t, 0, res.rc)
	help := res.stdout
	section := help[strings.Index(help, "\nsubcommands:\n"):strings.Index(help, "\noptions:\n")]
	require.Contains(t, section, "\n  {"+strings.Join(listed, ",")+"}\n")
	for _, name := range listed {
		require.Regexp(t, `\n    `+name+` +\S`, section, name)
		sub := runCLIProcess(t, t.TempDir(), t.TempDir(), name, "--help")
		require.Equal(t, 0, sub.rc, "%s --help: %s", name, sub.stderr)
		require.Empty(t, sub.stderr)
		require.True(t, strings.HasPrefix(sub.stdout, "usage: cfzt-runner "+name+" "), sub.stdout)
		for _, l := range strings.Split(sub.stdout, "\n") {
			require.LessOrEqual(t, len(l), 80, "%s --help: line too wide: %q", name, l)
		}
	}
	for _, l := range strings.Split(help, "\n") {
		require.LessOrEqual(t, len(l), 80, "line too wide: %q", l)
	}
}

// TestHelpOperatorCoversEveryFlag checks that `operator --help` (and
// `operator run -h`, as ansible-operator is called) documents every flag
// the operator accepts, with its default, and loads no watches file.
func TestHelpOperatorCoversEveryFlag(t *testing.T) {
	for _, args := range [][]string{{"operator", "--help"}, {"operator", "run", "-h"}, {"operator", "--watches-file", "missing.yaml", "-help"}} {
		res := runCLIProcess(t, t.TempDir(), t.TempDir(), args...)
		require.Equal(t, 0, res.rc, "%v: %s", args, res.stderr)
		require.Empty(t, res.stderr)
		require.Contains(t, res.stdout, "\noptions:\n  -h, --help            show this help message and exit\n")
		fs, _ := sdkFlagSet(nil)
		fs.VisitAll(func(f *flag.Flag) {
			require.Regexp(t, `\n  --`+regexp.QuoteMeta(f.Name)+`[ \n]`, res.stdout, f.Name)
		})
		require.Contains(t, res.stdout, "\n  --watches-file WATCHES_FILE\n                        path to the watches file (default ./watches.yaml)\n")
	}
}

// TestHelpVaultSubcommands checks `vault view --help` and `vault
// encrypt_string --help`: usage on stdout, exit status 0, every flag
// documented; and that a string to encrypt given beside --help is not
// echoed (help is all that is printed).
func TestHelpVaultSubcommands(t *testing.T) {
	for _, sub := range []string{"view", "encrypt_string"} {
		res := runCLIProcess(t, t.TempDir(), t.TempDir(), "vault", sub, "--vault-id", "nowhere", "s3cr3t-value", "--help")
		require.Equal(t, 0, res.rc, "%s: %s", sub, res.stderr)
		require.Empty(t, res.stderr)
		require.True(t, strings.HasPrefix(res.stdout, "usage: cfzt-runner vault "+sub+" [-h]"), res.stdout)
		require.NotContains(t, res.stdout, "s3cr3t-value")
		fs, _ := vaultFlagSet(sub, nil)
		fs.VisitAll(func(f *flag.Flag) {
			require.Regexp(t, `\n  --`+regexp.QuoteMeta(f.Name)+`[ \n]`, res.stdout, f.Name)
		})
	}
}
