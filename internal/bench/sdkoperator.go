package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/cfzt/cfzt-runner/internal/gomod"
	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

// Scenario 8 runs operator-sdk's memcached sample operator, unchanged,
// with ansible-operator itself (which starts ansible-runner, which starts
// the reference ansible-playbook) and with `cfzt-runner operator`, on one
// kube-apiserver, at 1, 100 and 1,000 Memcached CRs.

var memcachedGVR = schema.GroupVersionResource{Group: "cache.example.com", Version: "v1alpha1", Resource: "memcacheds"}

// memcachedGVK is the GVK label of the Memcached kind in the reconcile
// metrics both runtimes serve.
const memcachedGVK = "cache.example.com/v1alpha1, Kind=Memcached"

// sdkResyncPeriod is the reconcile period the CRs carry (through
// ansible-operator's reconcile-period annotation, so that only the
// Memcached kind has it): short enough that each CR is queued again as
// soon as its reconcile ends, so that a resync pass costs what the runtime
// needs to reconcile every CR once more, not the period.
const sdkResyncPeriod = "1ms"

// sdkSizes are the CR counts of scenario 8 (BENCH_SDK_N).
func sdkSizes() []int {
	return sizesFrom("BENCH_SDK_N", "1,100,1000")
}

// sizesFrom parses a comma-separated list of positive counts from the
// environment variable name, or def.
func sizesFrom(name, def string) []int {
	spec := os.Getenv(name)
	if spec == "" {
		spec = def
	}
	var out []int
	for _, f := range strings.Split(spec, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// sdkOracleMaxN is the largest CR count ansible-operator runs at
// (BENCH_SDK_ORACLE_MAX_N, default 100): its first reconcile of 1,000 CRs
// takes more than an hour on a 2-core machine.
func sdkOracleMaxN() int { return envInt("BENCH_SDK_ORACLE_MAX_N", 100) }

// sdkResyncCount is how many reconciles the resync phase measures at N
// CRs: N, at least 10 (one CR's reconcile is too short to time alone) and
// at most BENCH_SDK_RESYNC_MAX (default 200); the pass over N CRs is
// extrapolated from them.
func sdkResyncCount(n int) int {
	return max(10, min(n, max(1, envInt("BENCH_SDK_RESYNC_MAX", 200))))
}

// sdkRuntime is one of the two operator runtimes.
type sdkRuntime struct {
	// runner is the bench runner it stands for; name is how tables name it.
	runner *Runner
	name   string
	// short tags the namespaces of its runs.
	short string
	// argv is the program and subcommand that run the operator.
	argv []string
	// version describes it for the report.
	version string
}

// sdkBench is the shared state of scenario 8.
type sdkBench struct {
	b        *Bench
	cluster  *kubetest.Cluster
	proxy    *KubeProxy
	dyn      dynamic.Interface
	kube     kubernetes.Interface
	sample   string
	cr       *unstructured.Unstructured
	runtimes map[string]*sdkRuntime // by runner name
}

func (s *sdkBench) close() {
	if s.proxy != nil {
		s.proxy.Close()
	}
	if s.cluster != nil {
		s.cluster.Stop()
	}
}

func setupSDK(ctx context.Context, b *Bench) ([]Case, func(), error) {
	mod, err := gomod.Download(gomod.AnsibleOperatorPlugins)
	if err != nil {
		return nil, nil, &MissingError{"needs operator-sdk's memcached sample: " + err.Error()}
	}
	s := &sdkBench{b: b, sample: filepath.Join(mod, gomod.MemcachedSample)}
	if s.runtimes, err = b.sdkRuntimes(); err != nil {
		return nil, nil, &MissingError{"needs ansible-operator: " + err.Error()}
	}
	images, err := b.imageSizes(ctx, s.runtimes[b.Runners[0].Name].argv[0])
	if err != nil {
		return nil, nil, err
	}
	if err := s.start(ctx); err != nil {
		return nil, s.close, err
	}
	notes := append([]string{
		fmt.Sprintf("runtimes: %s; %s", s.runtimes[b.Runners[0].Name].version, s.runtimes[b.Runners[1].Name].version),
		"first reconcile: from starting the operator, with N Memcached CRs already there, until every CR has the Successful condition; " +
			"resync: every CR carries the reconcile-period annotation " + sdkResyncPeriod + ", so it is queued again as soon as its reconcile ends; " +
			"the time of one pass over N CRs is measured over the next N successful reconciles (at least 10, at most BENCH_SDK_RESYNC_MAX, extrapolated to N) " +
			"from ansible_operator_reconcile_result on the operator's /metrics",
		"peak RSS: ru_maxrss of the largest process of the operator's tree; private RSS: the largest sum of RssAnon over the operator and all its child processes " +
			"(ansible-runner, ansible-playbook, modules), sampled every 10 ms; both for the whole run, on the first row",
	}, images...)
	var cases []Case
	for _, n := range sdkSizes() {
		c := Case{Name: fmt.Sprintf("N = %d", n), Single: n >= 100, Notes: notes,
			Run: func(ctx context.Context, r *Runner, iter int) ([]Sample, error) {
				rt := s.runtimes[r.Name]
				if r == b.Runners[0] && n > sdkOracleMaxN() {
					return nil, nil
				}
				return s.run(ctx, rt, n, iter)
			}}
		if n > sdkOracleMaxN() {
			c.Notes = append(append([]string(nil), notes...),
				fmt.Sprintf("ansible-operator is not run above N = %d (BENCH_SDK_ORACLE_MAX_N)", sdkOracleMaxN()))
		}
		cases = append(cases, c)
	}
	return cases, s.close, nil
}

// start starts the apiserver and the counting proxy and installs the
// sample's CRDs.
func (s *sdkBench) start(ctx context.Context) error {
	fmt.Fprintf(s.b.Log, "  starting kube-apiserver (internal/kubetest) ...\n")
	var err error
	if s.cluster, err = kubetest.Start(kubetest.Options{}); err != nil {
		return err
	}
	if s.proxy, err = StartKubeProxy(s.cluster, s.b.Work); err != nil {
		return err
	}
	if s.dyn, err = s.cluster.Dynamic(); err != nil {
		return err
	}
	if s.kube, err = kubernetes.NewForConfig(s.cluster.AdminConfig); err != nil {
		return err
	}
	crds, _ := filepath.Glob(filepath.Join(s.sample, "config", "crd", "bases", "*.yaml"))
	for _, f := range crds {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := s.cluster.ApplyYAML(ctx, string(data)); err != nil {
			return err
		}
	}
	if err := waitListable(ctx, s.dyn, memcachedGVR); err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(s.sample, "config", "samples", "cache_v1alpha1_memcached.yaml"))
	if err != nil {
		return err
	}
	s.cr = &unstructured.Unstructured{}
	return yaml.Unmarshal(data, &s.cr.Object)
}

// run measures one run of rt at n CRs: the first reconcile of every CR,
// then a resync pass, with the memory of the whole run.
func (s *sdkBench) run(ctx context.Context, rt *sdkRuntime, n, iter int) ([]Sample, error) {
	ns := fmt.Sprintf("sdk-n%d-%s%d", n, rt.short, iter)
	if err := s.populate(ctx, ns, n); err != nil {
		return nil, err
	}
	defer s.cleanup(context.WithoutCancel(ctx), ns)
	// The sample's role defines its metrics once per machine, when this
	// file is missing; both runtimes start without it.
	os.Remove("/tmp/metricsbumped")
	// ansible-operator's API proxy keeps its default port, 8888: the
	// kubeconfig it gives the roles names that port whatever --proxy-port
	// says (internal/ansible/controller/reconcile.go of v1.42.0).
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	metrics := "127.0.0.1:" + ports[0]
	argv := append(append([]string(nil), rt.argv...), "--watches-file=./watches.yaml",
		"--metrics-bind-address="+metrics, "--health-probe-bind-address=127.0.0.1:"+ports[1])
	env := map[string]string{"KUBECONFIG": s.proxy.Kubeconfig, "WATCH_NAMESPACE": ns,
		"ANSIBLE_ROLES_PATH": filepath.Join(s.sample, "roles")}
	logPath := filepath.Join(s.b.Work, ns+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	s.proxy.Take()
	p, err := s.b.start(runCtx, rt.runner, s.sample, env, argv, logFile, true)
	if err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	var final Sample
	go func() {
		final, _ = p.wait()
		close(exited)
	}()
	fail := func(phase string, err error) ([]Sample, error) {
		stop()
		<-exited
		data, _ := os.ReadFile(logPath)
		return []Sample{{Phase: phase, Failed: fmt.Sprintf("%v; log ends:\n%s", err, tail(string(data), 15))}}, nil
	}
	first := Sample{Phase: "first reconcile of every CR"}
	if err := s.waitSuccessful(ctx, ns, n, exited); err != nil {
		return fail(first.Phase, err)
	}
	first.Wall, first.Requests = time.Since(p.begun), s.proxy.Take()
	resync := Sample{Phase: "resync pass over every CR"}
	m := sdkResyncCount(n)
	took, err := waitReconciles(ctx, metrics, m, exited)
	if err != nil {
		return fail(resync.Phase, err)
	}
	resync.Wall = took * time.Duration(n) / time.Duration(m)
	if reqs := s.proxy.Take(); m == n {
		resync.Requests = reqs
	}
	stop()
	<-exited
	first.RSSKB, first.AnonKB = final.RSSKB, final.AnonKB
	return []Sample{first, resync}, nil
}

// populate creates namespace ns with n Memcached CRs made from the
// sample's CR (memcached-0000, ...), each with the resync annotation.
func (s *sdkBench) populate(ctx context.Context, ns string, n int) error {
	if _, err := s.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	return parallel(n, func(i int) error {
		cr := s.cr.DeepCopy()
		cr.SetName(fmt.Sprintf("memcached-%04d", i))
		cr.SetNamespace(ns)
		cr.SetAnnotations(map[string]string{"ansible.sdk.operatorframework.io/reconcile-period": sdkResyncPeriod})
		_, err := s.dyn.Resource(memcachedGVR).Namespace(ns).Create(ctx, cr, metav1.CreateOptions{})
		return err
	})
}

// cleanup removes what a run left in ns: the CRs (their finalizer taken
// off, as no operator runs any more) and the Deployments, Secrets and
// ConfigMaps the role created; no controller-manager runs to collect
// them. ansible-operator's runner artifacts go too.
func (s *sdkBench) cleanup(ctx context.Context, ns string) {
	res := s.dyn.Resource(memcachedGVR).Namespace(ns)
	if list, err := res.List(ctx, metav1.ListOptions{}); err == nil {
		_ = parallel(len(list.Items), func(i int) error {
			_, err := res.Patch(ctx, list.Items[i].GetName(), types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
			return err
		})
	}
	_ = res.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	_ = s.kube.AppsV1().Deployments(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	_ = s.kube.CoreV1().Secrets(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	_ = s.kube.CoreV1().ConfigMaps(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	os.RemoveAll("/tmp/ansible-operator/runner/cache.example.com")
}

// parallel calls fn(0) ... fn(n-1) from 8 goroutines and returns the
// first error.
func parallel(n int, fn func(int) error) error {
	work := make(chan int)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := fn(i); err != nil {
					mu.Lock()
					first = cmpOr(first, err)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	return first
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// errWatchClosed says the apiserver ended a watch, which is then started
// again.
var errWatchClosed = errors.New("watch closed")

// waitSuccessful watches the CRs of ns until all n have had the
// Successful condition, the operator exits or the time allowed for n CRs
// is over.
func (s *sdkBench) waitSuccessful(ctx context.Context, ns string, n int, exited <-chan struct{}) error {
	res := s.dyn.Resource(memcachedGVR).Namespace(ns)
	timeout := time.After(5*time.Minute + time.Duration(n)*20*time.Second)
	succeeded, failure := map[string]bool{}, ""
	note := func(cr *unstructured.Unstructured) {
		if conditionField(cr, "Successful", "status") == "True" {
			succeeded[cr.GetName()] = true
		} else if conditionField(cr, "Failure", "status") == "True" {
			failure = conditionField(cr, "Failure", "message")
		}
	}
	for {
		list, err := res.List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for i := range list.Items {
			note(&list.Items[i])
		}
		if len(succeeded) == n {
			return nil
		}
		w, err := res.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
		if err != nil {
			return err
		}
		err = func() error {
			defer w.Stop()
			for {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok {
						return errWatchClosed
					}
					if cr, ok := ev.Object.(*unstructured.Unstructured); ok {
						note(cr)
					}
					if len(succeeded) == n {
						return nil
					}
				case <-exited:
					return errors.New("the operator exited")
				case <-ctx.Done():
					return ctx.Err()
				case <-timeout:
					return fmt.Errorf("%d of %d CRs Successful when the time allowed ran out (last failure: %q)", len(succeeded), n, failure)
				}
			}
		}()
		if !errors.Is(err, errWatchClosed) {
			return err
		}
	}
}

func conditionField(obj *unstructured.Unstructured, typ, field string) string {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			v, _ := m[field].(string)
			return v
		}
	}
	return ""
}

// waitReconciles waits until m more Memcached reconciles have succeeded,
// as the operator's ansible_operator_reconcile_result counter says, and
// returns how long that took.
func waitReconciles(ctx context.Context, addr string, m int, exited <-chan struct{}) (time.Duration, error) {
	start := time.Now()
	base, err := succeededReconciles(addr)
	if err != nil {
		return 0, err
	}
	deadline := start.Add(5*time.Minute + time.Duration(m)*20*time.Second)
	for {
		n, err := succeededReconciles(addr)
		if err != nil {
			return 0, err
		}
		if n-base >= m {
			return time.Since(start), nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%d of %d resync reconciles after %v", n-base, m, time.Since(start).Round(time.Second))
		}
		// Often at first, for short measurements; then less, not to
		// load the machine.
		select {
		case <-exited:
			return 0, errors.New("the operator exited")
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(max(10*time.Millisecond, min(200*time.Millisecond, time.Since(start)/50))):
		}
	}
}

// succeededReconciles reads the count of successful Memcached reconciles
// from the operator's metrics endpoint.
func succeededReconciles(addr string) (int, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "ansible_operator_reconcile_result{") &&
			strings.Contains(line, `"`+memcachedGVK+`"`) && strings.Contains(line, `result="succeeded"`) {
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			return int(v), err
		}
	}
	return 0, nil
}

// freePorts returns n free loopback ports.
func freePorts(n int) ([]string, error) {
	var out []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		ln.Close()
		out = append(out, port)
	}
	return out, nil
}
