package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// intervalPlaybook deprecates something at load time (a mapping for
// `action`, with an origin and help) and fails to include a file, which
// ansible-core reports as a controller error on stderr.
const intervalPlaybook = `- hosts: localhost
  gather_facts: false
  tasks:
    - action:
        module: debug
        msg: hello
    - include_tasks: missing.yml
`

// runtimeLogLine matches the operator runtime's own log lines.
var runtimeLogLine = regexp.MustCompile(`(?m)^\[cfzt-runner\] .*\n`)

// TestIntervalTextModeShowsWhatARunShows checks that the operator loop in
// text mode (--interval) shows a deprecation warning with its full text,
// origin and help, and a controller error on stderr, exactly as a
// one-shot run does: the runtime counts task results for its metrics
// without wrapping the display.
func TestIntervalTextModeShowsWhatARunShows(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "playbook.yml"), []byte(intervalPlaybook), 0o644))
	once := runCLIProcess(t, dir, t.TempDir(), "-i", "localhost,", "playbook.yml")
	require.Contains(t, once.stderr, "[DEPRECATION WARNING]: Using a mapping for `action` is deprecated. This feature will be removed from ansible-core version 2.23.\n"+
		"Origin: "+filepath.Join(dir, "playbook.yml")+":5:9\n")
	require.Contains(t, once.stderr, "\nUse a string value for `action`.\n")
	require.Contains(t, once.stderr, "[ERROR]: Could not find or access '"+filepath.Join(dir, "missing.yml")+"' on the Ansible Controller")

	loop := runFirstCycle(t, dir, "--interval", "3600", "-i", "localhost,", "playbook.yml")
	require.Equal(t, once.stdout, loop.stdout, "the loop's stdout is the run's: no [ERROR] on it")
	require.NotContains(t, loop.stdout, "[ERROR]")
	require.Equal(t, once.stderr, runtimeLogLine.ReplaceAllString(loop.stderr, ""),
		"the loop's stderr is the run's, with the runtime's log lines")
}

// runFirstCycle starts the CLI in dir, waits for its first cycle to end,
// then stops it with SIGTERM and returns what it printed.
func runFirstCycle(t *testing.T, dir string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = []string{"CFZT_TEST_CLI=1", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + t.TempDir(),
		"ANSIBLE_NOCOLOR=1", "ANSIBLE_STDOUT_CALLBACK=default", "LC_ALL=C.UTF-8", "TZ=UTC"}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var stderr strings.Builder
	cycleEnded := make(chan struct{})
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		r := bufio.NewReader(pipe)
		for {
			line, err := r.ReadString('\n')
			stderr.WriteString(line)
			if strings.Contains(line, " cycle_end ") {
				close(cycleEnded)
			}
			if err != nil {
				io.Copy(&stderr, r)
				return
			}
		}
	}()
	select {
	case <-cycleEnded:
	case <-ctx.Done():
		<-copied
		t.Fatalf("no cycle ended; stderr:\n%s", stderr.String())
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	<-copied
	err = cmd.Wait()
	require.NoError(t, err, "a stop between cycles is clean")
	return cliResult{stdout: stdout.String(), stderr: stderr.String()}
}
