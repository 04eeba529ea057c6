// Package kubelet is a kubelet stand-in for tests: a loopback HTTPS server
// that a Node object points at, so that the real kube-apiserver proxies
// pods/exec and pods/log of that Node's pods to it.
//
// The apiserver finds a pod's kubelet through the pod's spec.nodeName:
// the Node's status.addresses (here one InternalIP, 127.0.0.1) and
// status.daemonEndpoints.kubeletEndpoint.Port (the test server's port). It
// connects without verifying the kubelet's certificate (kubetest starts
// it without --kubelet-certificate-authority).
//
// Exec: kube-apiserver v1.36 reaches the kubelet over SPDY
// (X-Stream-Protocol-Version v5/v4.channel.k8s.io) whatever the client
// speaks: a websocket (v5.channel.k8s.io) client is translated to SPDY
// by the apiserver unless the Node declares the ExtendWebSocketsToKubelet
// feature, which these Nodes do not. The stand-in accepts the upgrade with
// apimachinery's server-side SPDY upgrader, takes the error, stdin,
// stdout and stderr streams the request asks for, runs the command and
// reports its end on the error stream as a metav1.Status (Success, or
// Failure/NonZeroExitCode with an ExitCode cause), as the kubelet does.
//
// Each container has its own directory acting as its root filesystem
// (Pod.Root). The file commands that kubernetes.core's k8s_cp runs
// (test, find, cat, tar -x, and sh -c 'echo DIR/* DIR/.*') are carried out
// by the stand-in on that directory, with every path confined to it;
// any other command runs for real as a process whose working directory
// is the container's root. A test can replace the behaviour of a pod's
// exec (Pod.OnExec) to play a hostile kubelet.
//
// Logs: /containerLogs/{namespace}/{pod}/{container} serves the lines a
// test set with Pod.SetLogs, honouring previous, sinceSeconds, sinceTime,
// tailLines, timestamps and limitBytes as the kubelet does (follow ends
// after the stored lines).
package kubelet

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/remotecommand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/spdy"
	"k8s.io/streaming/pkg/httpstream/wsstream"
)

// Kubelet is a running stand-in for the kubelet of one Node.
type Kubelet struct {
	// NodeName is the Node object that points at this server.
	NodeName string
	// Port is the server's loopback port.
	Port int
	// Dir holds the containers' root directories.
	Dir string

	srv *httptest.Server

	mu   sync.Mutex
	pods map[string]*Pod      // namespace/name
	cs   kubernetes.Interface // set by Adopt
	stop context.CancelFunc   // ends ForCluster's watch
	exec ExecFunc             // SetExec: for pods without their own OnExec
	// prepare fills each new container root (SetRootPreparer).
	prepare func(root, image string)
	// runCtx is set by SetRunCommands; endRun ends the processes at Close.
	runCtx context.Context
	endRun context.CancelFunc
}

// SetExec sets (or, with nil, removes) the exec handler of every pod that
// has none of its own (Pod.OnExec), including pods adopted later.
func (k *Kubelet) SetExec(f ExecFunc) {
	k.mu.Lock()
	k.exec = f
	k.mu.Unlock()
}

// SetRootPreparer sets what fills the root directory of each container
// adopted from now on, before the pod is reported Running (the files an
// image would have).
func (k *Kubelet) SetRootPreparer(f func(root, image string)) {
	k.mu.Lock()
	k.prepare = f
	k.mu.Unlock()
}

// Start starts the server and creates (or updates) the Node nodeName
// whose kubelet it is, through cs (which needs rights on nodes and
// nodes/status). The containers' roots are made in a new directory under
// base (the system's temporary directory when base is ""); a test that
// shares one stand-in between its tests can give the cluster's Dir,
// which kubetest removes.
func Start(ctx context.Context, cs kubernetes.Interface, nodeName, base string) (*Kubelet, error) {
	dir, err := os.MkdirTemp(base, "kubelet-")
	if err != nil {
		return nil, fmt.Errorf("kubelet: %w", err)
	}
	k := &Kubelet{NodeName: nodeName, Dir: dir, pods: map[string]*Pod{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/exec/", k.serveExec)
	mux.HandleFunc("/containerLogs/", k.serveLogs)
	k.srv = httptest.NewUnstartedServer(mux)
	k.srv.TLS = &tls.Config{NextProtos: []string{"http/1.1"}}
	k.srv.StartTLS()
	_, port, _ := net.SplitHostPort(k.srv.Listener.Addr().String())
	k.Port, _ = strconv.Atoi(port)
	if err := k.registerNode(ctx, cs); err != nil {
		k.Close()
		return nil, err
	}
	return k, nil
}

// ForCluster starts a stand-in for a kubetest cluster as its admin, as
// the kubelet of the Node named node, serving every pod scheduled to it
// (Adopt) until Close. Its roots are under the cluster's Dir.
func ForCluster(c *kubetest.Cluster, node string) (*Kubelet, error) {
	cs, err := kubernetes.NewForConfig(c.AdminConfig)
	if err != nil {
		return nil, fmt.Errorf("kubelet: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	k, err := Start(ctx, cs, node, c.Dir)
	if err != nil {
		cancel()
		return nil, err
	}
	k.stop = cancel
	if err := k.Adopt(ctx, cs); err != nil {
		k.Close()
		return nil, err
	}
	return k, nil
}

// Close stops the server and removes Dir.
func (k *Kubelet) Close() {
	if k.stop != nil {
		k.stop()
	}
	k.mu.Lock()
	if k.endRun != nil {
		k.endRun()
	}
	k.mu.Unlock()
	k.srv.Close()
	_ = os.RemoveAll(k.Dir)
}

func (k *Kubelet) registerNode(ctx context.Context, cs kubernetes.Interface) error {
	nodes := cs.CoreV1().Nodes()
	n, err := nodes.Get(ctx, k.NodeName, metav1.GetOptions{})
	if err != nil {
		n, err = nodes.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: k.NodeName}}, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("kubelet: creating node %s: %w", k.NodeName, err)
		}
	}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(k.Port)
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
		LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
	if _, err := nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("kubelet: node %s status: %w", k.NodeName, err)
	}
	return nil
}

// LogAnnotationPrefix followed by a container's name is the annotation
// whose text is that container's log, for pods that a playbook creates
// (Adopt): each line is stamped with the pod's creation time.
const LogAnnotationPrefix = "kubelet-standin.test/log."

// LogLine is one line of a container's log.
type LogLine struct {
	Time time.Time
	Text string // without the newline
}

// Exec is one exec request as the stand-in received it.
type Exec struct {
	Container string
	// Image is the container's image, for handlers that play one.
	Image   string
	Command []string
	// Stdin is nil unless the request has a stdin stream. Stdout and
	// Stderr are io.Discard unless the request asked for them.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Root is the container's root directory.
	Root string

	// RawStatus, when a handler sets it, is written to the error stream
	// as it is instead of the Status of the exit code.
	RawStatus []byte
}

// ExecFunc handles an exec request in place of the stand-in's own
// commands; it returns the exit code, and handled false to let the
// stand-in run the command as usual.
type ExecFunc func(e *Exec) (code int, handled bool)

// Pod is a pod the stand-in serves.
type Pod struct {
	Namespace, Name string

	uid    types.UID
	ready  chan struct{} // closed when adopted
	err    error         // why the adoption failed
	k      *Kubelet
	mu     sync.Mutex
	logs   map[string][]LogLine // container, "prev:"+container
	onExec ExecFunc
	dirs   map[string]string
	images map[string]string // container -> image
}

// RunPod creates pod on this kubelet's Node (spec.nodeName is set), makes
// a root directory for each container and marks the pod Running with
// every container ready, as a kubelet would report it.
func (k *Kubelet) RunPod(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod) (*Pod, error) {
	pod = pod.DeepCopy()
	pod.Spec.NodeName = k.NodeName
	created, err := cs.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("kubelet: creating pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return k.adopt(ctx, cs, created)
}

// adopt serves a pod scheduled to this Node: a root per container, the
// logs of its annotations, and a Running status with ready containers.
func (k *Kubelet) adopt(ctx context.Context, cs kubernetes.Interface, created *corev1.Pod) (*Pod, error) {
	pods := cs.CoreV1().Pods(created.Namespace)
	created = created.DeepCopy()
	p := &Pod{uid: created.UID, Namespace: created.Namespace, Name: created.Name, k: k, logs: map[string][]LogLine{}, dirs: map[string]string{}, images: map[string]string{}}
	// One Pod per pod object, whoever adopts it first (RunPod, the
	// watch or a request): the others get that one.
	k.mu.Lock()
	if old := k.pods[p.Namespace+"/"+p.Name]; old != nil && old.uid == p.uid {
		k.mu.Unlock()
		<-old.ready
		return old, old.err
	}
	p.ready = make(chan struct{})
	k.pods[p.Namespace+"/"+p.Name] = p
	k.mu.Unlock()
	defer func() {
		if p.err != nil { // a later request may adopt it again
			k.mu.Lock()
			delete(k.pods, p.Namespace+"/"+p.Name)
			k.mu.Unlock()
		}
		close(p.ready)
	}()
	now := metav1.Now()
	created.Status.Phase = corev1.PodRunning
	created.Status.HostIP = "127.0.0.1"
	created.Status.PodIP = "127.0.0.1"
	created.Status.StartTime = &now
	created.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
	}
	created.Status.ContainerStatuses = nil
	for i, c := range created.Spec.Containers {
		root := filepath.Join(k.Dir, created.Namespace+"_"+created.Name, strconv.Itoa(i))
		if err := os.MkdirAll(root, 0o755); err != nil {
			p.err = fmt.Errorf("kubelet: %w", err)
			return nil, p.err
		}
		p.dirs[c.Name] = root
		p.images[c.Name] = c.Image
		k.mu.Lock()
		prepare := k.prepare
		k.mu.Unlock()
		if prepare != nil {
			prepare(root, c.Image)
		}
		if text, ok := created.Annotations[LogAnnotationPrefix+c.Name]; ok {
			var lines []LogLine
			for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
				lines = append(lines, LogLine{Time: created.CreationTimestamp.Time, Text: l})
			}
			p.logs[c.Name] = lines
		}
		created.Status.ContainerStatuses = append(created.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: c.Image, Ready: true, Started: ptrTrue(),
			ContainerID: "standin://" + created.Namespace + "." + created.Name + "." + c.Name,
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		})
	}
	if _, err := pods.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		// A stale copy (the watch's, or another adoption's): once more
		// on the current object.
		fresh, gerr := pods.Get(ctx, created.Name, metav1.GetOptions{})
		if gerr == nil && fresh.UID == created.UID {
			fresh.Status = created.Status
			_, err = pods.UpdateStatus(ctx, fresh, metav1.UpdateOptions{})
		}
		if err != nil {
			p.err = fmt.Errorf("kubelet: pod %s/%s status: %w", created.Namespace, created.Name, err)
			return nil, p.err
		}
	}
	k.mu.Lock()
	runCtx := k.runCtx
	k.mu.Unlock()
	if runCtx != nil {
		k.runContainers(runCtx, cs, p, created)
	}
	return p, nil
}

func ptrTrue() *bool { b := true; return &b }

// Root is the root directory of a container of the pod ("" if the pod
// has no such container).
func (p *Pod) Root(container string) string { return p.dirs[container] }

// SetLogs sets the log of a container, or of its previous instance.
func (p *Pod) SetLogs(container string, previous bool, lines ...LogLine) {
	p.mu.Lock()
	defer p.mu.Unlock()
	key := container
	if previous {
		key = "prev:" + container
	}
	p.logs[key] = append([]LogLine(nil), lines...)
}

// OnExec replaces (or, with nil, restores) the pod's exec behaviour.
func (p *Pod) OnExec(f ExecFunc) {
	p.mu.Lock()
	p.onExec = f
	p.mu.Unlock()
}

// lookup finds the pod and container of a /exec or /containerLogs path.
func (k *Kubelet) lookup(path, prefix string) (*Pod, string, error) {
	rest := strings.TrimPrefix(path, prefix)
	parts := strings.Split(rest, "/")
	if len(parts) != 3 {
		return nil, "", fmt.Errorf("bad path %q", path)
	}
	for i := range parts {
		s, err := url.PathUnescape(parts[i])
		if err != nil {
			return nil, "", err
		}
		parts[i] = s
	}
	k.mu.Lock()
	p := k.pods[parts[0]+"/"+parts[1]]
	cs := k.cs
	k.mu.Unlock()
	if p == nil && cs != nil {
		// A pod the watch has not brought yet.
		if pod, err := cs.CoreV1().Pods(parts[0]).Get(context.Background(), parts[1], metav1.GetOptions{}); err == nil && pod.Spec.NodeName == k.NodeName {
			p, _ = k.adopt(context.Background(), cs, pod)
		}
	}
	if p == nil {
		return nil, "", fmt.Errorf("pod %s/%s not found", parts[0], parts[1])
	}
	if _, ok := p.dirs[parts[2]]; !ok {
		return nil, "", fmt.Errorf("container %q not found in pod %s/%s", parts[2], parts[0], parts[1])
	}
	return p, parts[2], nil
}

func (k *Kubelet) serveLogs(w http.ResponseWriter, r *http.Request) {
	p, container, err := k.lookup(r.URL.Path, "/containerLogs/")
	if err != nil {
		httpError(w, err.Error(), http.StatusNotFound)
		return
	}
	q := r.URL.Query()
	previous := q.Get("previous") == "true"
	key := container
	if previous {
		key = "prev:" + container
	}
	p.mu.Lock()
	lines, ok := p.logs[key]
	p.mu.Unlock()
	if previous && !ok {
		httpError(w, fmt.Sprintf("previous terminated container %q in pod %q not found", container, p.Name), http.StatusBadRequest)
		return
	}
	if s := q.Get("sinceSeconds"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			httpError(w, "sinceSeconds must be a positive integer", http.StatusBadRequest)
			return
		}
		lines = since(lines, time.Now().Add(-time.Duration(n)*time.Second))
	} else if s := q.Get("sinceTime"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			httpError(w, "sinceTime: "+err.Error(), http.StatusBadRequest)
			return
		}
		lines = since(lines, t)
	}
	if s := q.Get("tailLines"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			httpError(w, "tailLines must be a non-negative integer", http.StatusBadRequest)
			return
		}
		if n < len(lines) {
			lines = lines[len(lines)-n:]
		}
	}
	var b strings.Builder
	for _, l := range lines {
		if q.Get("timestamps") == "true" {
			b.WriteString(l.Time.UTC().Format(time.RFC3339Nano))
			b.WriteByte(' ')
		}
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	out := b.String()
	if s := q.Get("limitBytes"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			httpError(w, "limitBytes must be a positive integer", http.StatusBadRequest)
			return
		}
		if n < len(out) {
			out = out[:n]
		}
	}
	w.Header().Set("Content-Type", "text/plain")
	_, _ = io.WriteString(w, out)
}

func since(lines []LogLine, t time.Time) []LogLine {
	var out []LogLine
	for _, l := range lines {
		if !l.Time.Before(t) {
			out = append(out, l)
		}
	}
	return out
}

// serverProtocols are the exec subprotocols the stand-in speaks over
// SPDY; v5 differs from v4 only over websockets.
var serverProtocols = []string{remotecommand.StreamProtocolV5Name, remotecommand.StreamProtocolV4Name}

type newStream struct {
	s       httpstream.Stream
	replied <-chan struct{}
}

func (k *Kubelet) serveExec(w http.ResponseWriter, r *http.Request) {
	p, container, err := k.lookup(r.URL.Path, "/exec/")
	if err != nil {
		httpError(w, err.Error(), http.StatusNotFound)
		return
	}
	q := r.URL.Query()
	wantIn, wantOut, wantErr := q.Get(corev1.ExecStdinParam) == "1", q.Get(corev1.ExecStdoutParam) == "1", q.Get(corev1.ExecStderrParam) == "1"
	if q.Get(corev1.ExecTTYParam) == "1" {
		httpError(w, "the kubelet stand-in has no tty", http.StatusBadRequest)
		return
	}
	if wsstream.IsWebSocketRequest(r) {
		k.serveExecWebsocket(w, r, p, container, wantIn, wantOut, wantErr)
		return
	}
	if _, err := httpstream.Handshake(r, w, serverProtocols); err != nil {
		return // Handshake has answered
	}
	streams := make(chan newStream, 8)
	conn := spdy.NewResponseUpgrader().UpgradeResponse(w, r, func(s httpstream.Stream, replied <-chan struct{}) error {
		select {
		case streams <- newStream{s, replied}:
			return nil
		default:
			return errors.New("too many streams")
		}
	})
	if conn == nil {
		return // the upgrader has answered
	}
	defer conn.Close()

	want := 1
	for _, b := range []bool{wantIn, wantOut, wantErr} {
		if b {
			want++
		}
	}
	got := map[string]httpstream.Stream{}
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for len(got) < want {
		select {
		case ns := <-streams:
			typ := ns.s.Headers().Get(corev1.StreamType)
			got[typ] = ns.s
			<-ns.replied
		case <-conn.CloseChan():
			return
		case <-timeout.C:
			return
		}
	}
	errStream := got[corev1.StreamTypeError]
	if errStream == nil {
		return
	}
	e := &Exec{Container: container, Image: p.images[container], Command: q[corev1.ExecCommandParam], Stdout: io.Discard, Stderr: io.Discard, Root: p.dirs[container]}
	if s := got[corev1.StreamTypeStdin]; s != nil {
		e.Stdin = s
	}
	if s := got[corev1.StreamTypeStdout]; s != nil {
		e.Stdout = s
	}
	if s := got[corev1.StreamTypeStderr]; s != nil {
		e.Stderr = s
	}
	_, _ = errStream.Write(p.exec(e))
	for _, typ := range []string{corev1.StreamTypeStdout, corev1.StreamTypeStderr, corev1.StreamTypeError} {
		if s := got[typ]; s != nil {
			_ = s.Close()
		}
	}
}

// exitStatus is what the kubelet writes on the error stream when a
// command ends with code.
func exitStatus(code int) []byte {
	st := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess}
	if code != 0 {
		st.Status = metav1.StatusFailure
		st.Reason = remotecommand.NonZeroExitCodeReason
		st.Message = fmt.Sprintf("command terminated with non-zero exit code: exit status %d", code)
		st.Details = &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: remotecommand.ExitCodeCauseType, Message: strconv.Itoa(code)}}}
	}
	data, _ := json.Marshal(st)
	return data
}

// httpError answers as the kubelet's go-restful WriteError does: the
// message as plain text, without a newline.
func httpError(w http.ResponseWriter, msg string, code int) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, msg)
}

// exec runs an exec request (the pod's handler first) and returns what
// goes on the error stream.
func (p *Pod) exec(e *Exec) []byte {
	p.mu.Lock()
	handler := p.onExec
	p.mu.Unlock()
	if handler == nil {
		p.k.mu.Lock()
		handler = p.k.exec
		p.k.mu.Unlock()
	}
	code, handled := 0, false
	if handler != nil {
		code, handled = handler(e)
	}
	if !handled {
		code = run(e)
	}
	if e.RawStatus != nil {
		return e.RawStatus
	}
	return exitStatus(code)
}

// The channels of the websocket exec protocols, in their order.
const (
	wsStdin = iota
	wsStdout
	wsStderr
	wsError
	wsResize
)

// serveExecWebsocket answers an exec request that came to the kubelet as
// a websocket: the apiserver passes a client's v4 (or older) channel
// protocol through unchanged, as it does not translate those to SPDY.
// The channels are those of channel.k8s.io (binary) and
// base64.channel.k8s.io, v4 or not: stdin, stdout, stderr, error and
// resize, the unrequested ones ignored.
func (k *Kubelet) serveExecWebsocket(w http.ResponseWriter, r *http.Request, p *Pod, container string, wantIn, wantOut, wantErr bool) {
	pick := func(want bool, t wsstream.ChannelType) wsstream.ChannelType {
		if want {
			return t
		}
		return wsstream.IgnoreChannel
	}
	channels := []wsstream.ChannelType{
		wsStdin:  pick(wantIn, wsstream.ReadChannel),
		wsStdout: pick(wantOut, wsstream.WriteChannel),
		wsStderr: pick(wantErr, wsstream.WriteChannel),
		wsError:  wsstream.WriteChannel,
		wsResize: wsstream.ReadChannel,
	}
	protocols := map[string]wsstream.ChannelProtocolConfig{}
	for _, v := range []string{"", "v4."} {
		protocols[v+wsstream.ChannelWebSocketProtocol] = wsstream.ChannelProtocolConfig{Binary: true, Channels: channels}
		protocols[v+wsstream.Base64ChannelWebSocketProtocol] = wsstream.ChannelProtocolConfig{Binary: false, Channels: channels}
	}
	protocols[""] = wsstream.ChannelProtocolConfig{Binary: true, Channels: channels}
	conn := wsstream.NewConn(protocols)
	_, streams, err := conn.Open(w, r)
	if err != nil {
		return
	}
	defer conn.Close()
	// An empty message on the first writable channel tells the client
	// that the streams are open, as the kubelet does.
	switch {
	case wantOut:
		_, _ = streams[wsStdout].Write([]byte{})
	case wantErr:
		_, _ = streams[wsStderr].Write([]byte{})
	default:
		_, _ = streams[wsError].Write([]byte{})
	}
	e := &Exec{Container: container, Image: p.images[container], Command: r.URL.Query()[corev1.ExecCommandParam], Stdout: io.Discard, Stderr: io.Discard, Root: p.dirs[container]}
	if wantIn {
		e.Stdin = streams[wsStdin]
	}
	if wantOut {
		e.Stdout = streams[wsStdout]
	}
	if wantErr {
		e.Stderr = streams[wsStderr]
	}
	_, _ = streams[wsError].Write(p.exec(e))
}

// Adopt makes the stand-in serve every pod scheduled to its Node, as a
// kubelet does, not only those of RunPod: a watch marks each new pod
// Running with its containers ready (its roots made, its logs taken
// from its LogAnnotationPrefix annotations), and an exec or log request
// for a pod the watch has not brought yet adopts it at once. It returns
// when the initial list is adopted; the watch runs until ctx ends.
func (k *Kubelet) Adopt(ctx context.Context, cs kubernetes.Interface) error {
	k.mu.Lock()
	k.cs = cs
	k.mu.Unlock()
	sel := "spec.nodeName=" + k.NodeName
	list, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return fmt.Errorf("kubelet: listing pods: %w", err)
	}
	for i := range list.Items {
		if _, err := k.adopt(ctx, cs, &list.Items[i]); err != nil {
			return err
		}
	}
	go func() {
		rv := list.ResourceVersion
		for ctx.Err() == nil {
			wi, err := cs.CoreV1().Pods("").Watch(ctx, metav1.ListOptions{FieldSelector: sel, ResourceVersion: rv})
			if err != nil {
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Second):
				}
				rv = ""
				continue
			}
			for ev := range wi.ResultChan() {
				pod, ok := ev.Object.(*corev1.Pod)
				if !ok {
					continue
				}
				rv = pod.ResourceVersion
				if pod.DeletionTimestamp == nil && len(pod.Status.ContainerStatuses) == 0 {
					_, _ = k.adopt(ctx, cs, pod)
				}
			}
			wi.Stop()
		}
	}()
	return nil
}
