package k8s

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/stretchr/testify/require"
)

// EnvRunnerBinary names a prebuilt cfzt-runner for the end-to-end tests;
// without it they build ./cmd/cfzt-runner once.
const EnvRunnerBinary = "CFZT_RUNNER_BIN"

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

func runnerBinary(t *testing.T) string {
	t.Helper()
	p, err := buildRunner()
	require.NoError(t, err)
	return p
}

// buildRunner returns $CFZT_RUNNER_BIN or builds cfzt-runner once.
func buildRunner() (string, error) {
	binOnce.Do(func() {
		if p := os.Getenv(EnvRunnerBinary); p != "" {
			binPath = p
			return
		}
		root, err := kubetest.RepoRoot()
		if err != nil {
			binErr = err
			return
		}
		dir, err := os.MkdirTemp("", "cfzt-runner-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "cfzt-runner")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/cfzt-runner")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("building cfzt-runner: %v: %s", err, out)
		}
	})
	return binPath, binErr
}

// playbook runs a playbook with the runner binary against the test
// cluster, the connection given as K8S_AUTH_* variables.
func playbook(t *testing.T, book string, extra ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(runnerBinary(t), append(extra, book)...)
	cmd.Env = append(os.Environ(), "ANSIBLE_NOCOLOR=1", "KUBECONFIG=/nonexistent")
	for k, v := range adminEnv() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	s := out.String()
	require.NotContains(t, s, cluster.AdminToken)
	return s, code
}

func recap(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "PLAY RECAP")
	require.GreaterOrEqual(t, i, 0, out)
	return strings.Join(strings.Fields(out[i:]), " ")
}

func TestPlaybookOperatorFlow(t *testing.T) {
	out, code := playbook(t, "testdata/e2e-operator-flow.yml")
	require.Equal(t, 0, code, out)
	require.Contains(t, recap(t, out), "localhost : ok=9 changed=5 unreachable=0 failed=0 skipped=0 rescued=0 ignored=1", out)
	require.Contains(t, out, `"reason": "Conflict"`)
}

func TestPlaybookCheckMode(t *testing.T) {
	ok(t, call{mod: "k8s", args: "{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: kept, namespace: default}, data: {a: original}}}"})
	out, code := playbook(t, "testdata/e2e-check-mode.yml", "--check")
	require.Equal(t, 0, code, out)
	require.Contains(t, recap(t, out), "ok=5 changed=2 unreachable=0 failed=0", out)
	require.Nil(t, live(t, cmGVR, "default", "check-only"))
}

func TestPlaybookTemplate(t *testing.T) {
	out, code := playbook(t, "testdata/e2e-template.yml")
	require.Equal(t, 0, code, out)
	require.Contains(t, recap(t, out), "ok=2 changed=1", out)
}
