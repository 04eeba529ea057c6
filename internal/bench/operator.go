package bench

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
	"github.com/cfzt/cfzt-runner/internal/e2e"
	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

var (
	routeGVR  = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}
	tenantGVR = schema.GroupVersionResource{Group: "cfzt.cloudflare.com", Version: "v1alpha1", Resource: "cloudflarezerotrusttenants"}
	taskGVR   = e2e.CloudflareTaskGVR
)

// operatorNamespace is the roles' default OPERATOR_NAMESPACE.
const operatorNamespace = "cloudflare-zero-trust"

// operatorSizes are the route counts of scenario 4 (BENCH_OPERATOR_N).
func operatorSizes() []int {
	return sizesFrom("BENCH_OPERATOR_N", "10,100,1000")
}

// oracleMaxN is the largest N at which ansible-playbook runs every phase
// (BENCH_ORACLE_MAX_N, default 10): at N = 10 its first cloudflare_worker
// cycle already takes about 15 minutes, so all phases at N = 100 would
// take hours per run.
func oracleMaxN() int {
	return envInt("BENCH_ORACLE_MAX_N", 10)
}

// oracleSteadyMaxN is the largest N at which ansible-playbook runs phases
// 4 and 5, the steady state and the 10% change, on the state that
// cfzt-runner's phases 1 to 3 leave on the same YAML
// (BENCH_ORACLE_STEADY_MAX_N, default 100). These are the cycles an
// operator runs all day.
func oracleSteadyMaxN() int {
	return envInt("BENCH_ORACLE_STEADY_MAX_N", 100)
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n >= 0 {
		return n
	}
	return def
}

// operatorEnv is the shared state of scenarios 4 and 5: the apiserver with
// the operator's CRDs, the counting proxy and the Cloudflare simulator.
type operatorEnv struct {
	cluster  *kubetest.Cluster
	proxy    *KubeProxy
	sim      *cfsim.Server
	simSrv   *httptest.Server
	token    string
	tunnelID string
	dyn      dynamic.Interface
	kube     kubernetes.Interface
	// previous lists the namespaces of earlier runs, emptied at each run.
	previous []string
	// rolesPath is the repository's ansible/roles.
	rolesPath string
}

func (o *operatorEnv) close() {
	if o.simSrv != nil {
		o.simSrv.Close()
	}
	if o.proxy != nil {
		o.proxy.Close()
	}
	if o.cluster != nil {
		o.cluster.Stop()
	}
}

func startOperatorEnv(ctx context.Context, b *Bench) (*operatorEnv, error) {
	o := &operatorEnv{token: "cfzt-bench-token-0123456789abcdef", rolesPath: filepath.Join(b.Root, "ansible", "roles")}
	var err error
	fmt.Fprintf(b.Log, "  starting kube-apiserver (internal/kubetest) ...\n")
	if o.cluster, err = kubetest.Start(kubetest.Options{OperatorNamespace: operatorNamespace}); err != nil {
		return o, err
	}
	if o.proxy, err = StartKubeProxy(o.cluster, b.Work); err != nil {
		return o, err
	}
	if o.dyn, err = o.cluster.Dynamic(); err != nil {
		return o, err
	}
	if o.kube, err = kubernetes.NewForConfig(o.cluster.AdminConfig); err != nil {
		return o, err
	}
	docs := []string{fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", operatorNamespace)}
	files, _ := filepath.Glob(filepath.Join(b.Root, "deploy", "crds", "*.yaml"))
	testing, _ := filepath.Glob(filepath.Join(b.Root, "deploy", "crds", "testing", "*.yaml"))
	sort.Strings(files)
	for _, f := range append(files, testing...) {
		data, err := os.ReadFile(f)
		if err != nil {
			return o, err
		}
		docs = append(docs, string(data))
	}
	for _, d := range docs {
		if err := o.cluster.ApplyYAML(ctx, d); err != nil {
			return o, err
		}
	}
	for _, gvr := range []schema.GroupVersionResource{routeGVR, tenantGVR, taskGVR} {
		if err := waitListable(ctx, o.dyn, gvr); err != nil {
			return o, err
		}
	}
	if o.sim, err = cfsim.New(cfsim.WithSeed(e2e.DefaultSeed(o.token)), cfsim.WithRateLimit(0, 0)); err != nil {
		return o, err
	}
	o.simSrv = httptest.NewServer(o.sim)
	for _, t := range o.sim.State().Tunnels {
		if t.Tunnel.Name == e2e.TunnelName {
			o.tunnelID = t.Tunnel.ID
		}
	}
	return o, nil
}

func waitListable(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not served: %w", gvr.Resource, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// env is the environment of the roles for a run over namespaces.
func (o *operatorEnv) env(namespaces []string) map[string]string {
	env := o.proxy.Env()
	env["OPERATOR_NAMESPACE"] = operatorNamespace
	env["WATCH_NAMESPACES"] = strings.Join(namespaces, ",")
	env["CLOUDFLARE_API_BASE"] = o.simSrv.URL + cfsim.APIPrefix
	env["POD_NAME"] = "cfzt-bench-worker"
	env["LOG_LEVEL"] = "INFO"
	env["ANSIBLE_ROLES_PATH"] = o.rolesPath
	return env
}

// reset removes everything earlier runs left: their routes, tenants and
// Secrets, the CloudflareTasks and state ConfigMaps, and the simulator's
// objects. Namespaces stay (no namespace controller runs).
func (o *operatorEnv) reset(ctx context.Context) error {
	for _, ns := range o.previous {
		for _, gvr := range []schema.GroupVersionResource{routeGVR, tenantGVR} {
			if err := o.dyn.Resource(gvr).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
				return err
			}
		}
		if err := o.kube.CoreV1().Secrets(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			return err
		}
		if err := o.kube.CoreV1().ConfigMaps(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			return err
		}
	}
	o.previous = nil
	if err := o.dyn.Resource(taskGVR).Namespace(operatorNamespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return err
	}
	cms, err := o.kube.CoreV1().ConfigMaps(operatorNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, cm := range cms.Items {
		if strings.HasPrefix(cm.Name, "cfzt-") {
			if err := o.kube.CoreV1().ConfigMaps(operatorNamespace).Delete(ctx, cm.Name, metav1.DeleteOptions{}); err != nil {
				return err
			}
		}
	}
	o.sim.Reset()
	return nil
}

// routeAnnotations gives route i of a run its kind: plain, Access,
// service token or DNS-only, in turn.
func routeAnnotations(i int, host string) map[string]any {
	p := "cfzt.cloudflare.com/"
	a := map[string]any{p + "enabled": "true", p + "hostname": host}
	switch i % 4 {
	case 1:
		a[p+"accessApp"] = "true"
		a[p+"allowEmails"] = fmt.Sprintf("user%d@example.com,ops@example.com", i)
	case 2:
		a[p+"accessApp"] = "true"
		a[p+"serviceToken"] = "true"
	case 3:
		a[p+"dnsOnly.enabled"] = "true"
		a[p+"dnsIp"] = fmt.Sprintf("203.0.113.%d", i%250+1)
	}
	return a
}

// populate creates two tenant namespaces with n routes between them.
func (o *operatorEnv) populate(ctx context.Context, prefix string, n int) ([]string, error) {
	namespaces := []string{prefix + "-a", prefix + "-b"}
	for _, ns := range namespaces {
		if _, err := o.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
		o.previous = append(o.previous, ns)
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "cf-token", Namespace: ns}, StringData: map[string]string{"token": o.token}}
		if _, err := o.kube.CoreV1().Secrets(ns).Create(ctx, sec, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
		tenant := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "cfzt.cloudflare.com/v1alpha1", "kind": "CloudflareZeroTrustTenant",
			"metadata": map[string]any{"name": "tenant", "namespace": ns},
			"spec": map[string]any{"accountId": e2e.AccountID, "tunnelId": o.tunnelID,
				"credentialRef": map[string]any{"name": "cf-token"}},
		}}
		if _, err := o.dyn.Resource(tenantGVR).Namespace(ns).Create(ctx, tenant, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
	}
	for i := range n {
		ns := namespaces[i%2]
		zone := e2e.ZoneNames[i%len(e2e.ZoneNames)]
		route := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
			"metadata": map[string]any{"name": fmt.Sprintf("route-%04d", i), "namespace": ns,
				"annotations": routeAnnotations(i, fmt.Sprintf("app-%04d.%s", i, zone))},
			"spec": map[string]any{
				"parentRefs": []any{map[string]any{"name": "gateway"}},
				"hostnames":  []any{fmt.Sprintf("app-%04d.%s", i, zone)},
				"rules": []any{map[string]any{"backendRefs": []any{
					map[string]any{"name": fmt.Sprintf("svc-%04d", i), "port": int64(8080)}}}},
			},
		}}
		if _, err := o.dyn.Resource(routeGVR).Namespace(ns).Create(ctx, route, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
	}
	return namespaces, nil
}

// change edits every tenth route: a new e-mail list or DNS IP or a
// session duration, so each needs a Cloudflare update.
func (o *operatorEnv) change(ctx context.Context, namespaces []string, n, iter int) error {
	p := "cfzt.cloudflare.com/"
	for i := 0; i < n; i += 10 {
		var ann map[string]string
		switch i % 4 {
		case 1:
			ann = map[string]string{p + "allowEmails": fmt.Sprintf("changed%d-%d@example.com", iter, i)}
		case 3:
			ann = map[string]string{p + "dnsIp": fmt.Sprintf("198.51.100.%d", (i+iter)%250+1)}
		default:
			ann = map[string]string{p + "sessionDuration": fmt.Sprintf("%dh", 2+iter%20)}
		}
		patch := fmt.Sprintf(`{"metadata":{"annotations":%s}}`, jsonObject(ann))
		if _, err := o.dyn.Resource(routeGVR).Namespace(namespaces[i%2]).Patch(ctx, fmt.Sprintf("route-%04d", i),
			types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			return err
		}
	}
	return nil
}

func jsonObject(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, strconv.Quote(k)+":"+strconv.Quote(m[k]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// pendingTasks counts the CloudflareTasks in the operator namespace.
func (o *operatorEnv) pendingTasks(ctx context.Context) int {
	l, err := o.dyn.Resource(taskGVR).Namespace(operatorNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return -1
	}
	return len(l.Items)
}

func setupOperator(ctx context.Context, b *Bench) ([]Case, func(), error) {
	if missing := b.operatorPrereqs(false); len(missing) > 0 {
		return nil, nil, &MissingError{"needs " + strings.Join(missing, ", ")}
	}
	o, err := startOperatorEnv(ctx, b)
	if err != nil {
		return nil, o.close, err
	}
	kubeBook := filepath.Join(b.Root, "ansible", "playbooks", "kube_worker.yml")
	cfBook := filepath.Join(b.Root, "ansible", "playbooks", "cloudflare_worker.yml")
	var cases []Case
	for _, n := range operatorSizes() {
		cases = append(cases, Case{Name: fmt.Sprintf("N = %d", n), Run: func(ctx context.Context, r *Runner, iter int) ([]Sample, error) {
			// prepare: ansible-playbook runs phases 4 and 5 only, on the
			// state that cfzt-runner's phases 1 to 3 leave.
			prepare := false
			if r.Name == "ansible-playbook" && n > oracleMaxN() {
				if n > oracleSteadyMaxN() {
					return nil, nil
				}
				prepare = true
			}
			if err := o.reset(ctx); err != nil {
				return nil, err
			}
			short := "a"
			if r.Name == "cfzt-runner" {
				short = "c"
			}
			namespaces, err := o.populate(ctx, fmt.Sprintf("n%d-%s%d", n, short, iter), n)
			if err != nil {
				return nil, err
			}
			env := o.env(namespaces)
			var out []Sample
			phase := func(name, book string) bool {
				o.proxy.Take()
				if kubeLog != nil {
					fmt.Fprintf(kubeLog, "## %s N=%d %s\n", r.Name, n, name)
				}
				o.sim.ResetLog()
				if prepare && name[0] < '4' {
					s := b.RunPlaybook(ctx, b.Runners[1], filepath.Dir(book), book, env)
					if s.Failed != "" {
						out = append(out, Sample{Phase: name, Failed: "preparing with cfzt-runner: " + s.Failed})
						return false
					}
					return true
				}
				s := b.RunPlaybook(ctx, r, filepath.Dir(book), book, env)
				s.Phase = name
				s.Requests = o.proxy.Take()
				if cf := len(o.sim.Requests()); cf > 0 {
					s.Requests["cloudflare"] = cf
				}
				out = append(out, s)
				return s.Failed == ""
			}
			steps := []struct{ name, book string }{
				{"1 first kube_worker cycle", kubeBook},
				{"2 cloudflare_worker cycle", cfBook},
				{"3 collecting kube_worker cycle", kubeBook},
				{"4 steady-state kube_worker cycle", kubeBook},
				{"4 steady-state cloudflare_worker cycle", cfBook},
			}
			for _, st := range steps {
				if !phase(st.name, st.book) {
					return out, nil
				}
			}
			if left := o.pendingTasks(ctx); left != 0 {
				out[len(out)-1].Failed = fmt.Sprintf("not converged: %d CloudflareTasks left after the steady-state cycle", left)
				return out, nil
			}
			if err := o.change(ctx, namespaces, n, iter); err != nil {
				return nil, err
			}
			for _, st := range []struct{ name, book string }{
				{"5 after 10% changed: kube_worker", kubeBook},
				{"5 after 10% changed: cloudflare_worker", cfBook},
				{"5 after 10% changed: collecting kube_worker", kubeBook},
			} {
				if !phase(st.name, st.book) {
					return out, nil
				}
			}
			return out, nil
		}})
		switch {
		case n > oracleSteadyMaxN():
			cases[len(cases)-1].Notes = []string{fmt.Sprintf("ansible-playbook is not run above N = %d (BENCH_ORACLE_STEADY_MAX_N): its cycles would take hours", oracleSteadyMaxN())}
		case n > oracleMaxN():
			cases[len(cases)-1].Notes = []string{fmt.Sprintf("ansible-playbook runs phases 4 and 5 only, above N = %d (BENCH_ORACLE_MAX_N), on the state that cfzt-runner's phases 1 to 3 leave on the same YAML: its own phases 1 to 3 would take hours", oracleMaxN())}
		}
	}
	return cases, o.close, nil
}

// latencyEvents is the number of events per latency case
// (BENCH_LATENCY_EVENTS, default 20).
func latencyEvents() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_LATENCY_EVENTS")); err == nil && n > 0 {
		return n
	}
	return 20
}

// hasRule reports whether the tunnel's remote configuration routes host.
func (o *operatorEnv) hasRule(host string) bool {
	for _, t := range o.sim.State().Tunnels {
		rules, _ := t.Configuration.Config["ingress"].([]any)
		for _, r := range rules {
			if m, ok := r.(map[string]any); ok && m["hostname"] == host {
				return true
			}
		}
	}
	return false
}

// startTier starts one operator tier as a long-running cfzt-runner.
func (b *Bench) startTier(ctx context.Context, r *Runner, book string, env map[string]string, logFile string, args ...string) (*process, error) {
	argv := append(append(append([]string(nil), r.Command...), args...), book)
	f, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	defer f.Close() // the child has its own copy
	return b.start(ctx, r, filepath.Dir(book), env, argv, f, false)
}

func setupLatency(ctx context.Context, b *Bench) ([]Case, func(), error) {
	if missing := b.operatorPrereqs(true); len(missing) > 0 {
		return nil, nil, &MissingError{"needs " + strings.Join(missing, ", ")}
	}
	o, err := startOperatorEnv(ctx, b)
	if err != nil {
		return nil, o.close, err
	}
	kubeBook := filepath.Join(b.Root, "ansible", "playbooks", "kube_worker.yml")
	cfBook := filepath.Join(b.Root, "ansible", "playbooks", "cloudflare_worker.yml")
	events := latencyEvents()
	note := "wall is the latency from the annotation patch to the tunnel rule in the simulator, over %d events; peak RSS is the larger of the kube_worker and cloudflare_worker processes; ansible-playbook has no watch or loop mode"
	mk := func(id, name string, args ...string) Case {
		return Case{Name: name, Single: true, Notes: []string{fmt.Sprintf(note, events)}, Run: func(ctx context.Context, r *Runner, iter int) ([]Sample, error) {
			if r.Name != "cfzt-runner" {
				return nil, nil // ansible-playbook has no watch or loop mode
			}
			if err := o.reset(ctx); err != nil {
				return nil, err
			}
			prefix := "lat-" + id
			namespaces, err := o.populate(ctx, prefix, 0)
			if err != nil {
				return nil, err
			}
			// Routes that the operator ignores until they are annotated.
			for i := range events {
				route := &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
					"metadata": map[string]any{"name": fmt.Sprintf("route-%04d", i), "namespace": namespaces[i%2]},
					"spec": map[string]any{
						"parentRefs": []any{map[string]any{"name": "gateway"}},
						"rules": []any{map[string]any{"backendRefs": []any{
							map[string]any{"name": fmt.Sprintf("svc-%04d", i), "port": int64(8080)}}}},
					},
				}}
				if _, err := o.dyn.Resource(routeGVR).Namespace(namespaces[i%2]).Create(ctx, route, metav1.CreateOptions{}); err != nil {
					return nil, err
				}
			}
			env := o.env(namespaces)
			tctx, cancel := context.WithCancel(ctx)
			defer cancel()
			var tiers []*process
			var logs []string
			for _, book := range []string{kubeBook, cfBook} {
				log := filepath.Join(b.Work, fmt.Sprintf("%s-%s.log", prefix, strings.TrimSuffix(filepath.Base(book), ".yml")))
				logs = append(logs, log)
				cmd, err := b.startTier(tctx, r, book, env, log, args...)
				if err != nil {
					return nil, err
				}
				tiers = append(tiers, cmd)
			}
			// Let both tiers finish their first cycle.
			time.Sleep(5 * time.Second)
			var out []Sample
			interval := 0.0
			for i, a := range args {
				if a == "--interval" && i+1 < len(args) {
					interval, _ = strconv.ParseFloat(args[i+1], 64)
				}
			}
			for i := range events {
				if interval > 0 {
					// Annotate at a random point of the poll period.
					time.Sleep(time.Duration(float64(time.Second) * interval * float64((i*7919)%100) / 100))
				}
				host := fmt.Sprintf("%s-%04d.%s", prefix, i, e2e.ZoneNames[0])
				patch := fmt.Sprintf(`{"metadata":{"annotations":%s}}`, jsonObject(map[string]string{
					"cfzt.cloudflare.com/enabled": "true", "cfzt.cloudflare.com/hostname": host}))
				start := time.Now()
				if _, err := o.dyn.Resource(routeGVR).Namespace(namespaces[i%2]).Patch(ctx, fmt.Sprintf("route-%04d", i),
					types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
					return nil, err
				}
				deadline := start.Add(5*time.Minute + time.Duration(2*interval)*time.Second)
				for !o.hasRule(host) {
					if time.Now().After(deadline) || ctx.Err() != nil {
						cancel()
						for _, p := range tiers {
							_, _ = p.wait()
						}
						msg := fmt.Sprintf("no tunnel rule for %s after %v", host, time.Since(start).Round(time.Second))
						for _, l := range logs {
							data, _ := os.ReadFile(l)
							msg += fmt.Sprintf("\n--- end of %s:\n%s", filepath.Base(l), tail(string(data), 12))
						}
						return append(out, Sample{Failed: msg}), nil
					}
					time.Sleep(10 * time.Millisecond)
				}
				out = append(out, Sample{Wall: time.Since(start)})
			}
			cancel()
			var rss, anon int64
			for _, p := range tiers {
				s, _ := p.wait()
				rss, anon = max(rss, s.RSSKB), max(anon, s.AnonKB)
			}
			for i := range out {
				out[i].RSSKB, out[i].AnonKB = rss, anon
			}
			return out, nil
		}}
	}
	var cases []Case
	want := os.Getenv("BENCH_LATENCY_CASES") // watch, poll or both (default)
	if want == "" || strings.Contains(want, "watch") {
		cases = append(cases, mk("watch", "--watch: annotation to tunnel rule", "--watch"))
	}
	if want == "" || strings.Contains(want, "poll") {
		cases = append(cases, mk("poll", "--interval 60: annotation to tunnel rule", "--interval", "60"))
	}
	return cases, o.close, nil
}
