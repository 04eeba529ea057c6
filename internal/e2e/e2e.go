// Package e2e is the shared end-to-end harness: a real kube-apiserver with
// the operator's CRDs and RBAC installed, the cfzt-runner binary built from
// this checkout, and the Cloudflare simulator on loopback.
//
// Use it from a test package's TestMain and run playbooks as the operator:
//
//	var h *e2e.Harness
//
//	func TestMain(m *testing.M) {
//		e2e.Main(m, func(x *e2e.Harness) { h = x })
//	}
//
//	func TestSomething(t *testing.T) {
//		sim := e2e.StartSim(t)                       // cfsim with DefaultSeed, stopped by t.Cleanup
//		require.NoError(t, h.CreateCredentialSecret(ctx, "apps", "cf-token", sim.Token))
//		// ... create CloudflareTask CRs with h.Dynamic() ...
//		out, code := h.RunPlaybook(ctx, "ansible/playbooks/cloudflare_worker.yml", sim.Env(), "-v")
//		// assert on sim.State(), sim.Requests(), sim.CountWrites() and the CRs
//	}
//
// Main starts one cluster per test package (kubetest.Main), creates the
// operator namespace, applies every deploy/crds/*.yaml and the test-only
// deploy/crds/testing/*.yaml (waiting for each CRD to be Established) and the
// shipped RBAC from deploy/rbac/*.yaml, and builds
// ./cmd/cfzt-runner once. The operator's ServiceAccount is the one declared in
// deploy/rbac; when that directory has none, the harness uses
// cfzt-system/cfzt-operator and binds a broad test ClusterRole instead.
// RunPlaybook always authenticates as that ServiceAccount, never as admin, so
// tests prove the RBAC is sufficient.
//
// Environment: CFZT_KUBE_APISERVER (see internal/kubetest) and CFZT_RUNNER,
// a prebuilt cfzt-runner to use instead of building one.
package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/cfzt/cfzt-runner/internal/testbin"
)

// EnvRunner names a prebuilt cfzt-runner binary to use instead of building.
const EnvRunner = testbin.Env

// Default operator identity when deploy/rbac declares no ServiceAccount.
const (
	DefaultNamespace      = "cfzt-system"
	DefaultServiceAccount = "cfzt-operator"
	// DefaultPodName is the POD_NAME RunPlaybook passes unless env sets one.
	DefaultPodName = "cfzt-e2e-worker"
)

// CloudflareTaskGVR is the CloudflareTask resource (docs/cloudflaretask.md).
var CloudflareTaskGVR = schema.GroupVersionResource{Group: "cfzt.cloudflare.com", Version: "v1alpha1", Resource: "cloudflaretasks"}

// Options configures MainWithOptions and Start.
type Options struct {
	// ExtraYAML documents are applied (as admin) after the CRDs and RBAC,
	// e.g. third-party CRDs such as Gateway API's HTTPRoute.
	ExtraYAML []string
}

// Harness is a running cluster with the operator installed and a built
// cfzt-runner.
type Harness struct {
	// Cluster is the kube-apiserver (admin and operator credentials).
	Cluster *kubetest.Cluster
	// Root is the repository root; relative playbook paths resolve here.
	Root string
	// Runner is the cfzt-runner binary.
	Runner string
	// Namespace and ServiceAccount identify the operator
	// (OPERATOR_NAMESPACE and the identity of K8S_AUTH_API_KEY).
	Namespace      string
	ServiceAccount string

	tmp string
}

// Main starts the harness, runs the package's tests and exits. setup (may
// be nil) runs before the tests.
func Main(m *testing.M, setup func(*Harness)) {
	MainWithOptions(m, Options{}, setup)
}

// MainWithOptions is Main with Options.
func MainWithOptions(m *testing.M, opts Options, setup func(*Harness)) {
	h, err := Start(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	code := func() int {
		defer h.Stop()
		if setup != nil {
			setup(h)
		}
		return m.Run()
	}()
	os.Exit(code)
}

// Start starts a cluster, installs the CRDs, RBAC and opts.ExtraYAML and
// builds cfzt-runner. Stop releases everything.
func Start(opts Options) (*Harness, error) {
	root, err := kubetest.RepoRoot()
	if err != nil {
		return nil, err
	}
	ns, sa, rbacDocs, err := readRBAC(filepath.Join(root, "deploy", "rbac"))
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "cfzt-e2e-")
	if err != nil {
		return nil, err
	}
	h := &Harness{Root: root, Namespace: ns, ServiceAccount: sa, tmp: tmp}
	ok := false
	defer func() {
		if !ok {
			h.Stop()
		}
	}()

	// Build while the apiserver starts: both take a few seconds.
	built := make(chan error, 1)
	go func() { built <- h.buildRunner() }()

	h.Cluster, err = kubetest.Start(kubetest.Options{OperatorNamespace: ns, OperatorServiceAccount: sa})
	if err != nil {
		<-built
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := h.install(ctx, rbacDocs, opts.ExtraYAML); err != nil {
		<-built
		return nil, err
	}
	if err := <-built; err != nil {
		return nil, err
	}
	ok = true
	return h, nil
}

// Stop stops the cluster and removes the harness's temporary files. It is
// safe on a partly started or nil Harness.
func (h *Harness) Stop() {
	if h == nil {
		return
	}
	h.Cluster.Stop()
	if h.tmp != "" {
		_ = os.RemoveAll(h.tmp)
	}
}

func (h *Harness) buildRunner() error {
	p, err := testbin.Runner(h.tmp)
	h.Runner = p
	return err
}

func (h *Harness) install(ctx context.Context, rbacDocs []string, extra []string) error {
	nsYAML := fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", h.Namespace)
	if err := h.Cluster.ApplyYAML(ctx, nsYAML); err != nil {
		return err
	}
	crds, err := filepath.Glob(filepath.Join(h.Root, "deploy", "crds", "*.yaml"))
	if err != nil {
		return err
	}
	testCRDs, err := filepath.Glob(filepath.Join(h.Root, "deploy", "crds", "testing", "*.yaml"))
	if err != nil {
		return err
	}
	sort.Strings(crds)
	sort.Strings(testCRDs)
	crds = append(crds, testCRDs...)
	for _, f := range crds {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := h.Cluster.ApplyYAML(ctx, string(b)); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	if len(rbacDocs) == 0 {
		rbacDocs = []string{testRBAC(h.Namespace, h.ServiceAccount)}
	}
	for _, doc := range append(rbacDocs, extra...) {
		if err := h.Cluster.ApplyYAML(ctx, doc); err != nil {
			return err
		}
	}
	return nil
}

// readRBAC returns the operator's ServiceAccount declared in dir (defaults
// when there is none) and the YAML files to apply.
func readRBAC(dir string) (ns, sa string, docs []string, err error) {
	ns, sa = DefaultNamespace, DefaultServiceAccount
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return "", "", nil, err
	}
	sort.Strings(files)
	found := false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", "", nil, err
		}
		docs = append(docs, string(b))
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
		for {
			var obj struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name      string `json:"name"`
					Namespace string `json:"namespace"`
				} `json:"metadata"`
			}
			if err := dec.Decode(&obj); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return "", "", nil, fmt.Errorf("%s: %w", f, err)
			}
			if obj.Kind == "ServiceAccount" && !found {
				found = true
				sa = obj.Metadata.Name
				if obj.Metadata.Namespace != "" {
					ns = obj.Metadata.Namespace
				}
			}
		}
	}
	if len(docs) > 0 && !found {
		// Shipped RBAC without its ServiceAccount: bind it to the default.
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: %s\n  namespace: %s\n", sa, ns))
	}
	return ns, sa, docs, nil
}

// testRBAC grants the operator ServiceAccount what the operator's roles use;
// it stands in until deploy/rbac exists.
func testRBAC(ns, sa string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: ServiceAccount
metadata:
  name: %[2]s
  namespace: %[1]s
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: cfzt-e2e-operator
rules:
  - apiGroups: [cfzt.cloudflare.com]
    resources: ["*"]
    verbs: ["*"]
  - apiGroups: [""]
    resources: [secrets, configmaps, events, services, namespaces]
    verbs: ["*"]
  - apiGroups: [events.k8s.io]
    resources: [events]
    verbs: ["*"]
  - apiGroups: [gateway.networking.k8s.io]
    resources: ["*"]
    verbs: ["*"]
  - apiGroups: [apps]
    resources: [deployments]
    verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: cfzt-e2e-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cfzt-e2e-operator
subjects:
  - kind: ServiceAccount
    name: %[2]s
    namespace: %[1]s
`, ns, sa)
}

// BaseEnv is the environment RunPlaybook gives cfzt-runner before env is
// applied: the operator's Kubernetes credentials (K8S_AUTH_HOST,
// K8S_AUTH_API_KEY with the operator ServiceAccount's token,
// K8S_AUTH_SSL_CA_CERT), OPERATOR_NAMESPACE, POD_NAME, ANSIBLE_ROLES_PATH
// (ansible/roles) and ANSIBLE_NOCOLOR.
func (h *Harness) BaseEnv() map[string]string {
	return map[string]string{
		"K8S_AUTH_HOST":             h.Cluster.Host,
		"K8S_AUTH_API_KEY":          h.Cluster.OperatorToken,
		"K8S_AUTH_SSL_CA_CERT":      h.Cluster.CAFile,
		"K8S_AUTH_VERIFY_SSL":       "true",
		"OPERATOR_NAMESPACE":        h.Namespace,
		"POD_NAME":                  DefaultPodName,
		"ANSIBLE_ROLES_PATH":        filepath.Join(h.Root, "ansible", "roles"),
		"ANSIBLE_NOCOLOR":           "1",
		"ANSIBLE_FORCE_COLOR":       "0",
		"ANSIBLE_HOST_KEY_CHECKING": "False",
	}
}

// inheritedEnv is the test process's environment without variables that
// would change how a playbook authenticates or behaves.
func inheritedEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "K8S_AUTH_"), strings.HasPrefix(name, "ANSIBLE_"),
			strings.HasPrefix(name, "CLOUDFLARE_"), name == "KUBECONFIG",
			name == "OPERATOR_NAMESPACE", name == "POD_NAME", name == "ROLE":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// RunPlaybook runs cfzt-runner with args (options such as "-v" or "-e",
// placed before the playbook) on playbook (relative paths resolve against
// the repository root), in the repository root,
// with BaseEnv overridden by env (an empty value removes a variable). It
// returns stdout and stderr interleaved, and the exit code (-1 if the binary
// could not be run, with the reason in the output).
func (h *Harness) RunPlaybook(ctx context.Context, playbook string, env map[string]string, args ...string) (string, int) {
	return h.run(ctx, h.Runner, playbook, env, args...)
}

// RunBinary is RunPlaybook with another ansible-playbook compatible binary,
// e.g. the oracle from hack/install-oracle.sh.
func (h *Harness) RunBinary(ctx context.Context, binary, playbook string, env map[string]string, args ...string) (string, int) {
	return h.run(ctx, binary, playbook, env, args...)
}

func (h *Harness) run(ctx context.Context, binary, playbook string, env map[string]string, args ...string) (string, int) {
	if !filepath.IsAbs(playbook) {
		playbook = filepath.Join(h.Root, playbook)
	}
	// Options go before the playbook, which every ansible-playbook accepts.
	cmd := exec.CommandContext(ctx, binary, append(append([]string{}, args...), playbook)...)
	cmd.Dir = h.Root
	cmd.Env = h.commandEnv(env)
	cmd.WaitDelay = 5 * time.Second
	var out SyncBuffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return out.String(), exit.ExitCode()
	default:
		return out.String() + "\n[e2e] " + err.Error(), -1
	}
}

// commandEnv is BaseEnv overridden by env (an empty value removes a
// variable) on top of the inherited environment.
func (h *Harness) commandEnv(env map[string]string) []string {
	merged := h.BaseEnv()
	for k, v := range env {
		merged[k] = v
	}
	cmdEnv := inheritedEnv()
	for k, v := range merged {
		if v != "" {
			cmdEnv = append(cmdEnv, k+"="+v)
		}
	}
	return cmdEnv
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Dynamic returns a dynamic client authenticated as admin, for test setup
// and assertions.
func (h *Harness) Dynamic() dynamic.Interface {
	d, err := h.Cluster.Dynamic()
	if err != nil {
		panic(err) // only fails on an invalid rest.Config, which Start built
	}
	return d
}

// Kube returns a typed clientset authenticated as admin.
func (h *Harness) Kube() kubernetes.Interface {
	return kubernetes.NewForConfigOrDie(h.Cluster.AdminConfig)
}

// EnsureNamespace creates namespace ns if it does not exist.
func (h *Harness) EnsureNamespace(ctx context.Context, ns string) error {
	_, err := h.Kube().CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// CreateCredentialSecret creates (or replaces) the Secret namespace/name
// holding a Cloudflare API token under key "token", the shape a tenant's
// credentialRef points at. The namespace is created if needed.
func (h *Harness) CreateCredentialSecret(ctx context.Context, namespace, name, token string) error {
	if err := h.EnsureNamespace(ctx, namespace); err != nil {
		return err
	}
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"token": []byte(token)},
	}
	secrets := h.Kube().CoreV1().Secrets(namespace)
	_, err := secrets.Create(ctx, sec, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = secrets.Update(ctx, sec, metav1.UpdateOptions{})
	}
	return err
}
