package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/asyncjob"
	"github.com/cfzt/cfzt-runner/engine/config"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/external"
	"github.com/cfzt/cfzt-runner/modules/k8s"
	"github.com/cfzt/cfzt-runner/operator"
	"github.com/cfzt/cfzt-runner/operator/sdk"
)

// runSubcommand runs `cfzt-runner operator ...` (the ansible-operator
// drop-in), the hidden background job of an async task
// (asyncjob.ChildCommand) and the internal `cfzt-runner __validate-args`
// (the argument validator of the compatibility package new-style Python
// modules import when ansible-core is not installed: a JSON request on
// stdin, the validated arguments on stdout; not for users, so not in
// --help); any other command line goes to fallback.
func runSubcommand(ctx context.Context, args []string, fallback func(context.Context, []string) int) int {
	if code, ok := subcommandHelp(args, os.Stdout); ok {
		return code
	}
	if len(args) > 0 && args[0] == asyncjob.ChildCommand {
		return runAsyncJob(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == external.ValidateCommand {
		if err := external.ValidateArgs(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "[ERROR]:", err)
			return 1
		}
		return 0
	}
	if len(args) > 0 && args[0] == "doc" {
		return runDoc(args[1:], os.Stdout, os.Stderr)
	}
	if isVaultCommand(args) {
		return runVaultCommand(args[1:], os.Stdout, os.Stderr)
	}
	if len(args) > 0 && args[0] == "operator" {
		rest := args[1:]
		if len(rest) > 0 && rest[0] == "run" { // as `ansible-operator run`
			rest = rest[1:]
		}
		return runSDKOperator(ctx, rest, os.Stdout, os.Stderr)
	}
	return fallback(ctx, args)
}

// sdkFlags are `ansible-operator run`'s flags, with its defaults.
type sdkFlags struct {
	watchesFile, rolesPath, collectionsPath, ansibleArgs, logEvents string
	logFormat                                                       string
	injectOwnerRef, leaderElect                                     bool
	verbosity, maxConcurrent                                        int
	reconcilePeriod, leaseDuration, renewDeadline, grace            time.Duration
	metricsAddr, probeAddr, leaseID, leaseNamespace, kubeconfig     string
}

// accepted are ansible-operator flags with no effect here (no API proxy,
// no TLS metrics, no zap logger); they are accepted so that existing
// Deployments start unchanged.
var accepted = []string{"leader-elect-resource-lock", "proxy-port", "zap-encoder", "zap-log-level", "zap-stacktrace-level", "zap-time-encoding"}
var acceptedBools = []string{"enable-http2", "metrics-secure", "metrics-require-rbac", "zap-devel"}

func sdkFlagSet(out io.Writer) (*flag.FlagSet, *sdkFlags) {
	f := &sdkFlags{}
	fs := flag.NewFlagSet("cfzt-runner operator", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&f.watchesFile, "watches-file", "./watches.yaml", "path to the watches file")
	fs.BoolVar(&f.injectOwnerRef, "inject-owner-ref", true, "set an owner reference to the watched object on every object its run creates")
	fs.IntVar(&f.verbosity, "ansible-verbosity", 2, "Ansible verbosity (ANSIBLE_VERBOSITY_<KIND>_<GROUP> overrides it per kind)")
	fs.StringVar(&f.rolesPath, "ansible-roles-path", "", "sets ANSIBLE_ROLES_PATH")
	fs.StringVar(&f.collectionsPath, "ansible-collections-path", "", "sets ANSIBLE_COLLECTIONS_PATH")
	fs.StringVar(&f.ansibleArgs, "ansible-args", "", "extra ansible-playbook arguments: -e/--extra-vars, --tags and --skip-tags are honoured")
	fs.DurationVar(&f.reconcilePeriod, "reconcile-period", 10*time.Hour, "default resync period of watched objects")
	fs.IntVar(&f.maxConcurrent, "max-concurrent-reconciles", runtime.NumCPU(), "reconciles run at once per kind (MAX_CONCURRENT_RECONCILES_<KIND>_<GROUP> overrides it)")
	fs.StringVar(&f.metricsAddr, "metrics-bind-address", ":8443", "address of /metrics (0 disables it)")
	fs.StringVar(&f.metricsAddr, "metrics-addr", ":8443", "deprecated: use --metrics-bind-address")
	fs.StringVar(&f.probeAddr, "health-probe-bind-address", ":6789", "address of /healthz and /readyz")
	fs.BoolVar(&f.leaderElect, "leader-elect", false, "reconcile only while holding a coordination.k8s.io Lease")
	fs.BoolVar(&f.leaderElect, "enable-leader-election", false, "deprecated: use --leader-elect")
	fs.StringVar(&f.leaseID, "leader-election-id", os.Getenv("OPERATOR_NAME"), "name of the leader Lease")
	fs.StringVar(&f.leaseNamespace, "leader-election-namespace", "", "namespace of the leader Lease (default: the pod's)")
	fs.DurationVar(&f.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "how long followers wait before taking over an unrenewed Lease")
	fs.DurationVar(&f.renewDeadline, "leader-elect-renew-deadline", 10*time.Second, "how long the leader retries renewing before it gives up")
	fs.DurationVar(&f.grace, "graceful-shutdown-timeout", 30*time.Second, "how long running reconciles may take to finish on SIGTERM")
	fs.StringVar(&f.logEvents, "ansible-log-events", "tasks", "task events to log: Nothing, Tasks or Everything")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: in-cluster, then $KUBECONFIG or ~/.kube/config)")
	fs.StringVar(&f.logFormat, "log-format", envOr(logFormatEnv, "json"), "json (ansible-operator's zap lines: level, ts, logger, msg, ...) or text; default $"+logFormatEnv+", else json")
	for _, n := range accepted {
		fs.Var(ignoredFlag{}, n, "accepted for compatibility; no effect")
	}
	for _, n := range acceptedBools {
		fs.Var(ignoredBool{}, n, "accepted for compatibility; no effect")
	}
	return fs, f
}

// runSDKOperator is `ansible-operator run`: it loads watches.yaml and
// reconciles every watched kind until ctx ends.
func runSDKOperator(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, f := sdkFlagSet(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	log := &sdk.Logger{Out: stdout, Text: f.logFormat == "text"}
	if f.logFormat != "text" && f.logFormat != "json" {
		fmt.Fprintf(stderr, "[ERROR]: invalid --log-format %q: want json or text\n", f.logFormat)
		return 2
	}
	level, err := sdk.ParseLogLevel(f.logEvents)
	if err != nil {
		log.Error("cmd", "unrecognized log level", err)
	}
	// --ansible-roles-path and --ansible-collections-path stand for
	// ANSIBLE_ROLES_PATH and ANSIBLE_COLLECTIONS_PATH wherever the
	// configuration and watches.yaml read them.
	penv := withSettings(config.Process(), map[string]string{"ANSIBLE_ROLES_PATH": f.rolesPath, "ANSIBLE_COLLECTIONS_PATH": f.collectionsPath})
	watches, warnings, err := sdk.Load(f.watchesFile, sdk.LoadOptions{MaxConcurrentReconciles: f.maxConcurrent, AnsibleVerbosity: f.verbosity, Getenv: penv.Lookup})
	for _, w := range warnings {
		log.Info("watches", w)
	}
	if err != nil {
		log.Error("cmd", "Failed to load watches.", err)
		return 1
	}
	env, runner, err := sdkEnv(f, penv, log, level)
	if err != nil {
		log.Error("cmd", "Failed to set up the runner.", err)
		return 1
	}
	defer os.RemoveAll(runner.WorkDir)
	cfg, err := k8s.RESTConfig(os.LookupEnv, kubeconfigArg(f.kubeconfig))
	if err != nil {
		log.Error("cmd", "Failed to get config.", err)
		return 1
	}
	cfg.WarningHandlerWithContext = &sdk.APIWarnings{Log: log}
	mgr := &sdk.Manager{Watches: watches, Env: env, Config: cfg, MetricsAddr: f.metricsAddr, ProbeAddr: f.probeAddr}
	if f.leaderElect {
		lc, err := leaderConfig(f, log)
		if err != nil {
			log.Error("cmd", "Failed to configure leader election.", err)
			return 1
		}
		lc.Config = cfg
		mgr.Leader = lc
	}
	log.Info("cmd", "Version", "cfzt-runner", version, "Go Version", runtime.Version(), "GOOS", runtime.GOOS, "GOARCH", runtime.GOARCH)
	if err := runGracefully(ctx, f.grace, mgr.Run); err != nil {
		log.Error("cmd", "Manager exited non-zero", err)
		return 1
	}
	log.Info("cmd", "Exiting.")
	return 0
}

// sdkEnv composes the engine in the drop-in's mode (compose), with the
// generated localhost inventory as the fallback, and the controllers'
// shared environment.
func sdkEnv(f *sdkFlags, penv config.Environment, log *sdk.Logger, level sdk.LogLevel) (*sdk.Env, *sdk.EngineRunner, error) {
	work, err := os.MkdirTemp("", "cfzt-operator-")
	if err != nil {
		return nil, nil, err
	}
	runner, comp, err := sdkRunner(penv, work)
	if err != nil {
		os.RemoveAll(work)
		return nil, nil, err
	}
	if err := applyAnsibleArgs(runner, f.ansibleArgs); err != nil {
		os.RemoveAll(work)
		return nil, nil, err
	}
	env := &sdk.Env{Runner: runner, Namespaces: splitList(os.Getenv("WATCH_NAMESPACE")), ReconcilePeriod: f.reconcilePeriod,
		InjectOwner: f.injectOwnerRef, Metrics: comp.SDKMetrics, Log: log, Level: level}
	return env, runner, nil
}

// sdkRunner is the drop-in's runner of reconciles, its generated files in
// work.
func sdkRunner(penv config.Environment, work string) (*sdk.EngineRunner, *composition, error) {
	local, err := sdk.LocalInventory(work)
	if err != nil {
		return nil, nil, err
	}
	comp, err := compose(composeOptions{Mode: modeSDK, Env: penv, Fallback: []string{local}, Direct: os.Stderr})
	if err != nil {
		return nil, nil, err
	}
	return &sdk.EngineRunner{Session: comp.Session, WorkDir: work, GatherFacts: comp.Config.Gathering != "explicit"}, comp, nil
}

// applyAnsibleArgs honours the ansible-playbook options of --ansible-args
// that change a run: extra vars, tags and skip-tags.
func applyAnsibleArgs(r *sdk.EngineRunner, s string) error {
	c, books, err := parseArgs(strings.Fields(strings.Trim(s, "'")))
	if err != nil || len(books) > 0 {
		return fmt.Errorf("--ansible-args %q: only options are allowed", s)
	}
	extra, err := parseExtraVars(c.extra, nil)
	if err != nil {
		return err
	}
	r.Options = run.Options{ExtraVars: extra, Tags: splitTags(c.tags), SkipTags: splitTags(c.skipTags)}
	return nil
}

func kubeconfigArg(path string) *value.Dict {
	if path == "" {
		return nil
	}
	return value.DictOf("kubeconfig", path)
}

// leaderConfig is the Lease of --leader-election-id in
// --leader-election-namespace, or the pod's namespace in a cluster.
func leaderConfig(f *sdkFlags, log *sdk.Logger) (*operator.LeaderConfig, error) {
	ns := f.leaseNamespace
	if ns == "" {
		data, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
		if err != nil {
			return nil, fmt.Errorf("unable to find leader election namespace: not running in-cluster, please specify --leader-election-namespace")
		}
		ns = strings.TrimSpace(string(data))
	}
	if f.leaseID == "" {
		return nil, fmt.Errorf("LeaderElectionID must be configured (--leader-election-id)")
	}
	id := identity()
	return &operator.LeaderConfig{Namespace: ns, Name: f.leaseID, Identity: id,
		LeaseDuration: f.leaseDuration, RenewDeadline: f.renewDeadline,
		OnNewLeader: func(holder string) { log.Info("leader", "new leader", "identity", holder, "self", holder == id) }}, nil
}

// runGracefully runs fn until ctx ends, then gives it grace to return.
func runGracefully(ctx context.Context, grace time.Duration, fn func(context.Context) error) error {
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	select {
	case err := <-done:
		return err
	case <-time.After(grace):
		return fmt.Errorf("reconciles still running after %s", grace)
	}
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
