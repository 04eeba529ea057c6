package k8s

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/internal/kubetest/kubelet"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

var (
	standinOnce sync.Once
	standinKl   *kubelet.Kubelet
	standinCS   *kubernetes.Clientset
	standinErr  error
)

// standin is the kubelet stand-in of this package's tests (one Node,
// "standin"), started on first use.
func standin(t *testing.T) *kubelet.Kubelet {
	t.Helper()
	standinOnce.Do(func() {
		standinCS, standinErr = kubernetes.NewForConfig(cluster.AdminConfig)
		if standinErr == nil {
			standinKl, standinErr = kubelet.Start(context.Background(), standinCS, "standin", cluster.Dir)
		}
	})
	require.NoError(t, standinErr)
	return standinKl
}

// runningPod creates a Running pod with the named containers on the
// stand-in's Node.
func runningPod(t *testing.T, ns, name string, containers ...string) *kubelet.Pod {
	t.Helper()
	k := standin(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": name}}}
	for _, c := range containers {
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: c, Image: "busybox"})
	}
	p, err := k.RunPod(context.Background(), standinCS, pod)
	require.NoError(t, err)
	return p
}

func TestExecRunsTheCommand(t *testing.T) {
	ns := namespace(t, "exec-run")
	p := runningPod(t, ns, "box", "main", "side")
	require.NoError(t, os.WriteFile(filepath.Join(p.Root("main"), "motd"), []byte("hello\nworld\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(p.Root("side"), "motd"), []byte("side car\n"), 0o644))

	// No container: the first of the pod's spec.
	res := ok(t, call{mod: "k8s_exec", args: "{namespace: " + ns + ", pod: box, command: cat /motd}"})
	require.True(t, changed(res))
	require.Equal(t, "hello\nworld\n", get(t, res, "stdout"))
	require.Equal(t, []any{"hello", "world"}, get(t, res, "stdout_lines"))
	require.Equal(t, "", get(t, res, "stderr"))
	require.Equal(t, []any{}, get(t, res, "stderr_lines"))
	require.Equal(t, 0, get(t, res, "rc"))
	require.Equal(t, 0, get(t, res, "return_code"))
	var keys []string
	res.Each(func(k string, _ any) bool { keys = append(keys, k); return true })
	require.Equal(t, []string{"changed", "stdout", "stderr", "rc", "return_code", "stdout_lines", "stderr_lines"}, keys)

	res = ok(t, call{mod: "k8s_exec", args: "{namespace: " + ns + ", pod: box, container: side, command: cat /motd}"})
	require.Equal(t, "side car\n", get(t, res, "stdout"))

	// shlex.split: quotes group words.
	res = ok(t, call{mod: "k8s_exec", args: `{namespace: ` + ns + `, pod: box, command: "sh -c 'echo  out; echo err >&2'"}`})
	require.Equal(t, "out\n", get(t, res, "stdout"))
	require.Equal(t, "err\n", get(t, res, "stderr"))
	require.Equal(t, []any{"err"}, get(t, res, "stderr_lines"))

	// Check mode runs the command too, as kubernetes.core does.
	res = ok(t, call{mod: "k8s_exec", check: true, args: "{namespace: " + ns + ", pod: box, command: cat /motd}"})
	require.True(t, changed(res))
	require.Equal(t, "hello\nworld\n", get(t, res, "stdout"))
	noSecrets(t, res)
}

func TestExecNonZeroExit(t *testing.T) {
	ns := namespace(t, "exec-rc")
	runningPod(t, ns, "box", "main")
	// The module returns rc; ansible-core fails a result with rc != 0
	// (the executor sets failed), so the result itself has no failed key.
	res := run(t, call{mod: "k8s_exec", args: `{namespace: ` + ns + `, pod: box, command: "sh -c 'echo partial; exit 3'"}`})
	require.False(t, res.Has("failed"))
	require.Equal(t, 3, get(t, res, "rc"))
	require.Equal(t, 3, get(t, res, "return_code"))
	require.Equal(t, "partial\n", get(t, res, "stdout"))
	require.True(t, changed(res))

	res = run(t, call{mod: "k8s_exec", args: `{namespace: ` + ns + `, pod: box, command: cat /nothere}`})
	require.Equal(t, 1, get(t, res, "rc"))
	require.Equal(t, "cat: /nothere: No such file or directory\n", get(t, res, "stderr"))
}

func TestExecFailures(t *testing.T) {
	ns := namespace(t, "exec-fail")
	runningPod(t, ns, "box", "main")
	_, msg := fails(t, call{mod: "k8s_exec", args: "{namespace: " + ns + ", pod: box}"})
	require.Equal(t, "missing required arguments: command", msg)
	// The apiserver refuses the handshake: the Python client's words.
	_, msg = fails(t, call{mod: "k8s_exec", args: "{namespace: " + ns + ", pod: nonesuch, command: ls}"})
	require.Equal(t, "Failed to execute on pod nonesuch due to : (0)\nReason: Handshake status 404 Not Found\n", msg)
	_, msg = fails(t, call{mod: "k8s_exec", args: "{namespace: " + ns + ", pod: box, container: nope, command: ls}"})
	require.Equal(t, "Failed to execute on pod box due to : (0)\nReason: Handshake status 400 Bad Request\n", msg)
	res := run(t, call{mod: "k8s_exec", args: `{namespace: ` + ns + `, pod: box, command: "echo 'unclosed"}`})
	require.Equal(t, true, get(t, res, "failed"))
	require.Contains(t, value.Str(get(t, res, "exception")), "No closing quotation")
	// The operator's token has no pods/exec right.
	_, msg = fails(t, call{mod: "k8s_exec", env: env(cluster.OperatorToken), args: "{namespace: " + ns + ", pod: box, command: ls}"})
	require.Equal(t, "Failed to execute on pod box due to : (0)\nReason: Handshake status 403 Forbidden\n", msg)
}

// TestExecHostileKubelet is an attack: what answers for the pod's
// kubelet sends without end, or breaks the protocol. The task must fail
// with a bounded result, never hang or crash.
func TestExecHostileKubelet(t *testing.T) {
	ns := namespace(t, "exec-attack")
	p := runningPod(t, ns, "evil", "main")
	defer func(n int) { maxStreamBytes = n }(maxStreamBytes)
	maxStreamBytes = 1 << 20

	p.OnExec(func(e *kubelet.Exec) (int, bool) {
		chunk := []byte(strings.Repeat("A", 64<<10))
		for i := 0; i < 1<<14; i++ { // 1 GiB unless the client stops reading
			if _, err := e.Stdout.Write(chunk); err != nil {
				break
			}
		}
		return 0, true
	})
	res, msg := fails(t, call{mod: "k8s_exec", args: "{namespace: " + ns + ", pod: evil, command: flood}"})
	require.Equal(t, fmt.Sprintf("Failed to execute on pod evil due to : the command's stdout is larger than %d bytes, cfzt-runner's limit", 1<<20), msg)
	require.False(t, res.Has("stdout"))

	for _, raw := range []string{"{not json", `{"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"type":"ExitCode","message":"-1"}]}}`, `{"status":"Failure","reason":"NonZeroExitCode"}`} {
		p.OnExec(func(e *kubelet.Exec) (int, bool) {
			fmt.Fprint(e.Stdout, "x")
			e.RawStatus = []byte(raw)
			return 0, true
		})
		_, msg = fails(t, call{mod: "k8s_exec", args: "{namespace: " + ns + ", pod: evil, command: ls}"})
		t.Log(msg)
		// The apiserver translates the websocket to the kubelet's SPDY and
		// reports the broken stream as an internal error.
		require.True(t, strings.HasPrefix(msg, "Failed to execute on pod evil due to : Internal error occurred: error stream protocol error"), msg)
	}

	// A Failure that is not an exit code: its message.
	p.OnExec(func(e *kubelet.Exec) (int, bool) {
		e.RawStatus = []byte(`{"status":"Failure","message":"runtime exploded"}`)
		return 0, true
	})
	_, msg = fails(t, call{mod: "k8s_exec", args: "{namespace: " + ns + ", pod: evil, command: ls}"})
	require.Equal(t, "Failed to execute on pod evil due to : Internal error occurred: runtime exploded", msg)
}

// TestExecNamesCannotEscapeTheirPath is an attack: a pod or namespace
// name that walks to another URL must not exec anywhere else.
func TestExecNamesCannotEscapeTheirPath(t *testing.T) {
	ns := namespace(t, "exec-names")
	p := runningPod(t, ns, "box", "main")
	var ran []string
	p.OnExec(func(e *kubelet.Exec) (int, bool) {
		ran = append(ran, strings.Join(e.Command, " "))
		return 0, false
	})
	for _, args := range []string{
		"{namespace: " + ns + ", pod: '../pods/box', command: echo pwned}",
		"{namespace: " + ns + ", pod: 'x/../box', command: echo pwned}",
		"{namespace: " + ns + ", pod: '..', command: echo pwned}",
		"{namespace: '" + ns + "/pods/box/exec?command=id&x=', pod: box, command: echo pwned}",
		"{namespace: '..', pod: box, command: echo pwned}",
	} {
		_, msg := fails(t, call{mod: "k8s_exec", args: args})
		t.Log(msg)
	}
	require.Empty(t, ran)
}
