package adversarial

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/cfzt/cfzt-runner/internal/e2e"
)

const (
	kubeWorker       = "ansible/playbooks/kube_worker.yml"
	cloudflareWorker = "ansible/playbooks/cloudflare_worker.yml"
	prefix           = e2e.AnnotationPrefix
	// credSecret is the name of every tenant's API-token Secret.
	credSecret = "cf-token"
)

var (
	routeGVR  = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}
	tenantGVR = schema.GroupVersionResource{Group: "cfzt.cloudflare.com", Version: "v1alpha1", Resource: "cloudflarezerotrusttenants"}
	taskGVR   = e2e.CloudflareTaskGVR
)

// arena is one test's setting: a simulator (one account) and the
// namespaces whose tenants share it, each watched by the operator.
type arena struct {
	t   *testing.T
	ctx context.Context
	sim *e2e.Sim
	nss []string
	env map[string]string
}

func newArena(t *testing.T) *arena {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	t.Cleanup(cancel)
	a := &arena{t: t, ctx: ctx, sim: e2e.StartSim(t)}
	t.Cleanup(a.cleanup)
	return a
}

// tenant creates namespace ns, its API-token Secret (the account's token)
// and a tenant "acme" on the simulator's account and tunnel, and adds ns to
// WATCH_NAMESPACES.
func (a *arena) tenant(ns string) {
	a.t.Helper()
	require.NoError(a.t, h.CreateCredentialSecret(a.ctx, ns, credSecret, a.sim.Token))
	a.apply(a.sim.TenantYAML(ns, "acme", credSecret, ""))
	a.nss = append(a.nss, ns)
	a.env = a.sim.Env()
	a.env["WATCH_NAMESPACES"] = strings.Join(a.nss, ",")
}

// cleanup removes the test's tasks and state ConfigMaps from the operator
// namespace (namespaces cannot be deleted on a bare apiserver).
func (a *arena) cleanup() {
	ctx := context.Background()
	for _, ns := range a.nss {
		sel := metav1.ListOptions{LabelSelector: prefix + "route-namespace=" + ns}
		_ = h.Dynamic().Resource(taskGVR).Namespace(h.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, sel)
		_ = h.Kube().CoreV1().ConfigMaps(h.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, sel)
	}
}

// apply server-side-applies YAML documents as admin.
func (a *arena) apply(docs ...string) {
	a.t.Helper()
	require.NoError(a.t, h.Cluster.ApplyYAML(a.ctx, strings.Join(docs, "\n---\n")))
}

func route(ns, name string, ann map[string]string) string { return e2e.RouteYAML(ns, name, ann) }

// run runs one playbook as the operator and returns its output; the test
// fails when the playbook fails.
func (a *arena) run(playbook string, extra ...string) string {
	a.t.Helper()
	var args []string
	for _, e := range extra {
		args = append(args, "-e", e)
	}
	out, code := h.RunPlaybook(a.ctx, playbook, a.env, args...)
	require.Equal(a.t, 0, code, "%s failed:\n%s", playbook, out)
	return out
}

// cycle runs a kube_worker cycle and, when tasks are left, a
// cloudflare_worker cycle; it reports whether tasks were left.
func (a *arena) cycle() bool {
	a.t.Helper()
	a.run(kubeWorker)
	if len(a.tasks()) == 0 {
		return false
	}
	a.run(cloudflareWorker, `{"cf_api_retry_delays": [0, 0, 0]}`)
	return true
}

// converge runs cycles until a kube_worker cycle queues nothing.
func (a *arena) converge() {
	a.t.Helper()
	for i := 0; i < 8; i++ {
		if !a.cycle() {
			return
		}
	}
	a.t.Fatalf("not converged after 8 cycles; %d task(s) left", len(a.tasks()))
}

func (a *arena) tasks() []unstructured.Unstructured {
	a.t.Helper()
	var out []unstructured.Unstructured
	for _, ns := range a.nss {
		l, err := h.Dynamic().Resource(taskGVR).Namespace(h.Namespace).List(a.ctx, metav1.ListOptions{LabelSelector: prefix + "route-namespace=" + ns})
		require.NoError(a.t, err)
		out = append(out, l.Items...)
	}
	return out
}

// annotations of route ns/name.
func (a *arena) annotations(ns, name string) map[string]string {
	a.t.Helper()
	r, err := h.Dynamic().Resource(routeGVR).Namespace(ns).Get(a.ctx, name, metav1.GetOptions{})
	require.NoError(a.t, err)
	return r.GetAnnotations()
}

// ids returns the operator's annotations of route ns/name (without the
// prefix): the IDs an attacker would copy.
func (a *arena) ids(ns, name string) map[string]string {
	out := map[string]string{}
	for k, v := range a.annotations(ns, name) {
		short := strings.TrimPrefix(k, prefix)
		switch short {
		case "hostnameRouteId", "cnameRecordId", "dnsRecordId", "accessAppId", "accessPolicyIds", "serviceTokenId", "serviceTokenSecretName":
			out[short] = v
		}
	}
	return out
}

// events returns the Events in ns regarding object kind/name with reason.
func (a *arena) events(ns, kind, name, reason string) []eventsv1.Event {
	a.t.Helper()
	l, err := h.Kube().EventsV1().Events(ns).List(a.ctx, metav1.ListOptions{})
	require.NoError(a.t, err)
	var out []eventsv1.Event
	for _, e := range l.Items {
		if e.Regarding.Kind == kind && e.Regarding.Name == name && e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

// tenantErrors returns status.errors of tenant ns/acme as "route reason"
// strings, and its Ready condition.
func (a *arena) tenantErrors(ns string) ([]string, map[string]any) {
	a.t.Helper()
	o, err := h.Dynamic().Resource(tenantGVR).Namespace(ns).Get(a.ctx, "acme", metav1.GetOptions{})
	require.NoError(a.t, err)
	errs, _, _ := unstructured.NestedSlice(o.Object, "status", "errors")
	var out []string
	for _, e := range errs {
		m, _ := e.(map[string]any)
		out = append(out, fmt.Sprint(m["route"], " ", m["reason"]))
	}
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
			return out, m
		}
	}
	return out, nil
}

// --- what must not change ---------------------------------------------

// cloudflare renders the simulator's full state as JSON, less the objects
// of the attacker: DNS records and Access applications (with their
// policies) of the given hostnames, service tokens of the given names, and
// the tunnel ingress rules of the hostnames. The tunnel configuration's
// version and time stamp are left out, since the attacker's own rule
// changes them.
func (a *arena) cloudflare(hosts, tokens []string) string {
	a.t.Helper()
	raw, err := json.Marshal(a.sim.State())
	require.NoError(a.t, err)
	var st map[string]any
	require.NoError(a.t, json.Unmarshal(raw, &st))
	in := func(list []string, s any) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	}
	keep := func(key string, drop func(map[string]any) bool) {
		items, _ := st[key].([]any)
		kept := []any{}
		for _, it := range items {
			if m, ok := it.(map[string]any); !ok || !drop(m) {
				kept = append(kept, it)
			}
		}
		st[key] = kept
	}
	obj := func(m map[string]any) map[string]any { o, _ := m["object"].(map[string]any); return o }
	dropped := []string{}
	keep("dns_records", func(m map[string]any) bool { return in(hosts, obj(m)["name"]) })
	keep("access_applications", func(m map[string]any) bool {
		if in(hosts, obj(m)["domain"]) {
			dropped = append(dropped, fmt.Sprint(obj(m)["id"]))
			return true
		}
		return false
	})
	keep("access_policies", func(m map[string]any) bool { return in(dropped, m["app_id"]) })
	keep("service_tokens", func(m map[string]any) bool { return in(tokens, obj(m)["name"]) })
	tunnels, _ := st["tunnels"].([]any)
	for _, tu := range tunnels {
		m, _ := tu.(map[string]any)
		cfg, _ := m["configuration"].(map[string]any)
		if cfg == nil {
			continue
		}
		delete(cfg, "version")
		delete(cfg, "created_at")
		c, _ := cfg["config"].(map[string]any)
		if c == nil {
			continue
		}
		rules, _ := c["ingress"].([]any)
		kept := []any{}
		for _, r := range rules {
			if rm, ok := r.(map[string]any); !ok || !in(hosts, rm["hostname"]) {
				kept = append(kept, r)
			}
		}
		c["ingress"] = kept
	}
	out, err := json.MarshalIndent(st, "", " ")
	require.NoError(a.t, err)
	return string(out)
}

// kube renders the victim's Kubernetes objects: every HTTPRoute and Secret
// of namespace ns (name, UID, resourceVersion, annotations or a digest of
// the data), the state ConfigMaps and CloudflareTasks of its routes in the
// operator namespace, less the attacker's own routes and what belongs to
// them. Any write by the operator changes a resourceVersion.
func (a *arena) kube(ns string, atk attacker) string {
	a.t.Helper()
	mine := func(name string) bool {
		for _, r := range atk.routes {
			if name == r || name == r+"-cfzt-service-token" {
				return true
			}
		}
		return false
	}
	var lines []string
	routes, err := h.Dynamic().Resource(routeGVR).Namespace(ns).List(a.ctx, metav1.ListOptions{})
	require.NoError(a.t, err)
	for _, r := range routes.Items {
		if mine(r.GetName()) {
			continue
		}
		ann, _ := json.Marshal(r.GetAnnotations())
		lines = append(lines, fmt.Sprintf("route %s uid=%s rv=%s %s", r.GetName(), r.GetUID(), r.GetResourceVersion(), ann))
	}
	secrets, err := h.Kube().CoreV1().Secrets(ns).List(a.ctx, metav1.ListOptions{})
	require.NoError(a.t, err)
	for _, s := range secrets.Items {
		if mine(s.Name) {
			continue
		}
		d, _ := json.Marshal(s.Data)
		sum := sha256.Sum256(d)
		lines = append(lines, fmt.Sprintf("secret %s uid=%s rv=%s data=%s", s.Name, s.UID, s.ResourceVersion, hex.EncodeToString(sum[:8])))
	}
	sel := metav1.ListOptions{LabelSelector: prefix + "route-namespace=" + ns}
	cms, err := h.Kube().CoreV1().ConfigMaps(h.Namespace).List(a.ctx, sel)
	require.NoError(a.t, err)
	for _, c := range cms.Items {
		if mine(c.Data["httproute_name"]) {
			continue
		}
		d, _ := json.Marshal(c.Data)
		lines = append(lines, fmt.Sprintf("state %s uid=%s rv=%s %s", c.Name, c.UID, c.ResourceVersion, d))
	}
	tasks, err := h.Dynamic().Resource(taskGVR).Namespace(h.Namespace).List(a.ctx, sel)
	require.NoError(a.t, err)
	for _, t := range tasks.Items {
		if ref, _, _ := unstructured.NestedString(t.Object, "spec", "httprouteRef", "name"); mine(ref) {
			continue
		}
		lines = append(lines, fmt.Sprintf("task %s rv=%s", t.GetName(), t.GetResourceVersion()))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// snapshot is what the victim has before an attack.
type snapshot struct {
	cloudflare string
	kube       map[string]string
}

// attacker describes the attacker's own routes (by name, in any
// namespace, with their token Secrets and state) and what they may create
// in Cloudflare: hostnames and service-token names.
type attacker struct {
	routes []string
	hosts  []string
	tokens []string
}

func (a *arena) snapshot(atk attacker, victimNamespaces ...string) snapshot {
	a.t.Helper()
	s := snapshot{cloudflare: a.cloudflare(atk.hosts, atk.tokens), kube: map[string]string{}}
	for _, ns := range victimNamespaces {
		s.kube[ns] = a.kube(ns, atk)
	}
	return s
}

// requireUntouched fails when anything outside the attacker's own route
// differs from the snapshot: in Cloudflare, or among the victim's objects.
func (a *arena) requireUntouched(before snapshot, atk attacker) {
	a.t.Helper()
	require.Equal(a.t, before.cloudflare, a.cloudflare(atk.hosts, atk.tokens), "Cloudflare objects outside the attacker's route changed")
	for ns, k := range before.kube {
		require.Equal(a.t, k, a.kube(ns, atk), "the victim's Kubernetes objects in %s changed", ns)
	}
}

// sub runs f as subtest name with the arena reporting to the subtest.
func (a *arena) sub(name string, f func()) {
	parent := a.t
	parent.Run(name, func(t *testing.T) {
		a.t = t
		defer func() { a.t = parent }()
		f()
	})
}

// fullStack is a route with a tunnel rule, CNAME, Access application and
// policies and a service token.
func fullStack(host string) map[string]string {
	return map[string]string{"enabled": "true", "hostname": host, "access.enabled": "true",
		"access.allowEmails": "ops@example.com", "serviceToken.enabled": "true"}
}

// apps returns the IDs of the Access applications whose domain is host.
func (a *arena) apps(host string) []string {
	var out []string
	for _, x := range a.sim.State().AccessApplications {
		if x.Object.Domain == host {
			out = append(out, x.Object.ID)
		}
	}
	return out
}

// tokens counts the service tokens named name.
func (a *arena) tokens(name string) int {
	n := 0
	for _, x := range a.sim.State().ServiceTokens {
		if x.Object.Name == name {
			n++
		}
	}
	return n
}
