package adversarial

// The fault tests' own harness. Every identifier starts with "fault" so
// that it cannot collide with the package's other test files; the
// cluster is the package's own (main_test.go).

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
	"github.com/cfzt/cfzt-runner/internal/e2e"
)

const (
	faultKubeWorker       = "ansible/playbooks/kube_worker.yml"
	faultCloudflareWorker = "ansible/playbooks/cloudflare_worker.yml"
	faultPrefix           = "cfzt.cloudflare.com/"
	faultCredSecret       = "cf-token"
	// Failed tasks are retried at the next cycle, and Cloudflare calls
	// without waiting: the tests count cycles, never time.
	faultKubeExtra       = `{"kw_retry_base_seconds": 0, "kw_retry_max_seconds": 0}`
	faultCloudflareExtra = `{"cf_api_retry_delays": [0, 0, 0]}`
)

var (
	faultRouteGVR  = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}
	faultTenantGVR = schema.GroupVersionResource{Group: "cfzt.cloudflare.com", Version: "v1alpha1", Resource: "cloudflarezerotrusttenants"}
)

// faultHarness is the package's cluster (real kube-apiserver, the
// operator's CRDs and RBAC) and the built cfzt-runner, started once by
// TestMain (main_test.go).
func faultHarness(t *testing.T) *e2e.Harness {
	t.Helper()
	require.NotNil(t, h, "the package's harness is not started")
	return h
}

// faultWorld is one test: a simulator, a namespace with the tenant "acme"
// and its API-token Secret, and the operator's tiers run one cycle at a
// time as the operator ServiceAccount.
type faultWorld struct {
	t   *testing.T
	ctx context.Context
	h   *e2e.Harness
	sim *e2e.Sim
	ns  string
	env map[string]string
}

func faultNewWorld(t *testing.T, ns string) *faultWorld {
	t.Helper()
	h := faultHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	t.Cleanup(cancel)
	w := &faultWorld{t: t, ctx: ctx, h: h, sim: e2e.StartSim(t), ns: ns}
	w.env = w.sim.Env()
	w.env["WATCH_NAMESPACES"] = ns
	require.NoError(t, h.CreateCredentialSecret(ctx, ns, faultCredSecret, w.sim.Token))
	w.apply(w.sim.TenantYAML(ns, "acme", faultCredSecret, ""))
	t.Cleanup(func() {
		bg := context.Background()
		sel := metav1.ListOptions{LabelSelector: faultPrefix + "route-namespace=" + ns}
		_ = h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace).DeleteCollection(bg, metav1.DeleteOptions{}, sel)
		_ = h.Kube().CoreV1().ConfigMaps(h.Namespace).DeleteCollection(bg, metav1.DeleteOptions{}, sel)
	})
	return w
}

func (w *faultWorld) apply(docs ...string) {
	w.t.Helper()
	require.NoError(w.t, w.h.Cluster.ApplyYAML(w.ctx, strings.Join(docs, "\n---\n")))
}

// faultRoute applies route name with annotations ann (without the prefix).
func (w *faultWorld) route(name string, ann map[string]string) {
	w.t.Helper()
	w.apply(e2e.RouteYAML(w.ns, name, ann))
}

func (w *faultWorld) patchRoute(name string, ann map[string]any) {
	w.t.Helper()
	full := map[string]any{}
	for k, v := range ann {
		full[faultPrefix+k] = v
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": full}})
	require.NoError(w.t, err)
	_, err = w.h.Dynamic().Resource(faultRouteGVR).Namespace(w.ns).Patch(w.ctx, name, types.MergePatchType, body, metav1.PatchOptions{})
	require.NoError(w.t, err)
}

func (w *faultWorld) deleteRoute(name string) {
	w.t.Helper()
	require.NoError(w.t, w.h.Dynamic().Resource(faultRouteGVR).Namespace(w.ns).Delete(w.ctx, name, metav1.DeleteOptions{}))
}

// run runs one playbook cycle and returns its output; the cycle itself
// must succeed (a task's failure is reported in its status).
func (w *faultWorld) run(playbook, extra string) string {
	w.t.Helper()
	out, code := w.h.RunPlaybook(w.ctx, playbook, w.env, "-e", extra)
	require.Equal(w.t, 0, code, "%s failed:\n%s", playbook, out)
	require.NotContains(w.t, out, w.sim.Token, "the API token reached the output of %s", playbook)
	return out
}

// cycle runs kube_worker, then cloudflare_worker when tasks are queued. It
// returns the cloudflare_worker output ("" when nothing was queued).
func (w *faultWorld) cycle() string {
	w.t.Helper()
	w.run(faultKubeWorker, faultKubeExtra)
	if len(w.tasks()) == 0 {
		return ""
	}
	return w.run(faultCloudflareWorker, faultCloudflareExtra)
}

// converge runs cycles until kube_worker queues nothing.
func (w *faultWorld) converge() {
	w.t.Helper()
	for i := 0; i < 8; i++ {
		w.run(faultKubeWorker, faultKubeExtra)
		if len(w.tasks()) == 0 {
			return
		}
		w.run(faultCloudflareWorker, faultCloudflareExtra)
	}
	w.t.Fatalf("not converged after 8 cycles: %v", w.taskSummary())
}

// tasks are the CloudflareTasks of the world's routes.
func (w *faultWorld) tasks() []unstructured.Unstructured {
	w.t.Helper()
	l, err := w.h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(w.h.Namespace).List(w.ctx,
		metav1.ListOptions{LabelSelector: faultPrefix + "route-namespace=" + w.ns})
	require.NoError(w.t, err)
	return l.Items
}

func (w *faultWorld) taskSummary() []string {
	var out []string
	for _, t := range w.tasks() {
		phase, _, _ := unstructured.NestedString(t.Object, "status", "phase")
		msg, _, _ := unstructured.NestedString(t.Object, "status", "message")
		out = append(out, t.GetName()+"="+phase+" "+msg)
	}
	return out
}

// annotations of route name (nil when it is gone).
func (w *faultWorld) annotations(name string) map[string]string {
	w.t.Helper()
	r, err := w.h.Dynamic().Resource(faultRouteGVR).Namespace(w.ns).Get(w.ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	require.NoError(w.t, err)
	return r.GetAnnotations()
}

// stateConfigMaps maps the route name of each state ConfigMap of the
// world's namespace to its data (found by label, whatever its name).
func (w *faultWorld) stateConfigMaps() map[string]map[string]string {
	w.t.Helper()
	l, err := w.h.Kube().CoreV1().ConfigMaps(w.h.Namespace).List(w.ctx,
		metav1.ListOptions{LabelSelector: faultPrefix + "route-namespace=" + w.ns})
	require.NoError(w.t, err)
	out := map[string]map[string]string{}
	for _, cm := range l.Items {
		out[cm.Data["httproute_name"]] = cm.Data
	}
	return out
}

// stateIDs maps each route of the world's namespace that has a state
// ConfigMap to the Cloudflare IDs recorded in it.
func (w *faultWorld) stateIDs() map[string]string {
	w.t.Helper()
	out := map[string]string{}
	for name, data := range w.stateConfigMaps() {
		out[name] = data["cloudflare_ids"]
	}
	return out
}

// snapshot is the simulator's full state as JSON, with what a
// reconcile may legitimately leave behind normalised away: a tunnel
// configuration without hostname rules (only the catch-all) is the same
// as none.
func (w *faultWorld) snapshot() string {
	w.t.Helper()
	raw, err := json.Marshal(w.sim.State())
	require.NoError(w.t, err)
	var st map[string]any
	require.NoError(w.t, json.Unmarshal(raw, &st))
	if tuns, ok := st["tunnels"].([]any); ok {
		for _, tun := range tuns {
			m, _ := tun.(map[string]any)
			if m == nil {
				continue
			}
			if !faultHasHostnameRules(m["configuration"]) {
				delete(m, "configuration")
			}
		}
	}
	out, err := json.MarshalIndent(st, "", "  ")
	require.NoError(w.t, err)
	return string(out)
}

func faultHasHostnameRules(cfg any) bool {
	m, _ := cfg.(map[string]any)
	if m == nil {
		return false
	}
	inner, _ := m["config"].(map[string]any)
	if inner == nil {
		return false
	}
	rules, _ := inner["ingress"].([]any)
	for _, r := range rules {
		if rm, ok := r.(map[string]any); ok && rm["hostname"] != nil {
			return true
		}
	}
	return false
}

// faultObjects counts what the simulator holds for host: tunnel rules, DNS
// records (by type), Access applications, their own policies, and service
// tokens named name.
type faultObjects struct {
	Rules    int
	Records  map[string][]cfsim.DNSRecord
	Apps     []cfsim.AccessApplication
	Policies []string
	Tokens   []cfsim.ServiceToken
}

func (w *faultWorld) objects(host, tokenName string) faultObjects {
	st := w.sim.State()
	o := faultObjects{Records: map[string][]cfsim.DNSRecord{}}
	for _, tun := range st.Tunnels {
		if tun.Configuration.Config == nil {
			continue
		}
		rules, _ := tun.Configuration.Config["ingress"].([]any)
		for _, r := range rules {
			if m, ok := r.(map[string]any); ok && m["hostname"] == host {
				o.Rules++
			}
		}
	}
	for _, r := range st.DNSRecords {
		if r.Object.Name == host {
			o.Records[r.Object.Type] = append(o.Records[r.Object.Type], r.Object)
		}
	}
	apps := map[string]bool{}
	for _, a := range st.AccessApplications {
		if a.Object.Domain == host {
			o.Apps = append(o.Apps, a.Object)
			apps[a.Object.ID] = true
		}
	}
	for _, p := range st.AccessPolicies {
		if apps[p.AppID] {
			o.Policies = append(o.Policies, p.Policy.ID)
		}
	}
	sort.Strings(o.Policies)
	for _, tok := range st.ServiceTokens {
		if tok.Object.Name == tokenName {
			o.Tokens = append(o.Tokens, tok.Object)
		}
	}
	return o
}

// faultedRequests lists "METHOD path -> fault" for every request an
// injected fault answered.
func (w *faultWorld) faultedRequests() []string {
	var out []string
	for _, r := range w.sim.Requests() {
		if r.Fault != "" {
			out = append(out, fmt.Sprintf("%s %s -> %s", r.Method, r.Path, r.Fault))
		}
	}
	return out
}

// faultGetOptions is the default GetOptions.
var faultGetOptions = metav1.GetOptions{}

// faultString reads a string field of an unstructured object.
func faultString(obj map[string]any, fields ...string) string {
	s, _, _ := unstructured.NestedString(obj, fields...)
	return s
}

// faultJSON encodes v compactly (for substring checks).
func faultJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
