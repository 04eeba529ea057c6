package kubelet

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/util/exec"
)

var (
	cluster *kubetest.Cluster
	cs      *kubernetes.Clientset
	kl      *Kubelet
)

func TestMain(m *testing.M) {
	kubetest.Main(m, func(c *kubetest.Cluster) {
		cluster = c
		var err error
		if cs, err = kubernetes.NewForConfig(c.AdminConfig); err != nil {
			panic(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kl"}}, metav1.CreateOptions{}); err != nil {
			panic(err)
		}
		if kl, err = Start(ctx, cs, "standin", c.Dir); err != nil {
			panic(err)
		}
		if err := kl.Adopt(context.Background(), cs); err != nil {
			panic(err)
		}
	})
}

func runPod(t *testing.T, name string, containers ...string) *Pod {
	t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kl"}}
	for _, c := range containers {
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: c, Image: "busybox"})
	}
	p, err := kl.RunPod(context.Background(), cs, pod)
	require.NoError(t, err)
	return p
}

// execIn runs a command through the apiserver with client-go, over
// websocket (translated to SPDY by the apiserver) or SPDY.
func execIn(t *testing.T, websocket bool, pod string, container string, stdin string, cmd ...string) (string, string, error) {
	t.Helper()
	return execWith(t, websocket, false, pod, container, stdin, cmd...)
}

// execWith is execIn, with v4: a websocket of v4.channel.k8s.io, which the
// apiserver passes through to the kubelet.
func execWith(t *testing.T, websocket, v4 bool, pod, container string, stdin string, cmd ...string) (string, string, error) {
	t.Helper()
	opts := &corev1.PodExecOptions{Container: container, Command: cmd, Stdout: true, Stderr: true, Stdin: stdin != ""}
	req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace("kl").Name(pod).SubResource("exec").VersionedParams(opts, scheme.ParameterCodec)
	var ex remotecommand.Executor
	var err error
	if v4 {
		ex, err = remotecommand.NewWebSocketExecutorForProtocols(cluster.AdminConfig, "GET", req.URL().String(), "v4.channel.k8s.io")
	} else if websocket {
		ex, err = remotecommand.NewWebSocketExecutor(cluster.AdminConfig, "GET", req.URL().String())
	} else {
		ex, err = remotecommand.NewSPDYExecutor(cluster.AdminConfig, "POST", req.URL())
	}
	require.NoError(t, err)
	var out, errOut bytes.Buffer
	so := remotecommand.StreamOptions{Stdout: &out, Stderr: &errOut}
	if stdin != "" {
		so.Stdin = strings.NewReader(stdin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = ex.StreamWithContext(ctx, so)
	return out.String(), errOut.String(), err
}

func TestExecThroughTheAPIServer(t *testing.T) {
	p := runPod(t, "exec", "main")
	require.NoError(t, os.WriteFile(filepath.Join(p.Root("main"), "hello.txt"), []byte("hi there\n"), 0o644))
	for _, ws := range []bool{true, false} {
		out, _, err := execIn(t, ws, "exec", "main", "", "cat", "/hello.txt")
		require.NoError(t, err)
		require.Equal(t, "hi there\n", out)

		_, errOut, err := execIn(t, ws, "exec", "main", "", "cat", "/nothere")
		var ce exec.CodeExitError
		require.ErrorAs(t, err, &ce)
		require.Equal(t, 1, ce.Code)
		require.Equal(t, "cat: /nothere: No such file or directory\n", errOut)

		out, _, err = execIn(t, ws, "exec", "main", "", "sh", "-c", "echo out; echo err >&2; exit 7")
		require.ErrorAs(t, err, &ce)
		require.Equal(t, 7, ce.Code)
		require.Equal(t, "out\n", out)

		// stdin reaches the command and its end is seen.
		out, _, err = execIn(t, ws, "exec", "main", "line1\nline2\n", "wc", "-l")
		require.NoError(t, err)
		require.Equal(t, "2", strings.TrimSpace(out))
	}
	// A path cannot leave the container's root.
	out, _, err := execIn(t, false, "exec", "main", "", "cat", "/../../../../hello.txt")
	require.NoError(t, err)
	require.Equal(t, "hi there\n", out)
}

func TestLogsThroughTheAPIServer(t *testing.T) {
	p := runPod(t, "logs", "a", "b")
	old := time.Now().Add(-2 * time.Hour)
	p.SetLogs("a", false, LogLine{old, "one"}, LogLine{old, "two"}, LogLine{time.Now(), "three"})
	p.SetLogs("a", true, LogLine{old, "before restart"})
	get := func(o corev1.PodLogOptions) (string, error) {
		// Raw keeps the apiserver's Status body of an error.
		b, err := cs.CoreV1().Pods("kl").GetLogs("logs", &o).Do(context.Background()).Raw()
		if err != nil {
			return "", fmt.Errorf("%s", b)
		}
		return string(b), nil
	}
	out, err := get(corev1.PodLogOptions{Container: "a"})
	require.NoError(t, err)
	require.Equal(t, "one\ntwo\nthree\n", out)
	tail := int64(2)
	out, err = get(corev1.PodLogOptions{Container: "a", TailLines: &tail})
	require.NoError(t, err)
	require.Equal(t, "two\nthree\n", out)
	since := int64(3600)
	out, err = get(corev1.PodLogOptions{Container: "a", SinceSeconds: &since})
	require.NoError(t, err)
	require.Equal(t, "three\n", out)
	out, err = get(corev1.PodLogOptions{Container: "a", Previous: true})
	require.NoError(t, err)
	require.Equal(t, "before restart\n", out)
	limit := int64(5)
	out, err = get(corev1.PodLogOptions{Container: "a", LimitBytes: &limit})
	require.NoError(t, err)
	require.Equal(t, "one\nt", out)
	out, err = get(corev1.PodLogOptions{Container: "a", Timestamps: true, TailLines: &tail})
	require.NoError(t, err)
	require.Regexp(t, `^\d{4}-\d\d-\d\dT[0-9:.]+Z two\n`, out)

	_, err = get(corev1.PodLogOptions{Container: "b", Previous: true})
	require.ErrorContains(t, err, `"message":"previous terminated container \"b\" in pod \"logs\" not found","reason":"BadRequest"`)
	// Two containers: the apiserver wants one named.
	_, err = get(corev1.PodLogOptions{})
	require.ErrorContains(t, err, "a container name must be specified")
}

func TestExecWebsocketV4PassedThrough(t *testing.T) {
	p := runPod(t, "ws4", "main")
	require.NoError(t, os.WriteFile(filepath.Join(p.Root("main"), "f"), []byte("v4\n"), 0o644))
	out, _, err := execWith(t, true, true, "ws4", "main", "", "cat", "/f")
	require.NoError(t, err)
	require.Equal(t, "v4\n", out)
	_, errOut, err := execWith(t, true, true, "ws4", "main", "", "cat", "/nothere")
	var ce exec.CodeExitError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, 1, ce.Code)
	require.Equal(t, "cat: /nothere: No such file or directory\n", errOut)
}

// TestAdoptsPodsOfItsNode: a pod created by anyone on the stand-in's Node
// is served at once and becomes Running with ready containers.
func TestAdoptsPodsOfItsNode(t *testing.T) {
	ctx := context.Background()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "adopted", Namespace: "kl", Annotations: map[string]string{LogAnnotationPrefix + "main": "first\nsecond\n"}},
		Spec:       corev1.PodSpec{NodeName: "standin", Containers: []corev1.Container{{Name: "main", Image: "busybox"}}},
	}
	_, err := cs.CoreV1().Pods("kl").Create(ctx, pod, metav1.CreateOptions{})
	require.NoError(t, err)
	out, _, err := execIn(t, false, "adopted", "main", "", "sh", "-c", "echo adopted")
	require.NoError(t, err)
	require.Equal(t, "adopted\n", out)
	b, err := cs.CoreV1().Pods("kl").GetLogs("adopted", &corev1.PodLogOptions{}).Do(ctx).Raw()
	require.NoError(t, err)
	require.Equal(t, "first\nsecond\n", string(b))
	require.Eventually(t, func() bool {
		got, err := cs.CoreV1().Pods("kl").Get(ctx, "adopted", metav1.GetOptions{})
		return err == nil && got.Status.Phase == corev1.PodRunning && len(got.Status.ContainerStatuses) == 1 && got.Status.ContainerStatuses[0].Ready
	}, 30*time.Second, 50*time.Millisecond)
}

// SetExec answers the execs of every pod without a handler of its own,
// pods adopted later included; a pod's OnExec still comes first, and nil
// restores the stand-in's own commands.
func TestSetExecDefaultHandler(t *testing.T) {
	own := runPod(t, "setexec-own", "main")
	own.OnExec(func(e *Exec) (int, bool) {
		_, _ = io.WriteString(e.Stdout, "own\n")
		return 0, true
	})
	kl.SetExec(func(e *Exec) (int, bool) {
		_, _ = io.WriteString(e.Stdout, "default: "+strings.Join(e.Command, " ")+"\n")
		return 3, true
	})
	t.Cleanup(func() { kl.SetExec(nil) })
	runPod(t, "setexec-later", "main")
	out, _, err := execIn(t, false, "setexec-later", "main", "", "awx-manage", "migrate")
	var ce exec.CodeExitError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, 3, ce.Code)
	require.Equal(t, "default: awx-manage migrate\n", out)
	out, _, err = execIn(t, false, "setexec-own", "main", "", "awx-manage", "migrate")
	require.NoError(t, err)
	require.Equal(t, "own\n", out)

	kl.SetExec(nil)
	_, _, err = execIn(t, false, "setexec-later", "main", "", "test", "-d", "/")
	require.NoError(t, err)
}

// TestRunCommands: with SetRunCommands, a container's command runs, its
// output is the container's log, and its end the pod's: Succeeded when
// every command exits 0, Failed (with the exit code) otherwise.
func TestRunCommands(t *testing.T) {
	kl.SetRunCommands()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := func(name string, containers ...corev1.Container) {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kl"},
			Spec: corev1.PodSpec{Containers: containers, RestartPolicy: corev1.RestartPolicyNever}}
		_, err := kl.RunPod(ctx, cs, pod)
		require.NoError(t, err)
	}
	ended := func(name string) *corev1.Pod {
		var got *corev1.Pod
		require.Eventually(t, func() bool {
			p, err := cs.CoreV1().Pods("kl").Get(ctx, name, metav1.GetOptions{})
			got = p
			return err == nil && (p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed)
		}, 30*time.Second, 50*time.Millisecond)
		return got
	}
	start("counts",
		corev1.Container{Name: "a", Image: "busybox", Command: []string{"sh"}, Args: []string{"-c", "for i in $(seq 0 2); do echo $i; done"}},
		corev1.Container{Name: "b", Image: "busybox", Command: []string{"echo", "7"}})
	p := ended("counts")
	require.Equal(t, corev1.PodSucceeded, p.Status.Phase)
	for _, st := range p.Status.ContainerStatuses {
		require.NotNil(t, st.State.Terminated, st.Name)
		require.Equal(t, int32(0), st.State.Terminated.ExitCode)
		require.Equal(t, "Completed", st.State.Terminated.Reason)
	}
	logs := func(pod, container string) string {
		b, err := cs.CoreV1().Pods("kl").GetLogs(pod, &corev1.PodLogOptions{Container: container}).Do(ctx).Raw()
		require.NoError(t, err)
		return string(b)
	}
	require.Equal(t, "0\n1\n2\n", logs("counts", "a"))
	require.Equal(t, "7\n", logs("counts", "b"))

	start("fails", corev1.Container{Name: "a", Image: "busybox", Command: []string{"sh", "-c", "echo bye; exit 3"}})
	p = ended("fails")
	require.Equal(t, corev1.PodFailed, p.Status.Phase)
	require.Equal(t, int32(3), p.Status.ContainerStatuses[0].State.Terminated.ExitCode)
	require.Equal(t, "bye\n", logs("fails", "a"))
}
