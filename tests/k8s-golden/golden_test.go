// Package golden replays the playbooks of this directory with cfzt-runner
// against a fresh kube-apiserver and compares their normalized output with
// the recorded one (see README.md and hack/record-k8s-goldens.sh).
package golden

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/cfzt/cfzt-runner/internal/kubetest/kubelet"
	"github.com/cfzt/cfzt-runner/internal/testbin"
	"github.com/cfzt/cfzt-runner/tests/k8s-golden/normalize"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the expected output of the playbooks recorded from cfzt-runner")

var cluster *kubetest.Cluster

func TestMain(m *testing.M) {
	kubetest.Main(m, func(c *kubetest.Cluster) { cluster = c })
}

var (
	standinOnce sync.Once
	standinErr  error
)

// standin runs the kubelet stand-in as Node "standin"'s kubelet, for the
// playbooks marked "# kubelet: standin" (hack/record-k8s-goldens.sh gives
// kubeenv -kubelet standin for them), from then on.
func standin(t *testing.T) {
	standinOnce.Do(func() { _, standinErr = kubelet.ForCluster(cluster, "standin") })
	require.NoError(t, standinErr)
}

// runner returns $CFZT_RUNNER or a cfzt-runner built from this tree.
func runner(t *testing.T) string {
	t.Helper()
	p, err := testbin.Runner(cluster.Dir)
	require.NoError(t, err)
	return p
}

func TestGolden(t *testing.T) {
	dir, err := filepath.Abs(".")
	require.NoError(t, err)
	books, err := filepath.Glob("*.yml")
	require.NoError(t, err)
	require.NotEmpty(t, books)
	for _, book := range books {
		name := strings.TrimSuffix(book, ".yml")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(book)
			require.NoError(t, err)
			fromRunner := bytes.HasPrefix(src, []byte("# golden: cfzt-runner"))
			if bytes.Contains(src, []byte("\n# kubelet: standin\n")) {
				standin(t)
			}

			cmd := exec.Command(runner(t), book)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "ANSIBLE_NOCOLOR=1", "KUBECONFIG=/nonexistent",
				"K8S_AUTH_HOST="+cluster.Host, "K8S_AUTH_API_KEY="+cluster.AdminToken,
				"K8S_AUTH_SSL_CA_CERT="+cluster.CAFile, "K8S_AUTH_VERIFY_SSL=true")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			rc := 0
			if err := cmd.Run(); err != nil {
				ee, ok := err.(*exec.ExitError)
				require.True(t, ok, "running %s: %v", book, err)
				rc = ee.ExitCode()
			}
			require.NotContains(t, out.String(), cluster.AdminToken, "the bearer token must never be printed")
			got := normalize.Output(out.String(), dir)

			stdoutFile := filepath.Join("expected", name+".stdout")
			rcFile := filepath.Join("expected", name+".rc")
			if *update && fromRunner {
				require.NoError(t, os.WriteFile(stdoutFile, []byte(got), 0o644))
				require.NoError(t, os.WriteFile(rcFile, []byte(strconv.Itoa(rc)+"\n"), 0o644))
				return
			}
			want, err := os.ReadFile(stdoutFile)
			require.NoError(t, err, "record it with hack/record-k8s-goldens.sh %s", book)
			wantRC, err := os.ReadFile(rcFile)
			require.NoError(t, err)
			if d := lineDiff(string(want), got); d != "" {
				t.Errorf("%s: output differs from %s (- expected, + cfzt-runner):\n%s", book, stdoutFile, d)
			}
			require.Equal(t, strings.TrimSpace(string(wantRC)), strconv.Itoa(rc), "exit status")
		})
	}
}

// lineDiff lists the differing lines of two texts with a little context,
// or "" when they are equal.
func lineDiff(want, got string) string {
	if want == got {
		return ""
	}
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	// Longest common subsequence, fine for files of a few hundred lines.
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var lines []string
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			lines = append(lines, "  "+a[i])
			i++
			j++
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			lines = append(lines, "+ "+b[j])
			j++
		default:
			lines = append(lines, "- "+a[i])
			i++
		}
	}
	// Keep three lines of context around changes.
	var out []string
	for k, l := range lines {
		near := false
		for d := -3; d <= 3; d++ {
			if k+d >= 0 && k+d < len(lines) && !strings.HasPrefix(lines[k+d], "  ") {
				near = true
			}
		}
		if near {
			out = append(out, l)
		} else if len(out) > 0 && out[len(out)-1] != "  ..." {
			out = append(out, "  ...")
		}
	}
	return strings.Join(out, "\n")
}
