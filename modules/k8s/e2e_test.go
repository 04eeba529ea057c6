package k8s

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/cfzt/cfzt-runner/internal/testbin"
	"github.com/stretchr/testify/require"
)

func runnerBinary(t *testing.T) string {
	t.Helper()
	p, err := testbin.Runner(cluster.Dir)
	require.NoError(t, err)
	return p
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
