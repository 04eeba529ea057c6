package kubetest

// Optional cluster components next to the apiserver: kube-controller-manager,
// kube-scheduler and KWOK fake nodes. Each is off unless Options asks for it,
// so a test package that needs only the API pays nothing for them.

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Environment variables naming prebuilt component binaries. When unset,
// hack/build-testbin.sh finds or builds them.
const (
	// EnvControllersBinary is the multi-call kube-controller-manager and
	// kube-scheduler binary built from internal/kubetest/controllers.
	EnvControllersBinary = "CFZT_KUBE_CONTROLLERS"
	// EnvKWOKBinary is the kwok binary built from internal/kubetest/kwok.
	EnvKWOKBinary = "CFZT_KWOK"
)

// FakeNodeLabel is set to "true" on every node AddFakeNode creates.
const FakeNodeLabel = "kubetest.cfzt.dev/fake-node"

const componentStartTimeout = 90 * time.Second

// component is one running helper process.
type component struct {
	name    string
	logFile string
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
}

// componentState is the Cluster's share of optional components.
type componentState struct {
	mu         sync.Mutex
	components []*component
	kube       kubernetes.Interface
}

// startComponents starts what opts asks for, after the apiserver is ready,
// and waits until each of them works.
func (c *Cluster) startComponents(opts Options) error {
	if !opts.Controllers && !opts.Scheduler && opts.FakeNodes == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), componentStartTimeout)
	defer cancel()
	if opts.Controllers || opts.Scheduler {
		bin := opts.ControllersBinary
		if bin == "" {
			var err error
			if bin, err = findTestBinary(EnvControllersBinary, "kube-controllers"); err != nil {
				return err
			}
		}
		if opts.Controllers {
			if err := c.startControllerManager(ctx, bin); err != nil {
				return err
			}
		}
		if opts.Scheduler {
			if err := c.startScheduler(ctx, bin); err != nil {
				return err
			}
		}
	}
	if opts.FakeNodes > 0 {
		bin := opts.KWOKBinary
		if bin == "" {
			var err error
			if bin, err = findTestBinary(EnvKWOKBinary, "kwok"); err != nil {
				return err
			}
		}
		if err := c.startKWOK(bin, opts); err != nil {
			return err
		}
		for i := 0; i < opts.FakeNodes; i++ {
			if _, err := c.AddFakeNode(ctx, fmt.Sprintf("fake-node-%d", i), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Cluster) kubeClient() (kubernetes.Interface, error) {
	c.comp.mu.Lock()
	defer c.comp.mu.Unlock()
	if c.comp.kube == nil {
		k, err := kubernetes.NewForConfig(c.AdminConfig)
		if err != nil {
			return nil, err
		}
		c.comp.kube = k
	}
	return c.comp.kube, nil
}

// startControllerManager runs kube-controller-manager with every default
// controller, the service-account signing key of the apiserver (for the
// token controller and the ca.crt of token Secrets) and the cluster CA as
// CSR signer. It is ready when its /healthz answers and the ServiceAccount
// controller has created default/default.
func (c *Cluster) startControllerManager(ctx context.Context, bin string) error {
	port, err := freePort()
	if err != nil {
		return fmt.Errorf("kubetest: %w", err)
	}
	p := func(name string) string { return filepath.Join(c.Dir, name) }
	args := []string{
		"controller-manager",
		"--kubeconfig=" + c.AdminKubeconfig,
		"--authentication-kubeconfig=" + c.AdminKubeconfig,
		"--authorization-kubeconfig=" + c.AdminKubeconfig,
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + p("kube-controller-manager-certs"),
		"--service-account-private-key-file=" + p("sa.key"),
		"--root-ca-file=" + p("ca.crt"),
		"--cluster-signing-cert-file=" + p("ca.crt"),
		"--cluster-signing-key-file=" + p("ca.key"),
		"--use-service-account-credentials=false",
		"--service-cluster-ip-range=10.0.0.0/24",
		// Deleted pods of fake nodes are not left to linger.
		"--terminated-pod-gc-threshold=100",
	}
	comp, err := c.startComponent("kube-controller-manager", bin, args)
	if err != nil {
		return err
	}
	if err := c.waitHealthz(ctx, comp, port, "/healthz"); err != nil {
		return err
	}
	kube, err := c.kubeClient()
	if err != nil {
		return fmt.Errorf("kubetest: %w", err)
	}
	return c.waitFor(ctx, comp, "the default ServiceAccount", func() (bool, error) {
		_, err := kube.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
}

// startScheduler runs kube-scheduler with its default profile. It is ready
// when /readyz answers, which includes its informers having synced.
func (c *Cluster) startScheduler(ctx context.Context, bin string) error {
	port, err := freePort()
	if err != nil {
		return fmt.Errorf("kubetest: %w", err)
	}
	args := []string{
		"scheduler",
		"--kubeconfig=" + c.AdminKubeconfig,
		"--authentication-kubeconfig=" + c.AdminKubeconfig,
		"--authorization-kubeconfig=" + c.AdminKubeconfig,
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + filepath.Join(c.Dir, "kube-scheduler-certs"),
	}
	comp, err := c.startComponent("kube-scheduler", bin, args)
	if err != nil {
		return err
	}
	return c.waitHealthz(ctx, comp, port, "/readyz")
}

// kwokStages make fake nodes Ready at once, start every pod bound to one
// (Running, all containers ready, init containers completed) and finish
// the deletion of a terminating pod, as a kubelet would after its grace
// period, once no finalizer holds it. Nothing is delayed. Written for this
// harness; see KWOK's Stage API for the format.
const kwokStages = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: kubetest-node-ready
spec:
  resourceRef:
    apiGroup: v1
    kind: Node
  selector:
    matchExpressions:
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: NotIn
      values: ['True']
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - type: Ready
        status: "True"
        reason: KubeletReady
        message: fake node run by kwok
        lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $now | Quote }}
      - type: MemoryPressure
        status: "False"
        reason: KubeletHasSufficientMemory
        lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $now | Quote }}
      - type: DiskPressure
        status: "False"
        reason: KubeletHasNoDiskPressure
        lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $now | Quote }}
      - type: PIDPressure
        status: "False"
        reason: KubeletHasSufficientPID
        lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $now | Quote }}
      addresses:
      - type: InternalIP
        address: {{ NodeIP | Quote }}
      - type: Hostname
        address: {{ .metadata.name | Quote }}
      allocatable:
        cpu: "64"
        memory: 256Gi
        pods: "250"
      capacity:
        cpu: "64"
        memory: 256Gi
        pods: "250"
      nodeInfo:
        architecture: amd64
        operatingSystem: linux
        kubeletVersion: v1.36.3
        containerRuntimeVersion: kwok
        kernelVersion: kwok
        osImage: kwok
      phase: Running
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: kubetest-pod-running
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.podIP'
      operator: DoesNotExist
#NOTCRASH#
#NOTMISSING#
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - type: PodScheduled
        status: "True"
        lastTransitionTime: {{ $now | Quote }}
      - type: Initialized
        status: "True"
        lastTransitionTime: {{ $now | Quote }}
      - type: ContainersReady
        status: "True"
        lastTransitionTime: {{ $now | Quote }}
      - type: Ready
        status: "True"
        lastTransitionTime: {{ $now | Quote }}
      {{ range .spec.readinessGates }}
      - type: {{ .conditionType | Quote }}
        status: "True"
        lastTransitionTime: {{ $now | Quote }}
      {{ end }}
      {{ with .spec.initContainers }}
      initContainerStatuses:
      {{ range . }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: true
        restartCount: 0
        started: false
        state:
          terminated:
            exitCode: 0
            reason: Completed
            startedAt: {{ $now | Quote }}
            finishedAt: {{ $now | Quote }}
      {{ end }}
      {{ end }}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: true
        restartCount: 0
        started: true
        state:
          running:
            startedAt: {{ $now | Quote }}
      {{ end }}
      hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
      podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
      phase: Running
      startTime: {{ $now | Quote }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: kubetest-pod-delete
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: Exists
    - key: '.metadata.finalizers'
      operator: DoesNotExist
#GRACE#
  next:
    delete: true
`

// kwokNotReadyStage is the stage of a pod that never becomes ready:
// scheduled and given an IP (so that it is matched once), its containers
// not ready, each in the state #STATE# describes, the pod in #PHASE#.
// #NAME# names it and #SELECT# adds to its selector.
const kwokNotReadyStage = `---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: #NAME#
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.podIP'
      operator: DoesNotExist
#SELECT#
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - type: PodScheduled
        status: "True"
        lastTransitionTime: {{ $now | Quote }}
      - type: Initialized
        status: "True"
        lastTransitionTime: {{ $now | Quote }}
      - type: ContainersReady
        status: "False"
        reason: ContainersNotReady
        lastTransitionTime: {{ $now | Quote }}
      - type: Ready
        status: "False"
        reason: ContainersNotReady
        lastTransitionTime: {{ $now | Quote }}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: false
        started: false
#STATE#
      {{ end }}
      hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
      podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
      phase: #PHASE#
      startTime: {{ $now | Quote }}
`

// crashCommands are the commands with which a container crashes.
const crashCommands = `    - key: '.spec.containers.[].command.[0]'
      operator: %s
      values: [/bin/false, "false"]`

// kwokCrashState is a container that exited 1 and waits to restart.
const kwokCrashState = `        restartCount: 1
        lastState:
          terminated:
            exitCode: 1
            reason: Error
            startedAt: {{ $now | Quote }}
            finishedAt: {{ $now | Quote }}
        state:
          waiting:
            reason: CrashLoopBackOff
            message: back-off 10s restarting failed container`

// kwokImagePullState is a container whose image cannot be pulled.
const kwokImagePullState = `        restartCount: 0
        state:
          waiting:
            reason: ImagePullBackOff
            message: Back-off pulling image {{ .image | Quote }}`

// notReadyStage fills kwokNotReadyStage.
func notReadyStage(name, selector, state, phase string) string {
	return strings.NewReplacer("#NAME#", name, "#SELECT#", selector, "#STATE#", state, "#PHASE#", phase).Replace(kwokNotReadyStage)
}

// kwokConfig is kwokStages with the failing pods' stages, for these
// missing images, and with deleted pods removed at the end of their grace
// period when grace is set.
func kwokConfig(missingImages []string, grace bool) string {
	notMissing := ""
	stages := notReadyStage("kubetest-pod-crash", fmt.Sprintf(crashCommands, "In"), kwokCrashState, "Running")
	if len(missingImages) > 0 {
		quoted, _ := json.Marshal(missingImages)
		notMissing = "    - key: '.spec.containers.[].image'\n      operator: NotIn\n      values: " + string(quoted)
		stages += notReadyStage("kubetest-pod-image-missing", fmt.Sprintf(crashCommands, "NotIn")+"\n    - key: '.spec.containers.[].image'\n      operator: In\n      values: "+string(quoted), kwokImagePullState, "Pending")
	}
	delay := ""
	if grace {
		delay = "  delay:\n    durationMilliseconds: 0\n    durationFrom:\n      expressionFrom: '.metadata.deletionTimestamp'"
	}
	base := strings.Replace(kwokStages, "#NOTCRASH#", fmt.Sprintf(crashCommands, "NotIn"), 1)
	base = strings.Replace(base, "#NOTMISSING#\n", notMissing+"\n", 1)
	base = strings.Replace(base, "#GRACE#\n", delay+"\n", 1)
	return base + "\n" + stages
}

// startKWOK runs KWOK over the nodes labelled FakeNodeLabel=true, with
// kwokStages and node leases (so that the node lifecycle controller of
// kube-controller-manager keeps them Ready).
func (c *Cluster) startKWOK(bin string, opts Options) error {
	config := filepath.Join(c.Dir, "kwok.yaml")
	if err := os.WriteFile(config, []byte(kwokConfig(opts.MissingImages, opts.PodGracePeriod)), 0o600); err != nil {
		return fmt.Errorf("kubetest: %w", err)
	}
	args := []string{
		"--config=" + config,
		"--kubeconfig=" + c.AdminKubeconfig,
		"--manage-nodes-with-label-selector=" + FakeNodeLabel + "=true",
		"--node-lease-duration-seconds=40",
		"--cidr=10.244.0.0/16",
		"--node-ip=10.1.0.1",
	}
	// KWOK reads ~/.kwok; a private HOME keeps a developer's settings out.
	_, err := c.startComponentEnv("kwok", bin, args, []string{"HOME=" + c.Dir})
	return err
}

// AddFakeNode creates a node that KWOK (Options.FakeNodes > 0) runs: it
// turns Ready, and pods bound to it start at once. labels are added to
// the node's own (kubernetes.io/hostname and FakeNodeLabel). It returns
// when the node is Ready and, with Options.Controllers, has lost the
// not-ready taint, so the scheduler can use it. (Without the controller
// manager the taint stays: bind pods with spec.nodeName.)
func (c *Cluster) AddFakeNode(ctx context.Context, name string, labels map[string]string) (*corev1.Node, error) {
	if !c.hasComponent("kwok") {
		return nil, errors.New("kubetest: AddFakeNode needs KWOK: start the cluster with Options.FakeNodes > 0")
	}
	kube, err := c.kubeClient()
	if err != nil {
		return nil, fmt.Errorf("kubetest: %w", err)
	}
	l := map[string]string{
		"kubernetes.io/hostname": name,
		"kubernetes.io/os":       "linux",
		"kubernetes.io/arch":     "amd64",
		"type":                   "kwok",
		FakeNodeLabel:            "true",
	}
	for k, v := range labels {
		l[k] = v
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:        name,
		Labels:      l,
		Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0"},
	}}
	if _, err := kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("kubetest: creating node %s: %w", name, err)
	}
	var ready *corev1.Node
	err = c.waitFor(ctx, nil, "node "+name+" to become Ready", func() (bool, error) {
		n, err := kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if !nodeReady(n) {
			return false, nil
		}
		// The apiserver's admission taints a new node not-ready; only the
		// node lifecycle controller takes the taint off again.
		for _, t := range n.Spec.Taints {
			if !c.hasComponent("kube-controller-manager") {
				break
			}
			if strings.HasPrefix(t.Key, "node.kubernetes.io/") {
				return false, nil
			}
		}
		ready = n
		return true, nil
	})
	return ready, err
}

func nodeReady(n *corev1.Node) bool {
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

func (c *Cluster) hasComponent(name string) bool {
	c.comp.mu.Lock()
	defer c.comp.mu.Unlock()
	for _, comp := range c.comp.components {
		if comp.name == name {
			return true
		}
	}
	return false
}

// ComponentLog returns the log file of an optional component
// ("kube-controller-manager", "kube-scheduler" or "kwok"), or "" if it is
// not running.
func (c *Cluster) ComponentLog(name string) string {
	c.comp.mu.Lock()
	defer c.comp.mu.Unlock()
	for _, comp := range c.comp.components {
		if comp.name == name {
			return comp.logFile
		}
	}
	return ""
}

func (c *Cluster) startComponent(name, bin string, args []string) (*component, error) {
	return c.startComponentEnv(name, bin, args, nil)
}

// startComponentEnv starts bin in its own process group, logging to
// Dir/<name>.log, with the same Pdeathsig guard as the apiserver.
func (c *Cluster) startComponentEnv(name, bin string, args, env []string) (*component, error) {
	comp := &component{name: name, logFile: filepath.Join(c.Dir, name+".log"), exited: make(chan struct{})}
	logf, err := os.OpenFile(comp.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("kubetest: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(bin, args...)
	cmd.Dir = c.Dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.SysProcAttr = sysProcAttr()
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // see start: Pdeathsig follows this thread
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		comp.waitErr = cmd.Wait()
		close(comp.exited)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("kubetest: starting %s (%s): %w", name, bin, err)
	}
	comp.cmd = cmd
	c.comp.mu.Lock()
	c.comp.components = append(c.comp.components, comp)
	c.comp.mu.Unlock()
	return comp, nil
}

// waitHealthz polls https://127.0.0.1:port/path of a component (its serving
// certificate is self-signed) until it answers 200.
func (c *Cluster) waitHealthz(ctx context.Context, comp *component, port int, path string) error {
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // loopback, self-signed test component
	}
	defer client.CloseIdleConnections()
	url := "https://127.0.0.1:" + strconv.Itoa(port) + path
	return c.waitFor(ctx, comp, url, func() (bool, error) {
		resp, err := client.Get(url)
		if err != nil {
			return false, nil
		}
		_, _ = readAllLimit(resp, 4096)
		return resp.StatusCode == http.StatusOK, nil
	})
}

// waitFor polls check until it holds, ctx ends, or comp (if not nil) exits.
// Errors from check are retried; the last one is reported on timeout.
func (c *Cluster) waitFor(ctx context.Context, comp *component, what string, check func() (bool, error)) error {
	var lastErr error
	for {
		ok, err := check()
		if ok {
			return nil
		}
		if err != nil {
			lastErr = err
		}
		var exited <-chan struct{}
		if comp != nil {
			exited = comp.exited
		}
		select {
		case <-exited:
			return fmt.Errorf("kubetest: %s exited (%v) while waiting for %s\n--- tail of %s ---\n%s",
				comp.name, comp.waitErr, what, comp.logFile, tail(comp.logFile, 30))
		case <-ctx.Done():
			msg := fmt.Sprintf("kubetest: timed out waiting for %s", what)
			if lastErr != nil {
				msg += ": " + lastErr.Error()
			}
			if comp != nil {
				msg += fmt.Sprintf("\n--- tail of %s ---\n%s", comp.logFile, tail(comp.logFile, 30))
			}
			return errors.New(msg)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stopComponents stops the optional components, newest first, before the
// apiserver goes away (so that they do not log connection errors for 10 s).
func (c *Cluster) stopComponents() {
	c.comp.mu.Lock()
	comps := c.comp.components
	c.comp.components = nil
	c.comp.mu.Unlock()
	for i := len(comps) - 1; i >= 0; i-- {
		comp := comps[i]
		signalGroup(comp.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-comp.exited:
		case <-time.After(stopGracePeriod):
			signalGroup(comp.cmd.Process.Pid, syscall.SIGKILL)
			<-comp.exited
		}
	}
}

var (
	testBinMu    sync.Mutex
	testBinPaths = map[string]string{}
)

// findTestBinary returns $env if set, else the path printed by
// hack/build-testbin.sh name (which builds it on first use).
func findTestBinary(env, name string) (string, error) {
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("kubetest: %s: %w", env, err)
		}
		return p, nil
	}
	testBinMu.Lock()
	defer testBinMu.Unlock()
	if p := testBinPaths[name]; p != "" {
		return p, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	script := filepath.Join(root, "hack", "build-testbin.sh")
	cmd := exec.Command("bash", script, name)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("kubetest: %s %s: %w", script, name, err)
	}
	p := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(p, '\n'); i >= 0 {
		p = p[i+1:]
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("kubetest: %s %s printed %q: %w", script, name, p, err)
	}
	testBinPaths[name] = p
	return p, nil
}
