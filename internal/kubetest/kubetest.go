// Package kubetest starts a real kube-apiserver (with an embedded etcd) for
// integration tests.
//
// The binary is built from internal/kubetest/apiserver by
// hack/build-apiserver.sh and cached under .cache/kube-apiserver/, or taken
// from the CFZT_KUBE_APISERVER environment variable. See README.md.
package kubetest

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// Environment variables read by this package.
const (
	// EnvBinary names an already built test kube-apiserver binary. When it
	// is unset, hack/build-apiserver.sh is run to find or build one.
	EnvBinary = "CFZT_KUBE_APISERVER"
	// EnvKeepDir keeps the cluster's temporary directory (certificates,
	// kubeconfigs, etcd data and apiserver.log) after Stop when set to a
	// non-empty value other than "0" or "false".
	EnvKeepDir = "CFZT_KUBETEST_KEEP"
	// EnvStartTimeout (a Go duration, e.g. "3m") replaces the default
	// StartTimeout of 60s, for machines too loaded to start an apiserver
	// in a minute.
	EnvStartTimeout = "CFZT_KUBETEST_START_TIMEOUT"
)

const (
	repoModule = "github.com/cfzt/cfzt-runner"

	defaultNamespace      = "cfzt-system"
	defaultServiceAccount = "cfzt-operator"
	defaultStartTimeout   = 60 * time.Second
	stopGracePeriod       = 10 * time.Second
	maxStartAttempts      = 3
)

// Options configures Start. The zero value is valid.
type Options struct {
	// OperatorNamespace and OperatorServiceAccount name the ServiceAccount
	// that OperatorToken authenticates as, so that RBAC bindings to that
	// ServiceAccount apply to it. Defaults: "cfzt-system" and
	// "cfzt-operator". Neither object is created.
	OperatorNamespace      string
	OperatorServiceAccount string

	// Binary is the test kube-apiserver binary. Default: $CFZT_KUBE_APISERVER,
	// else the output of hack/build-apiserver.sh.
	Binary string

	// StartTimeout bounds the wait for /readyz. Default: 60s.
	StartTimeout time.Duration

	// ExtraArgs are appended to the kube-apiserver command line.
	ExtraArgs []string

	// Optional components (components.go); all off by default.

	// Controllers runs kube-controller-manager (every default controller:
	// Deployments, ReplicaSets, DaemonSets, StatefulSets, garbage
	// collection, namespace deletion, ServiceAccount tokens, node
	// lifecycle, ...). Start returns once it has created default/default.
	Controllers bool
	// Scheduler runs kube-scheduler, so that pods get bound to nodes.
	Scheduler bool
	// FakeNodes > 0 runs KWOK and creates that many fake nodes
	// (fake-node-0, ...) on which bound pods start and become Ready at
	// once. More can be added with AddFakeNode.
	FakeNodes int
	// MissingImages are images the fake nodes cannot pull: a pod using
	// one stays Pending with its containers waiting in ImagePullBackOff
	// (KWOK has no registry to ask). A container whose command is
	// /bin/false or false crashes (CrashLoopBackOff) whatever this says.
	MissingImages []string
	// ServiceAccountAdmission keeps kube-apiserver's ServiceAccount
	// admission plugin, which refuses a pod whose service account does
	// not exist (and mounts its token). It is off by default: without
	// Controllers, no namespace has its default service account.
	ServiceAccountAdmission bool
	// PodGracePeriod makes the fake nodes remove a deleted pod when its
	// grace period ends (its deletionTimestamp), as a kubelet does with
	// containers that ignore SIGTERM, instead of at once.
	PodGracePeriod bool
	// ControllersBinary and KWOKBinary override $CFZT_KUBE_CONTROLLERS and
	// $CFZT_KWOK, else hack/build-testbin.sh builds them.
	ControllersBinary string
	KWOKBinary        string
}

// Cluster is a running kube-apiserver.
type Cluster struct {
	// Host is the apiserver URL, https://127.0.0.1:PORT.
	Host string
	// CAFile is the CA certificate that signed the serving certificate.
	CAFile string
	// AdminToken authenticates as user "admin" in group system:masters.
	AdminToken string
	// OperatorToken authenticates as
	// system:serviceaccount:<OperatorNamespace>:<OperatorServiceAccount>,
	// with no permissions until RBAC grants some.
	OperatorToken string
	// OperatorUser is the user name OperatorToken authenticates as.
	OperatorUser string
	// AdminKubeconfig and OperatorKubeconfig are kubeconfig files for the
	// two tokens.
	AdminKubeconfig    string
	OperatorKubeconfig string
	// AdminConfig and OperatorConfig are client configs for the two tokens.
	// Copy them with rest.CopyConfig before changing them.
	AdminConfig    *rest.Config
	OperatorConfig *rest.Config
	// Dir is the temporary directory that holds the certificates, tokens,
	// kubeconfigs, etcd data and the apiserver log. Stop removes it.
	Dir string
	// LogFile receives the apiserver's stdout and stderr.
	LogFile string

	// bin, port and opts are what the process was started with, so that
	// Restart can start it again the same way.
	bin  string
	port int
	opts Options

	cmd      *exec.Cmd
	exited   chan struct{} // closed when the process has exited
	waitErr  error         // valid after exited is closed
	stopOnce sync.Once

	clientsOnce sync.Once
	clients     *clients
	clientsErr  error

	comp componentState // optional components, see components.go
}

// Start starts a kube-apiserver with RBAC authorization on free loopback ports
// and waits until /readyz succeeds.
func Start(opts Options) (*Cluster, error) {
	if opts.OperatorNamespace == "" {
		opts.OperatorNamespace = defaultNamespace
	}
	if opts.OperatorServiceAccount == "" {
		opts.OperatorServiceAccount = defaultServiceAccount
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = defaultStartTimeout
		if d, err := time.ParseDuration(os.Getenv(EnvStartTimeout)); err == nil && d > 0 {
			opts.StartTimeout = d
		}
	}
	bin := opts.Binary
	if bin == "" {
		var err error
		if bin, err = FindBinary(); err != nil {
			return nil, err
		}
	}

	dir, err := os.MkdirTemp("", "kubetest-")
	if err != nil {
		return nil, fmt.Errorf("kubetest: %w", err)
	}
	c := &Cluster{Dir: dir, LogFile: filepath.Join(dir, "apiserver.log")}
	ok := false
	defer func() {
		if !ok {
			c.removeDir()
		}
	}()

	if err := c.writeCredentials(opts); err != nil {
		return nil, fmt.Errorf("kubetest: %w", err)
	}

	// The chosen port may be taken by someone else before the apiserver
	// binds it; retry with a fresh port in that case.
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("kubetest: picking a port: %w", err)
		}
		err = c.start(bin, port, opts, true)
		if err == nil {
			break
		}
		if attempt < maxStartAttempts && c.portConflict() {
			continue
		}
		return nil, err
	}
	if err := c.startComponents(opts); err != nil {
		c.stopComponents()
		c.kill()
		return nil, err
	}
	ok = true
	return c, nil
}

// start runs the binary on port and waits for readiness; freshData empties
// the etcd data directory first (Restart keeps it). On failure the process
// is stopped and the error includes the tail of the log.
func (c *Cluster) start(bin string, port int, opts Options, freshData bool) error {
	c.bin, c.port, c.opts = bin, port, opts
	c.Host = "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	c.AdminConfig = c.restConfig(c.AdminToken)
	c.OperatorConfig = c.restConfig(c.OperatorToken)
	c.AdminKubeconfig = filepath.Join(c.Dir, "admin.kubeconfig")
	c.OperatorKubeconfig = filepath.Join(c.Dir, "operator.kubeconfig")
	if err := writeKubeconfig(c.AdminKubeconfig, c.Host, c.CAFile, "admin", c.AdminToken); err != nil {
		return fmt.Errorf("kubetest: %w", err)
	}
	if err := writeKubeconfig(c.OperatorKubeconfig, c.Host, c.CAFile, "operator", c.OperatorToken); err != nil {
		return fmt.Errorf("kubetest: %w", err)
	}

	etcdDir := filepath.Join(c.Dir, "etcd")
	if freshData {
		if err := os.RemoveAll(etcdDir); err != nil {
			return fmt.Errorf("kubetest: %w", err)
		}
		if err := os.Mkdir(etcdDir, 0o700); err != nil {
			return fmt.Errorf("kubetest: %w", err)
		}
	}
	logf, err := os.OpenFile(c.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("kubetest: %w", err)
	}
	defer logf.Close() // the child has its own descriptor

	p := func(name string) string { return filepath.Join(c.Dir, name) }
	args := []string{
		"--embedded-etcd-dir=" + etcdDir,
		"--embedded-etcd-log=" + filepath.Join(c.Dir, "etcd.log"),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + p("apiserver.crt"),
		"--tls-private-key-file=" + p("apiserver.key"),
		"--client-ca-file=" + p("ca.crt"),
		"--token-auth-file=" + p("tokens.csv"),
		"--service-account-issuer=" + c.Host,
		"--service-account-key-file=" + p("sa.pub"),
		"--service-account-signing-key-file=" + p("sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--authorization-mode=RBAC",
		"--allow-privileged=true",
		"--endpoint-reconciler-type=none",
	}
	if !opts.ServiceAccountAdmission {
		args = append(args, "--disable-admission-plugins=ServiceAccount")
	}
	args = append(args, opts.ExtraArgs...)

	cmd := exec.Command(bin, args...)
	cmd.Dir = c.Dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = sysProcAttr()
	// Pdeathsig fires when the thread that started the child exits, not
	// the process. Start and wait on one locked thread that lives exactly
	// as long as the child, so the Go runtime never retires it early.
	started := make(chan error, 1)
	c.exited = make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("kubetest: starting %s: %w", bin, err)
	}
	c.cmd = cmd

	begin := time.Now()
	if err := c.waitReady(opts.StartTimeout); err != nil {
		c.kill()
		msg := fmt.Sprintf("kubetest: %v\n--- tail of %s ---\n%s", err, c.LogFile, tail(c.LogFile, 40))
		etcdLog := filepath.Join(c.Dir, "etcd.log")
		if t := tail(etcdLog, 10); t != "" && !os.IsNotExist(statErr(etcdLog)) {
			msg += fmt.Sprintf("\n--- tail of %s ---\n%s", etcdLog, t)
		}
		return errors.New(msg)
	}
	if flag.Parsed() && testing.Verbose() {
		fmt.Fprintf(os.Stderr, "kubetest: kube-apiserver ready at %s in %s\n", c.Host, time.Since(begin).Round(time.Millisecond))
	}
	return nil
}

func (c *Cluster) waitReady(timeout time.Duration) error {
	pool := x509.NewCertPool()
	caPEM, err := os.ReadFile(c.CAFile)
	if err != nil {
		return err
	}
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}
	defer client.CloseIdleConnections()

	deadline := time.Now().Add(timeout)
	var lastErr error
	for {
		req, err := http.NewRequest(http.MethodGet, c.Host+"/readyz", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+c.AdminToken)
		resp, err := client.Do(req)
		if err == nil {
			body, _ := readAllLimit(resp, 4096)
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			lastErr = fmt.Errorf("/readyz: %s: %s", resp.Status, body)
		} else {
			lastErr = err
		}
		select {
		case <-c.exited:
			return fmt.Errorf("kube-apiserver exited before it was ready: %v", c.waitErr)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kube-apiserver not ready after %s: %v", timeout, lastErr)
		}
	}
}

func (c *Cluster) portConflict() bool {
	data, _ := os.ReadFile(c.LogFile)
	return bytes.Contains(data, []byte("address already in use"))
}

// Stop terminates the apiserver (its whole process group), waits for it and
// removes Dir. It is safe to call more than once and on a nil Cluster.
func (c *Cluster) Stop() {
	if c == nil {
		return
	}
	c.stopOnce.Do(func() {
		c.stopComponents()
		if c.cmd != nil && c.cmd.Process != nil {
			signalGroup(c.cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-c.exited:
			case <-time.After(stopGracePeriod):
				c.kill()
			}
		}
		c.removeDir()
	})
}

// kill sends SIGKILL to the process group and waits for the process.
func (c *Cluster) kill() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	signalGroup(c.cmd.Process.Pid, syscall.SIGKILL)
	<-c.exited
}

func (c *Cluster) removeDir() {
	if keep := os.Getenv(EnvKeepDir); keep != "" && keep != "0" && keep != "false" {
		fmt.Fprintf(os.Stderr, "kubetest: keeping %s\n", c.Dir)
		return
	}
	_ = os.RemoveAll(c.Dir)
}

func (c *Cluster) restConfig(token string) *rest.Config {
	return &rest.Config{
		Host:            c.Host,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAFile: c.CAFile},
		QPS:             200,
		Burst:           400,
		Timeout:         30 * time.Second,
	}
}

// Main runs the tests of a package against one shared cluster started with
// default Options. Use it from TestMain:
//
//	var cluster *kubetest.Cluster
//
//	func TestMain(m *testing.M) {
//		kubetest.Main(m, func(c *kubetest.Cluster) { cluster = c })
//	}
//
// setup runs after the cluster is ready and before the tests; it may be nil.
// Main stops the cluster after the tests and exits the process.
func Main(m *testing.M, setup func(*Cluster)) {
	MainWithOptions(m, Options{}, setup)
}

// MainWithOptions is Main with explicit Options.
func MainWithOptions(m *testing.M, opts Options, setup func(*Cluster)) {
	if !flag.Parsed() {
		flag.Parse() // allowed in TestMain; lets Start honour -v
	}
	c, err := Start(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer c.Stop() // also on a panic in setup
		if setup != nil {
			setup(c)
		}
		return m.Run()
	}()
	os.Exit(code)
}

var (
	binaryMu   sync.Mutex
	binaryPath string
)

// FindBinary returns the test kube-apiserver binary: $CFZT_KUBE_APISERVER if
// set, else the path printed by hack/build-apiserver.sh in the repository
// root (which builds the binary on the first call, taking several minutes).
func FindBinary() (string, error) {
	if p := os.Getenv(EnvBinary); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("kubetest: %s: %w", EnvBinary, err)
		}
		return p, nil
	}
	binaryMu.Lock()
	defer binaryMu.Unlock()
	if binaryPath != "" {
		return binaryPath, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	script := filepath.Join(root, "hack", "build-apiserver.sh")
	cmd := exec.Command("bash", script)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("kubetest: %s: %w", script, err)
	}
	p := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(p, '\n'); i >= 0 {
		p = p[i+1:]
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("kubetest: %s printed %q: %w", script, p, err)
	}
	binaryPath = p
	return p, nil
}

// RepoRoot walks up from the working directory to the directory whose go.mod
// declares module github.com/cfzt/cfzt-runner.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if modulePath(filepath.Join(dir, "go.mod")) == repoModule {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("kubetest: no go.mod for module %s above the working directory", repoModule)
		}
		dir = parent
	}
}

func modulePath(gomod string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

func statErr(path string) error {
	_, err := os.Stat(path)
	return err
}

func tail(path string, lines int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

func readAllLimit(resp *http.Response, limit int64) ([]byte, error) {
	defer resp.Body.Close()
	return io.ReadAll(io.LimitReader(resp.Body, limit))
}
