package k8s

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/cfzt/cfzt-runner/internal/testbin"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// The benchmarks run the playbooks of bench/scenarios/k8s with the
// cfzt-runner binary ($CFZT_RUNNER, else built from this tree). With
// CFZT_BENCH_ORACLE set to an ansible-playbook (see hack/install-oracle.sh)
// each iteration also runs it on the same apiserver and reports the ratio
// of its time to cfzt-runner's as "oracle/cfzt".
//
//	go test -run '^$' -bench . -benchtime 3x ./modules/k8s/

const (
	benchNamespace  = "bench-k8s"
	benchConfigMaps = 1000
	benchPatches    = 200
)

var benchSetup sync.Once

// setupConfigMaps creates the ConfigMaps of setup-configmaps.yml directly
// (quicker than the playbook) so that both runtimes find them.
func setupConfigMaps(b *testing.B) {
	benchSetup.Do(func() {
		cs, err := kubernetes.NewForConfig(cluster.AdminConfig)
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchNamespace}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < benchConfigMaps; i++ {
			cm := &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i), Namespace: benchNamespace,
					Labels: map[string]string{"bench": "cfzt", "shard": fmt.Sprint(i % 10)}},
				Data: map[string]string{"index": fmt.Sprint(i), "payload": string(bytes.Repeat([]byte("x"), 64))},
			}
			if _, err := cs.CoreV1().ConfigMaps(benchNamespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func scenario(b *testing.B, name string) string {
	root, err := kubetest.RepoRoot()
	if err != nil {
		b.Fatal(err)
	}
	return filepath.Join(root, "bench", "scenarios", "k8s", name)
}

// timeRun runs one playbook and returns its wall time.
func timeRun(b *testing.B, bin string, args ...string) time.Duration {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "ANSIBLE_NOCOLOR=1", "KUBECONFIG=/nonexistent")
	for k, v := range adminEnv() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%s %v: %v\n%s", bin, args, err, out)
	}
	return time.Since(start)
}

func benchPlaybook(b *testing.B, book string, args func(i int) []string) {
	bin, err := testbin.Runner(cluster.Dir)
	if err != nil {
		b.Fatal(err)
	}
	setupConfigMaps(b)
	oracle := os.Getenv("CFZT_BENCH_ORACLE")
	var ours, theirs time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if oracle != "" {
			b.StopTimer()
			theirs += timeRun(b, oracle, append(args(2*i), scenario(b, book))...)
			b.StartTimer()
		}
		ours += timeRun(b, bin, append(args(2*i+1), scenario(b, book))...)
	}
	if oracle != "" && ours > 0 {
		b.ReportMetric(float64(theirs)/float64(ours), "oracle/cfzt")
		b.ReportMetric(theirs.Seconds()/float64(b.N), "oracle-s/op")
	}
}

// BenchmarkK8sInfo1000ConfigMaps: k8s_info over 1,000 ConfigMaps (plus a
// label-filtered and a named read) in one playbook run.
func BenchmarkK8sInfo1000ConfigMaps(b *testing.B) {
	benchPlaybook(b, "info-configmaps.yml", func(int) []string {
		return []string{"-e", fmt.Sprintf("bench_namespace=%s bench_count=%d", benchNamespace, benchConfigMaps)}
	})
}

// BenchmarkK8sPatched200: 200 sequential k8s state=patched calls, each
// changing a ConfigMap, in one playbook run.
func BenchmarkK8sPatched200(b *testing.B) {
	benchPlaybook(b, "patch-configmaps.yml", func(i int) []string {
		return []string{"-e", fmt.Sprintf("bench_namespace=%s bench_patches=%d run_id=%d-%d", benchNamespace, benchPatches, time.Now().UnixNano(), i)}
	})
}

// BenchmarkClientsForCached is the cost of finding a run's cached clients,
// which every k8s task pays: the key includes a stat of the kubeconfig
// files, so that a changed kubeconfig is noticed.
func BenchmarkClientsForCached(b *testing.B) {
	dir := b.TempDir()
	kc := filepath.Join(dir, "config")
	doc := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: %q, certificate-authority: %q}}]\nusers: [{name: u, user: {token: %q}}]\ncontexts: [{name: t, context: {cluster: c, user: u}}]\ncurrent-context: t\n", cluster.Host, cluster.CAFile, cluster.AdminToken)
	if err := os.WriteFile(kc, []byte(doc), 0o600); err != nil {
		b.Fatal(err)
	}
	shared := module.NewShared()
	getenv := func(k string) (string, bool) {
		if k == "KUBECONFIG" {
			return kc, true
		}
		return "", false
	}
	args := value.DictOf("kind", "ConfigMap", "namespace", "default")
	if _, err := ClientsFor(shared, getenv, args); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ClientsFor(shared, getenv, args); err != nil {
			b.Fatal(err)
		}
	}
}
