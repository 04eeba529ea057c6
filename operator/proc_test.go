package operator

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/cfzt/cfzt-runner/internal/testbin"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

var (
	cluster *kubetest.Cluster
	kube    *kubernetes.Clientset
	// runnerBin is cfzt-runner built from this checkout.
	runnerBin string
)

func TestMain(m *testing.M) {
	kubetest.Main(m, func(c *kubetest.Cluster) {
		cluster = c
		var err error
		if kube, err = kubernetes.NewForConfig(c.AdminConfig); err != nil {
			panic(err)
		}
		if runnerBin, err = testbin.Runner(c.Dir); err != nil {
			panic(err)
		}
	})
}

type (
	event = testbin.Event
	proc  = testbin.Proc
)

// eventTime is an event's time field.
func eventTime(t *testing.T, e event) time.Time {
	ts, err := time.Parse(time.RFC3339Nano, e.Str("time"))
	require.NoError(t, err)
	return ts
}

// hermeticEnv is the test process's environment without the variables
// that change cfzt-runner's behaviour.
func hermeticEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "POLL_INTERVAL_SECONDS", k == "REPLICAS", k == "ROLE", k == "LOG_LEVEL", k == "KUBECONFIG",
			k == "WATCH_NAMESPACES", k == "OPERATOR_NAMESPACE", k == "POD_NAME",
			strings.HasPrefix(k, "K8S_AUTH_"), strings.HasPrefix(k, "ANSIBLE_"):
			continue
		}
		out = append(out, kv)
	}
	return out
}

// startRunner runs cfzt-runner --log-format json in dir with env added.
func startRunner(t *testing.T, name, dir string, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(runnerBin, append([]string{"--log-format", "json"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(hermeticEnv(), "K8S_AUTH_KUBECONFIG="+cluster.AdminKubeconfig), env...)
	return testbin.StartJSON(t, name, cmd)
}

func isEvent(name string) func(event) bool {
	return func(ev event) bool { return ev.Str("event") == name }
}

func cycleEnd(result string) func(event) bool {
	return func(ev event) bool { return ev.Str("event") == "cycle_end" && ev.Str("result") == result }
}

// writeFiles writes files (path relative to dir: content), atomically.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		tmp := p + ".tmp"
		require.NoError(t, os.WriteFile(tmp, []byte(text), 0o644))
		require.NoError(t, os.Rename(tmp, p))
	}
}

func createNamespace(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		_, err := kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			require.NoError(t, err)
		}
	}
}

// configMapData returns a ConfigMap's data, or nil when it does not exist.
func configMapData(t *testing.T, ns, name string) map[string]string {
	t.Helper()
	cm, err := kube.CoreV1().ConfigMaps(ns).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	require.NoError(t, err)
	if cm.Data == nil {
		return map[string]string{}
	}
	return cm.Data
}

// waitConfigMap polls until cond holds for the ConfigMap's data and
// returns when it first did.
func waitConfigMap(t *testing.T, ns, name string, timeout time.Duration, cond func(map[string]string) bool) time.Time {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if d := configMapData(t, ns, name); d != nil && cond(d) {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("ConfigMap %s/%s: condition not met within %s (data %v)", ns, name, timeout, configMapData(t, ns, name))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
