package main

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The test binary doubles as the CLI: with CFZT_TEST_CLI=1 it runs
// runCLI on its arguments, so tests exercise the real command in a
// separate process (its own stdout, stderr and exit code).
func TestMain(m *testing.M) {
	if os.Getenv("CFZT_TEST_CLI") == "1" {
		// As main: the first SIGINT or SIGTERM asks for a stop.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := runSubcommand(ctx, os.Args[1:], runCLI)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// cliResult is one run of the CLI.
type cliResult struct {
	stdout, stderr string
	rc             int
}

// runCLIProcess runs the CLI in dir with args and the fixed environment
// the error expectations were recorded with.
func runCLIProcess(t *testing.T, dir, home string, args ...string) cliResult {
	t.Helper()
	return runCLIEnv(t, dir, home, nil, args...)
}

// runCLIEnv is runCLIProcess with extra KEY=VALUE environment entries.
func runCLIEnv(t *testing.T, dir, home string, env []string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"CFZT_TEST_CLI=1",
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"ANSIBLE_NOCOLOR=1",
		"ANSIBLE_STDOUT_CALLBACK=default",
		"LC_ALL=C.UTF-8",
		"TZ=UTC",
	}, env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	rc := 0
	if ee, ok := err.(*exec.ExitError); ok {
		rc = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return cliResult{stdout: out.String(), stderr: errOut.String(), rc: rc}
}

// errorCase pins what each error must say, where, and with which exit
// code; the full output is also compared with the oracle's recording in
// testdata/errors/<name>/expected.* (see testdata/record-errors.sh).
type errorCase struct {
	name    string
	rc      int
	message string // the [ERROR] line
	origin  string // the Origin line, "" when Ansible shows none
	stream  string // "stdout" or "stderr": where the [ERROR] goes
	// extra is what cfzt-runner adds to the oracle's output on purpose.
	extra string
}

var errorCases = []errorCase{
	{name: "malformed-yaml", rc: 4, stream: "stderr",
		message: "[ERROR]: YAML parsing failed: While parsing a block collection did not find expected '-' indicator.",
		origin:  "Origin: <DIR>/playbook.yml:5:6"},
	{name: "yaml-unquoted-template", rc: 4, stream: "stderr",
		message: "[ERROR]: YAML parsing failed: This may be an issue with missing quotes around a template block.",
		origin:  "Origin: <DIR>/playbook.yml:5:14"},
	{name: "unknown-module", rc: 4, stream: "stderr",
		message: "[ERROR]: couldn't resolve module/action 'ansible.builtin.debgu'. This often indicates a misspelling, missing collection, or incorrect module path.",
		origin:  "Origin: <DIR>/playbook.yml:4:7",
		// A deliberate improvement on ansible-playbook (README).
		extra: "Did you mean 'ansible.builtin.debug'?\n\n"},
	{name: "unknown-keyword", rc: 4, stream: "stderr",
		message: "[ERROR]: conflicting action statements: ansible.builtin.debug, whenn",
		origin:  "Origin: <DIR>/playbook.yml:4:7"},
	{name: "undefined-in-when", rc: 2, stream: "stdout",
		message: "[ERROR]: Task failed: Error while evaluating conditional: 'nosuchvar' is undefined",
		origin:  "Origin: <DIR>/playbook.yml:8:13"},
	{name: "undefined-in-args", rc: 2, stream: "stdout",
		message: "[ERROR]: Task failed: Finalization of task args for 'ansible.builtin.debug' failed: Error while resolving value for 'msg': 'nosuchvar' is undefined",
		origin:  "Origin: <DIR>/playbook.yml:7:14"},
	{name: "undefined-in-loop", rc: 2, stream: "stdout",
		message: "[ERROR]: Task failed: 'nosuchlist' is undefined",
		origin:  "Origin: <DIR>/playbook.yml:8:13"},
	{name: "bad-filter-argument", rc: 2, stream: "stdout",
		message: "[ERROR]: Task failed: Finalization of task args for 'ansible.builtin.debug' failed: Error while resolving value for 'msg': The filter plugin 'ansible.builtin.center' failed: 'str' object cannot be interpreted as an integer",
		origin:  "Origin: <DIR>/playbook.yml:7:14"},
	{name: "missing-include-tasks", rc: 2, stream: "stderr",
		message: "[ERROR]: Could not find or access '<DIR>/nosuchfile.yml' on the Ansible Controller: Unable to retrieve file contents."},
	{name: "missing-import-tasks", rc: 1, stream: "stderr",
		message: "[ERROR]: Unable to retrieve file contents."},
	{name: "missing-role", rc: 1, stream: "stderr",
		message: "[ERROR]: the role 'nosuchrole' was not found in <DIR>/roles:<HOME>/.ansible/roles:/usr/share/ansible/roles:/etc/ansible/roles:<DIR>",
		origin:  "Origin: <DIR>/playbook.yml:5:7"},
	{name: "missing-include-role", rc: 2, stream: "stderr",
		message: "[ERROR]: the role 'nosuchrole' was not found in <DIR>/roles:<HOME>/.ansible/roles:/usr/share/ansible/roles:/etc/ansible/roles:<DIR>",
		origin:  "Origin: <DIR>/playbook.yml:7:15"},
}

func readExpected(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return string(b)
}

// TestErrorPaths checks each error's message, position and exit code,
// and that the whole output matches what ansible-playbook printed.
func TestErrorPaths(t *testing.T) {
	for _, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, err := filepath.Abs(filepath.Join("testdata", "errors", c.name))
			require.NoError(t, err)
			home := t.TempDir()
			res := runCLIProcess(t, dir, home, "-i", "localhost,", "playbook.yml")
			norm := func(s string) string {
				return strings.ReplaceAll(strings.ReplaceAll(s, dir, "<DIR>"), home, "<HOME>")
			}
			stdout, stderr := norm(res.stdout), norm(res.stderr)

			require.Equal(t, c.rc, res.rc, "exit code\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
			out := stdout
			if c.stream == "stderr" {
				out = stderr
			}
			lines := strings.Split(out, "\n")
			require.Contains(t, lines, c.message, "the error message")
			if c.origin != "" {
				require.Contains(t, lines, c.origin, "the error position")
			}

			wantRC, err := strconv.Atoi(strings.TrimSpace(readExpected(t, dir, "expected.rc")))
			require.NoError(t, err)
			require.Equal(t, wantRC, res.rc, "exit code differs from the oracle's")
			require.Equal(t, readExpected(t, dir, "expected.out"), stdout, "stdout differs from the oracle's")
			require.Equal(t, readExpected(t, dir, "expected.err")+c.extra, stderr, "stderr differs from the oracle's")
		})
	}
}
