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

// Every shell block (```sh or ```bash) of the README and docs/*.md is
// marked, on the line before its opening fence, with one of:
//
//	<!-- test: run -->            TestReadmeBlocks runs it in a fresh empty
//	                              directory, with cfzt-runner on PATH
//	<!-- test: skip: REASON -->   too expensive or needs what a test does
//	                              not have (a cluster, Docker, minutes of
//	                              build); REASON says which, and where the
//	                              same thing is tested instead
//
// An unmarked shell block fails the test, so that no command can be added
// to the docs without being run or explicitly skipped.
const (
	readmeRunMarker  = "<!-- test: run -->"
	readmeSkipPrefix = "<!-- test: skip: "
)

// docBlock is one shell block of a Markdown file.
type docBlock struct {
	line int // of the opening fence, 1-based
	run  bool
	// skip is the reason a block is not run.
	skip string
	body string
}

// docBlocks returns the shell blocks of a Markdown file with their
// markers. An unmarked shell block, a marker not followed by a shell
// block, a skip without a reason and an unterminated block are errors.
func docBlocks(md string) ([]docBlock, error) {
	lines := strings.Split(md, "\n")
	var blocks []docBlock
	isShell := func(l string) bool { return l == "```sh" || l == "```bash" }
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		marked := l == readmeRunMarker || strings.HasPrefix(l, readmeSkipPrefix)
		if marked && (i+1 >= len(lines) || !isShell(lines[i+1])) {
			return nil, fmt.Errorf("line %d: %s must be followed by a ```sh block", i+1, l)
		}
		if !isShell(lines[i]) {
			if strings.HasPrefix(lines[i], "```") { // another block: skip its body
				for i++; i < len(lines) && lines[i] != "```"; i++ {
				}
			}
			continue
		}
		b := docBlock{line: i + 1}
		prev := ""
		if i > 0 {
			prev = strings.TrimSpace(lines[i-1])
		}
		switch {
		case prev == readmeRunMarker:
			b.run = true
		case strings.HasPrefix(prev, readmeSkipPrefix) && strings.HasSuffix(prev, "-->"):
			b.skip = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(prev, readmeSkipPrefix), "-->"))
			if b.skip == "" {
				return nil, fmt.Errorf("line %d: a skipped block needs a reason", i)
			}
		default:
			return nil, fmt.Errorf("line %d: shell block without %s or %sREASON -->", i+1, readmeRunMarker, readmeSkipPrefix)
		}
		var body []string
		j := i + 1
		for ; j < len(lines) && lines[j] != "```"; j++ {
			body = append(body, lines[j])
		}
		if j == len(lines) {
			return nil, fmt.Errorf("line %d: unterminated block", i+1)
		}
		b.body = strings.Join(body, "\n") + "\n"
		blocks = append(blocks, b)
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

// TestReadmeBlocks goes through every shell block of the README and
// docs/*.md: a block marked "test: run" runs in a fresh empty directory
// and must exit 0 (every command, as sh -e) and report no error; a block
// marked "test: skip: REASON" is reported as a skipped subtest with its
// reason, and must at least be valid sh (sh -n). An unmarked block fails.
func TestReadmeBlocks(t *testing.T) {
	docs, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	runs := 0
	for _, file := range append([]string{"../../README.md"}, docs...) {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		blocks, err := docBlocks(string(data))
		require.NoError(t, err, file)
		name := strings.TrimPrefix(file, "../../")
		for _, b := range blocks {
			t.Run(fmt.Sprintf("%s:%d", name, b.line), func(t *testing.T) {
				if !b.run {
					syntax := exec.Command("sh", "-n", "-c", b.body)
					out, err := syntax.CombinedOutput()
					require.NoError(t, err, "%s line %d is not valid sh: %s", name, b.line, out)
					t.Skip(b.skip)
				}
				res := readmeShell(t, t.TempDir(), b.body)
				require.Equal(t, 0, res.rc, "%s, line %d:\n%s\nstdout:\n%s\nstderr:\n%s", name, b.line, b.body, res.stdout, res.stderr)
				require.NotContains(t, res.stdout+res.stderr, "[ERROR]", "%s, line %d", name, b.line)
			})
			if b.run {
				runs++
			}
		}
	}
	require.GreaterOrEqual(t, runs, 3, "the README and docs keep runnable examples")
}

// TestReadmeMarkersAreChecked checks that a stray marker, an unmarked
// shell block and a skip without a reason fail instead of guarding
// nothing, and that other blocks (yaml, text) need no marker.
func TestReadmeMarkersAreChecked(t *testing.T) {
	ok, err := docBlocks("x\n" + readmeRunMarker + "\n```sh\necho a\necho b\n```\ny\n```yaml\na: 1\n```\n" +
		readmeSkipPrefix + "needs a cluster -->\n```bash\nkubectl get pods\n```\n")
	require.NoError(t, err)
	require.Equal(t, []docBlock{{line: 3, run: true, body: "echo a\necho b\n"}, {line: 12, skip: "needs a cluster", body: "kubectl get pods\n"}}, ok)
	_, err = docBlocks("x\n" + readmeRunMarker + "\nplain text\n")
	require.ErrorContains(t, err, "line 2: ")
	_, err = docBlocks(readmeRunMarker + "\n```sh\necho a\n")
	require.ErrorContains(t, err, "unterminated")
	_, err = docBlocks("text\n```sh\nrm -rf /\n```\n")
	require.ErrorContains(t, err, "line 2: shell block without")
	_, err = docBlocks(readmeSkipPrefix + " -->\n```sh\nmake\n```\n")
	require.ErrorContains(t, err, "needs a reason")
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
