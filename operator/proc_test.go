package operator

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
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

// event is one line of `--log-format json` output.
type event map[string]any

func (e event) str(k string) string { s, _ := e[k].(string); return s }

func (e event) time(t *testing.T) time.Time {
	ts, err := time.Parse(time.RFC3339Nano, e.str("time"))
	require.NoError(t, err)
	return ts
}

// proc is a cfzt-runner process whose stdout must be JSON lines.
type proc struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	mu     sync.Mutex
	events []event
	bad    []string
	stderr bytes.Buffer
	done   chan struct{}
	code   int
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
	p := &proc{t: t, name: name, done: make(chan struct{})}
	p.cmd = exec.Command(runnerBin, append([]string{"--log-format", "json"}, args...)...)
	p.cmd.Dir = dir
	p.cmd.Env = append(append(hermeticEnv(), "K8S_AUTH_KUBECONFIG="+cluster.AdminKubeconfig), env...)
	p.cmd.Stderr = &lockedWriter{mu: &p.mu, w: &p.stderr}
	out, err := p.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var ev event
			p.mu.Lock()
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				p.bad = append(p.bad, sc.Text())
			} else {
				p.events = append(p.events, ev)
			}
			p.mu.Unlock()
		}
		err := p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		_ = err
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			errText := p.stderrText()
			if len(errText) > 4000 {
				errText = "..." + errText[len(errText)-4000:]
			}
			t.Logf("%s stderr:\n%s", p.name, errText)
			for _, ev := range p.snapshot() {
				b, _ := json.Marshal(ev)
				t.Logf("%s: %s", p.name, b)
			}
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		require.Empty(t, p.bad, "%s: stdout lines that are not JSON", p.name)
	})
	return p
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (p *proc) stderrText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

func (p *proc) snapshot() []event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]event(nil), p.events...)
}

// count counts the events that match.
func (p *proc) count(match func(event) bool) int {
	n := 0
	for _, ev := range p.snapshot() {
		if match(ev) {
			n++
		}
	}
	return n
}

// waitFor returns the first event at index >= from that matches, failing
// the test after timeout or when the process exits first.
func (p *proc) waitFor(from int, timeout time.Duration, what string, match func(event) bool) (event, int) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		evs := p.snapshot()
		for i := from; i < len(evs); i++ {
			if match(evs[i]) {
				return evs[i], i
			}
		}
		select {
		case <-p.done:
			p.t.Fatalf("%s exited (code %d) before %s", p.name, p.code, what)
		default:
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: no %s within %s", p.name, what, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *proc) signal(sig syscall.Signal) { require.NoError(p.t, p.cmd.Process.Signal(sig)) }

// exit waits for the process to end and returns its exit code.
func (p *proc) exit(timeout time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(timeout):
		p.t.Fatalf("%s still running after %s", p.name, timeout)
		return -1
	}
}

func isEvent(name string) func(event) bool {
	return func(ev event) bool { return ev.str("event") == name }
}

func cycleEnd(result string) func(event) bool {
	return func(ev event) bool { return ev.str("event") == "cycle_end" && ev.str("result") == result }
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
