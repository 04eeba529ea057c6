package operator

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
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
	"k8s.io/client-go/dynamic"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
	"github.com/cfzt/cfzt-runner/internal/e2e"
)

const (
	kubeWorker       = "ansible/playbooks/kube_worker.yml"
	cloudflareWorker = "ansible/playbooks/cloudflare_worker.yml"
	managerPlaybook  = "ansible/playbooks/manager.yml"
	reconcile        = "ansible/playbooks/reconcile.yml"
	prefix           = "cfzt.cloudflare.com/"
	credSecret       = "cf-token"
	tenantName       = "acme"
)

var (
	routeGVR    = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}
	tenantGVR   = schema.GroupVersionResource{Group: "cfzt.cloudflare.com", Version: "v1alpha1", Resource: "cloudflarezerotrusttenants"}
	templateGVR = schema.GroupVersionResource{Group: "cfzt.cloudflare.com", Version: "v1alpha1", Resource: "cloudflarezerotrusttemplates"}
	configGVR   = schema.GroupVersionResource{Group: "cfzt.cloudflare.com", Version: "v1alpha1", Resource: "cloudflarezerotrustoperatorconfigs"}
	taskGVR     = e2e.CloudflareTaskGVR
)

// world is one test's setting: a simulator, the namespaces it watches, and
// the environment the tiers run with.
type world struct {
	t   *testing.T
	ctx context.Context
	sim *e2e.Sim
	ns  string   // the main namespace, with tenant "acme"
	nss []string // every watched namespace
	env map[string]string
}

// newWorld starts a simulator and creates namespace ns with the API-token
// Secret and the tenant "acme" (the simulator's account and tunnel). Extra
// watched namespaces can be added with watch.
func newWorld(t *testing.T, ns string, opts ...cfsim.Option) *world {
	t.Helper()
	return newWorldWithSeed(t, ns, nil, opts...)
}

// newWorldWithSeed is newWorld with the simulator's default seed changed by
// extend first (see e2e.StartSimWithSeed).
func newWorldWithSeed(t *testing.T, ns string, extend func(*cfsim.Seed), opts ...cfsim.Option) *world {
	t.Helper()
	limit := 4 * time.Minute
	if os.Getenv("CFZT_E2E_RUNNER") == "oracle" {
		limit = 40 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	w := &world{t: t, ctx: ctx, sim: e2e.StartSimWithSeed(t, extend, opts...), ns: ns}
	w.watch(ns)
	require.NoError(t, h.CreateCredentialSecret(ctx, ns, credSecret, w.sim.Token))
	w.apply(w.tenantYAML(ns, tenantName, ""))
	t.Cleanup(w.cleanup)
	return w
}

// watch adds namespace ns to WATCH_NAMESPACES (creating it).
func (w *world) watch(ns string) {
	require.NoError(w.t, h.EnsureNamespace(w.ctx, ns))
	w.nss = append(w.nss, ns)
	w.env = w.sim.Env()
	w.env["WATCH_NAMESPACES"] = strings.Join(w.nss, ",")
}

// cleanup removes the test's tasks and state ConfigMaps from the operator
// namespace (namespaces cannot be deleted on a bare apiserver).
func (w *world) cleanup() {
	ctx := context.Background()
	for _, ns := range w.nss {
		sel := metav1.ListOptions{LabelSelector: prefix + "route-namespace=" + ns}
		_ = h.Dynamic().Resource(taskGVR).Namespace(h.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, sel)
		_ = h.Kube().CoreV1().ConfigMaps(h.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, sel)
	}
}

func (w *world) tenantYAML(ns, name, extra string) string {
	return w.sim.TenantYAML(ns, name, credSecret, extra)
}

// apply server-side-applies YAML documents as admin (field manager
// "kubetest"): a later apply without an annotation removes it.
func (w *world) apply(docs ...string) {
	w.t.Helper()
	require.NoError(w.t, h.Cluster.ApplyYAML(w.ctx, strings.Join(docs, "\n---\n")))
}

// route is an HTTPRoute manifest with the given annotations (names without
// the cfzt.cloudflare.com/ prefix) and one backendRef NAME:8080.
func route(ns, name string, ann map[string]string) string { return e2e.RouteYAML(ns, name, ann) }

// run runs one playbook with the world's environment plus extra variables
// ("k=v" strings are passed with -e) and returns its output; it fails the
// test when the playbook fails.
func (w *world) run(playbook string, extra ...string) string {
	w.t.Helper()
	out, code := w.runCode(playbook, nil, extra...)
	require.Equal(w.t, 0, code, "%s failed:\n%s", playbook, out)
	return out
}

func (w *world) runCode(playbook string, env map[string]string, extra ...string) (string, int) {
	merged := map[string]string{}
	for k, v := range w.env {
		merged[k] = v
	}
	for k, v := range env {
		merged[k] = v
	}
	var args []string
	for _, e := range extra {
		args = append(args, "-e", e)
	}
	if os.Getenv("CFZT_E2E_RUNNER") == "oracle" {
		return h.RunOracle(w.ctx, playbook, merged, args...)
	}
	return h.RunPlaybook(w.ctx, playbook, merged, args...)
}

// cycle runs one kube_worker cycle and, when it left tasks, one
// cloudflare_worker cycle. It reports whether tasks were left.
func (w *world) cycle(extra ...string) bool {
	w.t.Helper()
	w.run(kubeWorker, extra...)
	if len(w.tasks()) == 0 {
		return false
	}
	w.run(cloudflareWorker, `{"cf_api_retry_delays": [0, 0, 0]}`)
	return true
}

// converge runs cycles until a kube_worker cycle queues nothing.
func (w *world) converge(extra ...string) {
	w.t.Helper()
	for i := 0; i < 8; i++ {
		if !w.cycle(extra...) {
			return
		}
	}
	w.t.Fatalf("not converged after 8 cycles; tasks left: %v", w.taskNames())
}

// tasks lists the CloudflareTasks of the watched namespaces' routes.
func (w *world) tasks() []unstructured.Unstructured {
	w.t.Helper()
	var out []unstructured.Unstructured
	for _, ns := range w.nss {
		l, err := w.res(taskGVR, h.Namespace).List(w.ctx, metav1.ListOptions{LabelSelector: prefix + "route-namespace=" + ns})
		require.NoError(w.t, err)
		out = append(out, l.Items...)
	}
	return out
}

func (w *world) taskNames() []string {
	var names []string
	for _, t := range w.tasks() {
		phase, _, _ := unstructured.NestedString(t.Object, "status", "phase")
		msg, _, _ := unstructured.NestedString(t.Object, "status", "message")
		names = append(names, t.GetName()+"="+phase+" "+msg)
	}
	return names
}

func (w *world) res(gvr schema.GroupVersionResource, ns string) dynamic.ResourceInterface {
	return h.Dynamic().Resource(gvr).Namespace(ns)
}

// get reads an object, or returns nil when it does not exist.
func (w *world) get(gvr schema.GroupVersionResource, ns, name string) *unstructured.Unstructured {
	w.t.Helper()
	o, err := w.res(gvr, ns).Get(w.ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	require.NoError(w.t, err)
	return o
}

// annotations of route ns/name (nil when the route is gone).
func (w *world) annotations(ns, name string) map[string]string {
	w.t.Helper()
	r := w.get(routeGVR, ns, name)
	if r == nil {
		return nil
	}
	return r.GetAnnotations()
}

// stateCM reads the state ConfigMap cfzt-NS.NAME (nil when absent).
func (w *world) stateCM(ns, name string) map[string]string {
	w.t.Helper()
	cm, err := h.Kube().CoreV1().ConfigMaps(h.Namespace).Get(w.ctx, "cfzt-"+ns+"."+name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	require.NoError(w.t, err)
	return cm.Data
}

// stateCMs counts the state ConfigMaps of the watched namespaces.
func (w *world) stateCMs() int {
	w.t.Helper()
	n := 0
	for _, ns := range w.nss {
		l, err := h.Kube().CoreV1().ConfigMaps(h.Namespace).List(w.ctx, metav1.ListOptions{LabelSelector: prefix + "route-namespace=" + ns})
		require.NoError(w.t, err)
		n += len(l.Items)
	}
	return n
}

func (w *world) deleteRoute(ns, name string) {
	w.t.Helper()
	require.NoError(w.t, w.res(routeGVR, ns).Delete(w.ctx, name, metav1.DeleteOptions{}))
}

// patchAnnotations merge-patches a route's annotations as admin (nil value
// removes the annotation).
func (w *world) patchAnnotations(ns, name string, ann map[string]any) {
	w.t.Helper()
	full := map[string]any{}
	for k, v := range ann {
		full[prefix+k] = v
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": full}})
	require.NoError(w.t, err)
	_, err = w.res(routeGVR, ns).Patch(w.ctx, name, types.MergePatchType, body, metav1.PatchOptions{})
	require.NoError(w.t, err)
}

// tenantStatus returns the status of tenant ns/name and its Ready condition.
func (w *world) tenantStatus(ns, name string) (map[string]any, map[string]any) {
	w.t.Helper()
	o := w.get(tenantGVR, ns, name)
	require.NotNil(w.t, o)
	st, _, _ := unstructured.NestedMap(o.Object, "status")
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
			return st, m
		}
	}
	return st, nil
}

// --- Cloudflare simulator views ---------------------------------------

// ingress returns the tunnel's ingress rule for hostname (nil when none).
func (w *world) ingress(tunnelID, hostname string) map[string]any {
	for _, tun := range w.sim.State().Tunnels {
		if tun.Tunnel.ID != tunnelID || tun.Configuration.Config == nil {
			continue
		}
		rules, _ := tun.Configuration.Config["ingress"].([]any)
		for _, r := range rules {
			if m, ok := r.(map[string]any); ok && m["hostname"] == hostname {
				return m
			}
		}
	}
	return nil
}

// dnsRecords returns the simulator's DNS records named name.
func (w *world) dnsRecords(name string) []cfsim.DNSRecord {
	var out []cfsim.DNSRecord
	for _, r := range w.sim.State().DNSRecords {
		if r.Object.Name == name {
			out = append(out, r.Object)
		}
	}
	return out
}

// apps returns the Access applications whose domain is domain.
func (w *world) apps(domain string) []cfsim.AccessApplication {
	var out []cfsim.AccessApplication
	for _, a := range w.sim.State().AccessApplications {
		if a.Object.Domain == domain {
			out = append(out, a.Object)
		}
	}
	return out
}

// appPolicies returns the app-scoped policies of app appID.
func (w *world) appPolicies(appID string) []cfsim.AccessPolicy {
	var out []cfsim.AccessPolicy
	for _, p := range w.sim.State().AccessPolicies {
		if p.AppID == appID {
			out = append(out, p.Policy)
		}
	}
	return out
}

// serviceTokens returns the simulator's service tokens named name.
func (w *world) serviceTokens(name string) []cfsim.ServiceToken {
	var out []cfsim.ServiceToken
	for _, t := range w.sim.State().ServiceTokens {
		if t.Object.Name == name {
			out = append(out, t.Object)
		}
	}
	return out
}

// requireCloudflareClean checks that nothing is left in Cloudflare for
// hostname: no tunnel rule, DNS record, Access app or service token.
func (w *world) requireCloudflareClean(hostname, tokenName string) {
	w.t.Helper()
	require.Nil(w.t, w.ingress(w.sim.TunnelID, hostname), "tunnel rule for %s left behind", hostname)
	require.Empty(w.t, w.dnsRecords(hostname), "DNS records for %s left behind", hostname)
	require.Empty(w.t, w.apps(hostname), "Access apps for %s left behind", hostname)
	if tokenName != "" {
		require.Empty(w.t, w.serviceTokens(tokenName), "service token %s left behind", tokenName)
	}
}

// includes renders a policy's include rules as "email:x", "group:id", ...
func includes(p cfsim.AccessPolicy) []string {
	var out []string
	for _, r := range p.Include {
		for k, v := range r {
			b, _ := json.Marshal(v)
			out = append(out, k+":"+string(b))
		}
	}
	sort.Strings(out)
	return out
}

func cfsimFault(status, count int) cfsim.Fault {
	return cfsim.Fault{Status: status, Count: count}
}

// deleteDNSRecord deletes a record behind the operator's back (drift).
func deleteDNSRecord(t *testing.T, w *world, zoneID, recordID string) {
	t.Helper()
	req, err := http.NewRequestWithContext(w.ctx, http.MethodDelete, w.sim.Base+"/zones/"+zoneID+"/dns_records/"+recordID, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+w.sim.Token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func sleepSeconds(n int) { time.Sleep(time.Duration(n) * time.Second) }
