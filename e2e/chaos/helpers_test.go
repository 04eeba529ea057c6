package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
	"github.com/cfzt/cfzt-runner/internal/e2e"
)

const (
	prefix     = "cfzt.cloudflare.com/"
	credSecret = "cf-token"
	reconcile  = "ansible/playbooks/reconcile.yml"
)

var routeGVR = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}

// routeKind is what a chaos route asks of Cloudflare.
type routeKind int

const (
	plainRoute  routeKind = iota // tunnel rule and CNAME
	accessRoute                  // plus an Access application and allow policy
	tokenRoute                   // plus a service token and its Service Auth policy
)

// world is one chaos test: a simulator, a namespace with a tenant and
// routes, and the operator's tiers running as long-lived processes that
// the test kills, doubles or starves.
type world struct {
	t      *testing.T
	ctx    context.Context
	sim    *e2e.Sim
	ns     string
	rng    *rand.Rand
	routes map[string]routeKind // live routes by name
	gone   map[string]bool      // deleted routes
	env    map[string]string
	extra  string
	procs  []*e2e.Process
	pods   int
}

// newWorld starts a simulator and a namespace with its tenant. The random
// source is seeded from CFZT_CHAOS_SEED, else the clock; the seed is logged
// so that a failing run can be replayed.
func newWorld(t *testing.T, ns string, opts ...cfsim.Option) *world {
	t.Helper()
	seed := time.Now().UnixNano()
	if s := os.Getenv("CFZT_CHAOS_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseInt(s, 10, 64)
		require.NoError(t, err, "CFZT_CHAOS_SEED")
	}
	t.Logf("chaos seed %d (CFZT_CHAOS_SEED=%d replays it)", seed, seed)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	w := &world{
		t: t, ctx: ctx, sim: e2e.StartSim(t, opts...), ns: ns, rng: rand.New(rand.NewSource(seed)),
		routes: map[string]routeKind{}, gone: map[string]bool{},
	}
	require.NoError(t, h.CreateCredentialSecret(ctx, ns, credSecret, w.sim.Token))
	require.NoError(t, h.Cluster.ApplyYAML(ctx, w.sim.TenantYAML(ns, "acme", credSecret, "")))
	w.env = map[string]string{
		"WATCH_NAMESPACES":    ns,
		"CLOUDFLARE_API_BASE": w.sim.Base,
		"TASK_LEASE_SECONDS":  "4",
		"LOG_LEVEL":           "WARNING",
	}
	// Short waits everywhere, so that a broken run converges in seconds:
	// Cloudflare retries, the Failed-task backoff and a dead lock holder.
	w.extra = `{"cf_api_retry_delays": [0, 1, 1], "kw_retry_base_seconds": 1, "kw_retry_max_seconds": 2, "cfw_lock_stale_checks": 14}`
	t.Cleanup(w.stopAll)
	return w
}

// hostname of route name.
func hostname(name string) string { return name + ".example.com" }

// addRoutes creates n routes named rNN, cycling through the three kinds.
func (w *world) addRoutes(n int) {
	w.t.Helper()
	var docs []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("r%02d", i)
		kind := routeKind(i % 3)
		w.routes[name] = kind
		ann := map[string]string{"enabled": "true", "hostname": hostname(name)}
		if kind >= accessRoute {
			ann["accessApp"] = "true"
			ann["allowEmails"] = "ops@example.com"
		}
		if kind == tokenRoute {
			ann["serviceToken"] = "true"
		}
		docs = append(docs, routeYAML(w.ns, name, ann))
	}
	require.NoError(w.t, h.Cluster.ApplyYAML(w.ctx, strings.Join(docs, "\n---\n")))
}

func routeYAML(ns, name string, ann map[string]string) string { return e2e.RouteYAML(ns, name, ann) }

// deleteRoute deletes route name.
func (w *world) deleteRoute(name string) {
	w.t.Helper()
	require.NoError(w.t, h.Dynamic().Resource(routeGVR).Namespace(w.ns).Delete(w.ctx, name, metav1.DeleteOptions{}))
	delete(w.routes, name)
	w.gone[name] = true
}

// start runs tier role (kube_worker or cloudflare_worker) as a long-lived
// `cfzt-runner --watch --interval 2` process with its own POD_NAME.
func (w *world) start(role string) *e2e.Process {
	w.t.Helper()
	w.pods++
	env := map[string]string{"ROLE": role, "POD_NAME": fmt.Sprintf("%s-%d", strings.ReplaceAll(role, "_", "-"), w.pods)}
	for k, v := range w.env {
		env[k] = v
	}
	p, err := h.StartPlaybook(w.ctx, reconcile, env, "--watch", "--interval", "2", "--backoff-max", "3s", "-e", w.extra)
	require.NoError(w.t, err)
	w.procs = append(w.procs, p)
	return p
}

// stopAll kills every process the test started; a failed test shows the
// end of each one's output.
func (w *world) stopAll() {
	for i, p := range w.procs {
		if p.Running() {
			p.Kill()
		}
		if w.t.Failed() {
			out := p.Output()
			if len(out) > 6000 {
				out = out[len(out)-6000:]
			}
			w.t.Logf("--- process %d, last output ---\n%s", i, out)
		}
	}
	// Later tests share the operator namespace: leave none of this test's
	// tasks or state behind.
	ctx := context.Background()
	sel := metav1.ListOptions{LabelSelector: prefix + "route-namespace=" + w.ns}
	_ = h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, sel)
	_ = h.Kube().CoreV1().ConfigMaps(h.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, sel)
}

// between is a random duration in [lo, hi).
func (w *world) between(lo, hi time.Duration) time.Duration {
	return lo + time.Duration(w.rng.Int63n(int64(hi-lo)))
}

// waitConverged polls until no CloudflareTask of the namespace is left,
// every live route has its state ConfigMap and its IDs written back, and
// every deleted route's state ConfigMap is gone.
func (w *world) waitConverged(timeout time.Duration) {
	w.t.Helper()
	deadline := time.Now().Add(timeout)
	var why string
	for {
		if why = w.notConverged(); why == "" {
			return
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("not converged after %s: %s", timeout, why)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func (w *world) notConverged() string {
	sel := metav1.ListOptions{LabelSelector: prefix + "route-namespace=" + w.ns}
	tasks, err := h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace).List(w.ctx, sel)
	if err != nil {
		return err.Error()
	}
	if n := len(tasks.Items); n > 0 {
		return fmt.Sprintf("%d tasks left, e.g. %s", n, tasks.Items[0].GetName())
	}
	cms, err := h.Kube().CoreV1().ConfigMaps(h.Namespace).List(w.ctx, sel)
	if err != nil {
		return err.Error()
	}
	state := map[string]bool{}
	for _, c := range cms.Items {
		state[c.Data["httproute_name"]] = true
	}
	for name := range w.routes {
		if !state[name] {
			return "no state ConfigMap for " + name
		}
		r, err := h.Dynamic().Resource(routeGVR).Namespace(w.ns).Get(w.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err.Error()
		}
		if r.GetAnnotations()[prefix+"lastReconcile"] == "" {
			return "no IDs written back to " + name
		}
	}
	for name := range w.gone {
		if state[name] {
			return "the state ConfigMap of deleted route " + name + " is left"
		}
	}
	return ""
}

// requireEndState checks Cloudflare and Kubernetes after convergence:
// every live route has exactly its objects, their IDs are the ones written
// back to the route and its state ConfigMap (nothing lost), deleted routes
// have nothing left, and nothing in Cloudflare belongs to no route (no
// orphans, no duplicates). No task is left, InProgress or otherwise.
func (w *world) requireEndState() {
	t := w.t
	t.Helper()
	st := w.sim.State()
	rules := map[string]int{}
	for _, tun := range st.Tunnels {
		if tun.Configuration.Config == nil {
			continue
		}
		list, _ := tun.Configuration.Config["ingress"].([]any)
		for _, r := range list {
			if m, ok := r.(map[string]any); ok && m["hostname"] != nil {
				rules[m["hostname"].(string)]++
			}
		}
	}
	records := map[string][]cfsim.DNSRecord{}
	for _, r := range st.DNSRecords {
		records[r.Object.Name] = append(records[r.Object.Name], r.Object)
	}
	apps := map[string][]cfsim.AccessApplication{}
	for _, a := range st.AccessApplications {
		apps[a.Object.Domain] = append(apps[a.Object.Domain], a.Object)
	}
	tokens := map[string][]cfsim.ServiceToken{}
	for _, tok := range st.ServiceTokens {
		tokens[tok.Object.Name] = append(tokens[tok.Object.Name], tok.Object)
	}
	policies := map[string][]string{}
	for _, p := range st.AccessPolicies {
		policies[p.AppID] = append(policies[p.AppID], p.Policy.ID)
	}

	for name, kind := range w.routes {
		host := hostname(name)
		require.Equal(t, 1, rules[host], "tunnel rules for %s", host)
		require.Len(t, records[host], 1, "DNS records for %s", host)
		ann := w.annotations(name)
		cm := w.stateIDs(name)
		require.Equal(t, records[host][0].ID, ann[prefix+"cnameRecordId"], "CNAME ID of %s", name)
		require.Equal(t, records[host][0].ID, cm["cnameRecordId"], "CNAME ID of %s in its state", name)
		if kind == plainRoute {
			require.Empty(t, apps[host], "Access apps of %s", host)
			continue
		}
		require.Len(t, apps[host], 1, "Access apps of %s", host)
		app := apps[host][0]
		require.Equal(t, app.ID, ann[prefix+"accessAppId"], "app ID of %s", name)
		require.Equal(t, app.ID, cm["accessAppId"])
		want := 1
		if kind == tokenRoute {
			want = 2
		}
		require.Len(t, policies[app.ID], want, "policies of %s", host)
		require.ElementsMatch(t, policies[app.ID], strings.Split(ann[prefix+"accessPolicyIds"], ","), "policy IDs of %s", name)
		if kind == tokenRoute {
			toks := tokens[name+"-service-token"]
			require.Len(t, toks, 1, "service tokens of %s", name)
			require.Equal(t, toks[0].ID, ann[prefix+"serviceTokenId"])
			require.Equal(t, toks[0].ID, cm["serviceTokenId"])
			sec, err := h.Kube().CoreV1().Secrets(w.ns).Get(w.ctx, name+"-cfzt-service-token", metav1.GetOptions{})
			require.NoError(t, err, "the token Secret of %s", name)
			require.Equal(t, toks[0].ClientID, string(sec.Data["client_id"]))
			d := w.sim.Evaluate(cfsim.AccessRequest{Hostname: host, ClientID: toks[0].ClientID, ClientSecret: string(sec.Data["client_secret"])})
			require.True(t, d.Allowed, "the token of %s does not pass Access: %+v", name, d)
		}
	}

	// Nothing in Cloudflare that no live route accounts for.
	live := map[string]bool{}
	for name := range w.routes {
		live[hostname(name)] = true
	}
	for host := range rules {
		require.True(t, live[host], "orphaned tunnel rule %s", host)
	}
	for host := range records {
		require.True(t, live[host], "orphaned DNS record %s", host)
	}
	for host := range apps {
		require.True(t, live[host], "orphaned Access app %s", host)
	}
	for name := range tokens {
		kind, ok := w.routes[strings.TrimSuffix(name, "-service-token")]
		require.True(t, ok && kind == tokenRoute, "orphaned service token %s", name)
	}
	for name := range w.gone {
		_, err := h.Kube().CoreV1().Secrets(w.ns).Get(w.ctx, name+"-cfzt-service-token", metav1.GetOptions{})
		require.True(t, apierrors.IsNotFound(err), "the token Secret of deleted route %s is left", name)
	}
	left, err := h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace).List(w.ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, task := range left.Items {
		require.False(t, strings.HasPrefix(task.GetName(), "cfzt-"+w.ns+"."), "task %s left", task.GetName())
	}
}

func (w *world) annotations(name string) map[string]string {
	w.t.Helper()
	r, err := h.Dynamic().Resource(routeGVR).Namespace(w.ns).Get(w.ctx, name, metav1.GetOptions{})
	require.NoError(w.t, err)
	return r.GetAnnotations()
}

// stateIDs is the cloudflare_ids of route name's state ConfigMap.
func (w *world) stateIDs(name string) map[string]any {
	w.t.Helper()
	cm, err := h.Kube().CoreV1().ConfigMaps(h.Namespace).Get(w.ctx, "cfzt-"+w.ns+"."+name, metav1.GetOptions{})
	require.NoError(w.t, err)
	var ids map[string]any
	require.NoError(w.t, json.Unmarshal([]byte(cm.Data["cloudflare_ids"]), &ids))
	return ids
}

// inProgressRoute names the route whose task a worker is executing.
func (w *world) inProgressRoute() string {
	w.t.Helper()
	tasks, err := h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace).List(w.ctx,
		metav1.ListOptions{LabelSelector: prefix + "route-namespace=" + w.ns})
	require.NoError(w.t, err)
	for _, task := range tasks.Items {
		phase, _, _ := unstructured.NestedString(task.Object, "status", "phase")
		name, _, _ := unstructured.NestedString(task.Object, "spec", "httprouteRef", "name")
		if phase == "InProgress" {
			return name
		}
	}
	w.t.Fatal("no task is InProgress")
	return ""
}
