package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// readmeRunMarker marks a shell block of the README or docs/*.md that
// TestReadmeBlocks runs; it goes on the line before the block's opening
// fence. Mark only blocks that are cheap and need nothing but the binary
// (cfzt-runner on PATH) and sh.
const readmeRunMarker = "<!-- test: run -->"

// readmeBlocks returns the shell blocks of the README marked to be run.
// A marker that is not followed by a fenced block is an error, so that a
// marker cannot silently stop guarding anything.
func readmeBlocks(readme string) ([]string, error) {
	lines := strings.Split(readme, "\n")
	var blocks []string
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != readmeRunMarker {
			continue
		}
		if i+1 >= len(lines) || (lines[i+1] != "```sh" && lines[i+1] != "```bash") {
			return nil, fmt.Errorf("README line %d: %s must be followed by a ```sh block", i+1, readmeRunMarker)
		}
		var body []string
		j := i + 2
		for ; j < len(lines) && lines[j] != "```"; j++ {
			body = append(body, lines[j])
		}
		if j == len(lines) {
			return nil, fmt.Errorf("README line %d: unterminated block", i+2)
		}
		blocks = append(blocks, strings.Join(body, "\n")+"\n")
		i = j
	}
	return blocks, nil
}

// readmeShell runs script with sh -e in dir, with cfzt-runner on PATH (a
// link to this test binary, which runs as the CLI under CFZT_TEST_CLI),
// a fresh HOME and no cluster configuration.
func readmeShell(t *testing.T, dir, script string) cliResult {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	bin := t.TempDir()
	require.NoError(t, os.Symlink(exe, filepath.Join(bin, "cfzt-runner")))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-e", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"CFZT_TEST_CLI=1", "PATH=" + bin + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + t.TempDir(),
		"ANSIBLE_NOCOLOR=1", "LC_ALL=C.UTF-8", "TZ=UTC"}
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	rc := 0
	if ee, ok := err.(*exec.ExitError); ok {
		rc = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return cliResult{stdout: out.String(), stderr: errOut.String(), rc: rc}
}

// TestReadmeBlocks runs every shell block marked "test: run" in the
// README and in docs/*.md, each in a fresh empty directory: each must
// exit 0 (every command, as sh -e) and report no error. The README must
// have at least one.
func TestReadmeBlocks(t *testing.T) {
	docs, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	for _, file := range append([]string{"../../README.md"}, docs...) {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		blocks, err := readmeBlocks(string(data))
		require.NoError(t, err, file)
		if filepath.Base(file) == "README.md" {
			require.NotEmpty(t, blocks, "no README block is marked %s", readmeRunMarker)
		}
		for i, block := range blocks {
			res := readmeShell(t, t.TempDir(), block)
			require.Equal(t, 0, res.rc, "%s, block %d:\n%s\nstdout:\n%s\nstderr:\n%s", file, i+1, block, res.stdout, res.stderr)
			require.NotContains(t, res.stdout+res.stderr, "[ERROR]", "%s, block %d", file, i+1)
		}
	}
}

// TestReadmeMarkersAreChecked checks that a stray marker fails instead of
// guarding nothing.
func TestReadmeMarkersAreChecked(t *testing.T) {
	ok, err := readmeBlocks("x\n" + readmeRunMarker + "\n```sh\necho a\necho b\n```\ny\n")
	require.NoError(t, err)
	require.Equal(t, []string{"echo a\necho b\n"}, ok)
	_, err = readmeBlocks("x\n" + readmeRunMarker + "\nplain text\n")
	require.ErrorContains(t, err, "README line 2: ")
	_, err = readmeBlocks(readmeRunMarker + "\n```sh\necho a\n")
	require.ErrorContains(t, err, "unterminated")
}

// TestReadmeRoleCommand runs the README's one-cycle command from the
// checkout's root, as a reader would. Without a cluster the cycle fails
// at its first Kubernetes call (exit status 2), but the point is that
// the kube_worker role is found and starts.
func TestReadmeRoleCommand(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	m := regexp.MustCompile("`([^`]*cfzt-runner ansible/playbooks/reconcile\\.yml -vv)`").FindStringSubmatch(string(data))
	require.NotNil(t, m, "the README's one-cycle command is gone")
	res := readmeShell(t, "../..", m[1])
	out := res.stdout + res.stderr
	require.NotContains(t, out, "was not found")
	require.Contains(t, out, "TASK [kube_worker : ", out)
	require.Equal(t, 2, res.rc, out)
	require.Contains(t, out, "Could not create API client", "it stops at the first Kubernetes call")
}
