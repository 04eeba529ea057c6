package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cfzt/cfzt-runner/engine/config"
	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/display"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/session"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/k8s"
	"github.com/cfzt/cfzt-runner/operator"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// operatorFlags are the operator runtime's flags (see docs in usage).
type operatorFlags struct {
	interval                  string
	watch                     bool
	watchKinds, statusKinds   multi
	watchByName               multi
	grace                     time.Duration
	leaderElect               bool
	leaseName, leaseNamespace string
	leaseDuration, renew      time.Duration
	retry                     time.Duration
	metricsAddr               string
	logFormat                 string
	backoffBase, backoffMax   time.Duration
	debounce, debounceMax     time.Duration
}

// addOperatorFlags registers the runtime's flags on fs. Defaults come from
// the environment the seeds define (REPLICAS, ROLE, OPERATOR_NAMESPACE);
// POLL_INTERVAL_SECONDS is only --watch's resync period (see
// intervalSetting): like ansible-playbook, a plain run runs once.
func addOperatorFlags(fs *flag.FlagSet) *operatorFlags {
	f := &operatorFlags{}
	replicas, _ := strconv.Atoi(os.Getenv("REPLICAS"))
	fs.StringVar(&f.interval, "interval", "", "re-run the playbook every SECONDS (or a duration such as 90s), reloading it each cycle; 0 runs once")
	fs.BoolVar(&f.watch, "watch", false, "run a cycle on changes to the kinds the playbook reads with k8s_info; without --interval, resync every POLL_INTERVAL_SECONDS when set")
	fs.Var(&f.watchKinds, "watch-kind", "watch group/version/Kind instead of the playbook's k8s_info kinds (repeatable)")
	fs.Var(&f.watchByName, "watch-by-name", "group/version/Kind whose objects read by name are watched one by one, status included (repeatable; default v1/Service and apps/v1/Deployment)")
	fs.Var(&f.statusKinds, "watch-status-kind", "Kind whose status-only updates start a cycle (repeatable; default CloudflareTask)")
	fs.DurationVar(&f.grace, "grace", 30*time.Second, "on SIGTERM/SIGINT, how long the running task may take to finish")
	fs.BoolVar(&f.leaderElect, "leader-elect", replicas > 1, "run cycles only while holding a coordination.k8s.io Lease (default on when REPLICAS > 1)")
	fs.StringVar(&f.leaseName, "leader-elect-id", leaseName(envOr("ROLE", "manager")), "name of the leader Lease (default cfzt-ROLE)")
	fs.StringVar(&f.leaseNamespace, "leader-elect-namespace", envOr("OPERATOR_NAMESPACE", "cloudflare-zero-trust"), "namespace of the leader Lease")
	fs.DurationVar(&f.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "how long followers wait before taking over an unrenewed Lease")
	fs.DurationVar(&f.renew, "leader-elect-renew-deadline", 10*time.Second, "how long the leader retries renewing before it gives up")
	fs.DurationVar(&f.retry, "leader-elect-retry-period", 2*time.Second, "interval between Lease attempts")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve /healthz, /readyz and /metrics on this address (e.g. :8080)")
	fs.StringVar(&f.logFormat, "log-format", envOr(logFormatEnv, "text"), "text (Ansible's output, coloured on a terminal) or json (one object per line: level, ts, msg, ...); default $"+logFormatEnv+", else text")
	fs.DurationVar(&f.backoffBase, "backoff-base", time.Second, "first retry delay after a failed cycle in watch mode")
	fs.DurationVar(&f.backoffMax, "backoff-max", 5*time.Minute, "longest wait after repeated failed cycles")
	fs.DurationVar(&f.debounce, "debounce", 300*time.Millisecond, "quiet window after a change before a cycle starts")
	fs.DurationVar(&f.debounceMax, "debounce-max", time.Second, "longest wait from the first change of a burst")
	return f
}

// defaultWatchByName are the kinds --watch-by-name defaults to: what the
// operator's roles read by name outside the lists they watch anyway (the
// LoadBalancer Services of DNS-only templates, the manager and worker
// Deployments). Secrets are not among them: watching one needs list and
// watch on Secrets, which the shipped RBAC does not grant outside the
// operator namespace.
var defaultWatchByName = []string{"v1/Service", "apps/v1/Deployment"}

// leaseName is cfzt-ROLE made a valid object name: ROLE values such as
// kube_worker have underscores, which Kubernetes names do not allow.
func leaseName(role string) string {
	b := []byte("cfzt-" + strings.ToLower(role))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '.' {
			b[i] = '-'
		}
	}
	return strings.Trim(string(b), "-.")
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// handles reports whether the runtime takes over the run: a loop, or the
// JSON log format (which a single run may use too).
func (f *operatorFlags) handles() bool {
	d, _ := parseInterval(f.interval)
	return d > 0 || f.watch || f.logFormat == "json"
}

// intervalSetting is the cycle interval: --interval, or in watch mode the
// seeds' POLL_INTERVAL_SECONDS as the resync period. The environment
// alone never turns a run into a loop.
func (f *operatorFlags) intervalSetting() string {
	if f.interval == "" && f.watch {
		return os.Getenv("POLL_INTERVAL_SECONDS")
	}
	return f.interval
}

// parseInterval reads seconds ("60", "1.5") or a Go duration ("90s").
func parseInterval(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("invalid interval %q", s)
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid interval %q: want seconds or a duration", s)
	}
	return d, nil
}

// parseKind reads group/version/Kind, or version/Kind for the core group.
func parseKind(s string) (schema.GroupVersionKind, error) {
	i := strings.LastIndex(s, "/")
	if i <= 0 || i == len(s)-1 {
		return schema.GroupVersionKind{}, fmt.Errorf("invalid --watch-kind %q: want group/version/Kind", s)
	}
	gv, err := schema.ParseGroupVersion(strings.TrimPrefix(s[:i], "/"))
	if err != nil {
		return schema.GroupVersionKind{}, fmt.Errorf("invalid --watch-kind %q: %w", s, err)
	}
	return gv.WithKind(s[i+1:]), nil
}

// logLevelVerbosity maps LOG_LEVEL to -v as the seed entrypoint does:
// DEBUG is -vv, INFO -v, anything else none.
func logLevelVerbosity(level string) int {
	switch strings.ToUpper(strings.TrimSpace(level)) {
	case "DEBUG":
		return 2
	case "INFO":
		return 1
	}
	return 0
}

// runOperator runs books under the operator runtime: once with the JSON
// display, or in a loop with --interval/--watch.
func runOperator(ctx context.Context, c *cli, cfg *config.Config, books []string) int {
	f := c.op
	interval, err := parseInterval(f.intervalSetting())
	if err != nil {
		fmt.Fprintln(os.Stderr, "[ERROR]:", err)
		return 2
	}
	var kinds []schema.GroupVersionKind
	for _, k := range f.watchKinds {
		gvk, err := parseKind(k)
		if err != nil {
			fmt.Fprintln(os.Stderr, "[ERROR]:", err)
			return 2
		}
		kinds = append(kinds, gvk)
	}
	byNameKinds := []string(f.watchByName)
	if len(byNameKinds) == 0 {
		byNameKinds = defaultWatchByName
	}
	var byName []schema.GroupKind
	for _, k := range byNameKinds {
		gvk, err := parseKind(k)
		if err != nil {
			fmt.Fprintln(os.Stderr, "[ERROR]:", strings.Replace(err.Error(), "--watch-kind", "--watch-by-name", 1))
			return 2
		}
		byName = append(byName, gvk.GroupKind())
	}
	if f.logFormat != "text" && f.logFormat != "json" {
		fmt.Fprintf(os.Stderr, "[ERROR]: invalid --log-format %q: want text or json\n", f.logFormat)
		return 2
	}
	// ansible.cfg is read once: a restart picks up its changes.
	for _, w := range cfg.Warnings {
		fmt.Fprintln(os.Stderr, "[WARNING]:", w)
	}
	if cfg.Err != nil {
		return startupError(cfg.Err)
	}
	if c.verbose == 0 && !cfg.VerbositySet {
		c.verbose = logLevelVerbosity(os.Getenv("LOG_LEVEL"))
	}
	// Modules' direct output (pause's "Pausing for") goes to stdout with
	// the text display and to stderr with JSON, which keeps stdout JSON.
	direct := io.Writer(os.Stdout)
	if f.logFormat == "json" {
		direct = os.Stderr
	}
	// Kubernetes reads (k8s_info) are recorded: watch mode watches what
	// they read.
	comp, err := compose(composeOptions{Mode: modeOperator, Config: cfg, Inventory: c.inventory, Direct: direct})
	if err != nil {
		return startupError(err)
	}
	reads, metrics := comp.Reads, comp.Metrics
	extra, err := parseExtraVars(c.extra, nil)
	if err != nil {
		return startupError(err)
	}
	var disp run.Display
	var log operator.Logger
	if f.logFormat == "json" {
		j := &display.JSON{Out: os.Stdout, Verbose: c.verbose}
		disp, log = j, jsonLogger(j)
	} else {
		disp = textDisplay(cfg, c.verbose, os.Stdout, os.Stderr)
		log = textLogger(os.Stderr)
	}
	sess := comp.Session
	opts := c.runOptions(extra)
	cycle := func(ctx context.Context, stop <-chan struct{}) operator.CycleResult {
		res := runCycle(ctx, stop, sess, books, opts, disp, metrics)
		res.Targets = append(res.Targets, reads.Take()...)
		return res
	}
	if interval == 0 && !f.watch {
		res := cycle(ctx, nil)
		if res.Err != nil {
			return diag.ExitCode(res.Err)
		}
		return res.Code
	}
	statusKinds := []string(f.statusKinds)
	if len(statusKinds) == 0 {
		statusKinds = []string{"CloudflareTask"}
	}
	op := &operator.Operator{
		Config: operator.Config{
			Interval: interval, Watch: f.watch, WatchKinds: kinds, Namespaces: watchNamespaces(), StatusKinds: statusKinds, WatchByName: byName,
			Debounce: f.debounce, DebounceMax: f.debounceMax, BackoffBase: f.backoffBase, BackoffMax: f.backoffMax, Grace: f.grace,
			LeaderElect: f.leaderElect, LeaseName: f.leaseName, LeaseNamespace: f.leaseNamespace, Identity: identity(),
			LeaseDuration: f.leaseDuration, RenewDeadline: f.renew, RetryPeriod: f.retry, MetricsAddr: f.metricsAddr,
		},
		Cycle:      cycle,
		RESTConfig: func() (*rest.Config, error) { return k8s.RESTConfig(os.LookupEnv, nil) },
		Abort:      secondSignal(),
		Log:        log,
		Metrics:    metrics,
	}
	log("started", "interval_seconds", interval.Seconds(), "watch", f.watch, "leader_elect", f.leaderElect, "playbooks", strings.Join(books, ","))
	return op.Run(ctx)
}

// runCycle loads the playbooks with a fresh loader, template engine and
// inventory, so edited YAML takes effect, and runs them as a one-shot run
// does. Its Targets are the kinds the playbooks read with literal names
// (ScanKinds).
func runCycle(ctx context.Context, stop <-chan struct{}, sess *session.Session, books []string, opts run.Options, disp run.Display, observer run.Observer) operator.CycleResult {
	res := operator.CycleResult{}
	r, err := sess.Load(books, opts, disp)
	if err != nil {
		disp.ControllerError(err)
		res.Err = err
		return res
	}
	for _, pb := range r.Playbooks {
		res.Targets = append(res.Targets, operator.ScanKinds(r.Loader, pb, r.Engine, r.Options.ExtraVars)...)
	}
	res.Code = r.Execute(ctx, disp, observer, stop)
	return res
}

// watchNamespaces reads WATCH_NAMESPACES (comma-separated; empty: all).
// OPERATOR_NAMESPACE is added to a non-empty list, since the roles read
// their own objects (CloudflareTasks, state ConfigMaps) there.
func watchNamespaces() []string {
	var out []string
	seen := map[string]bool{}
	for _, ns := range strings.Split(os.Getenv("WATCH_NAMESPACES"), ",") {
		if ns = strings.TrimSpace(ns); ns != "" && !seen[ns] {
			seen[ns] = true
			out = append(out, ns)
		}
	}
	if op := os.Getenv("OPERATOR_NAMESPACE"); len(out) > 0 && op != "" && !seen[op] {
		out = append(out, op)
	}
	return out
}

// identity is POD_NAME, else the host name with a random suffix.
func identity() string {
	if p := os.Getenv("POD_NAME"); p != "" {
		return p
	}
	host, _ := os.Hostname()
	b := make([]byte, 4)
	rand.Read(b)
	return host + "_" + hex.EncodeToString(b)
}

// secondSignal closes its channel on the second SIGINT/SIGTERM: main's
// context already turns the first into a stop request.
func secondSignal() <-chan struct{} {
	out := make(chan struct{})
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		<-sigs
		close(out)
	}()
	return out
}

// textLogger writes runtime events as one line each:
// "[cfzt-runner] TIME EVENT key=value ...".
func textLogger(w io.Writer) operator.Logger {
	return func(event string, kv ...any) {
		var b strings.Builder
		b.WriteString("[cfzt-runner] " + time.Now().UTC().Format(time.RFC3339) + " " + event)
		for i := 0; i+1 < len(kv); i += 2 {
			v := fmt.Sprint(kv[i+1])
			if f, ok := kv[i+1].(float64); ok {
				v = strconv.FormatFloat(f, 'f', 3, 64)
			}
			if strings.ContainsAny(v, " \t\n\"") {
				v = strconv.Quote(v)
			}
			fmt.Fprintf(&b, " %v=%s", kv[i], v)
		}
		fmt.Fprintln(w, b.String())
	}
}

// jsonLogger writes runtime events through the JSON display.
func jsonLogger(j *display.JSON) operator.Logger {
	return func(event string, kv ...any) {
		f := value.NewDict(len(kv) / 2)
		for i := 0; i+1 < len(kv); i += 2 {
			v := kv[i+1]
			switch x := v.(type) {
			case int64:
				v = int(x)
			case string, bool, int, float64:
			default:
				v = fmt.Sprint(x)
			}
			f.Set(fmt.Sprint(kv[i]), v)
		}
		j.Event(event, f)
	}
}
