package k8s

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/k8s/kdisco"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// Client rate limits: generous enough for an operator's bursts of
// reconciles, low enough not to hammer a shared apiserver.
const (
	clientQPS   = 200
	clientBurst = 400
	userAgent   = "cfzt-runner"
	// FieldManager is the server-side apply field manager of `apply: true`.
	FieldManager = "cfzt-runner"
)

// authArg is one connection argument: the module argument, its aliases and
// the name kubernetes.core also accepts in K8S_AUTH_<NAME>.
type authArg struct {
	arg, alt string
	isBool   bool
}

// authArgs mirror kubernetes.core's AUTH_ARG_MAP: each may come from the
// module argument, else K8S_AUTH_<ARG> or K8S_AUTH_<ALT>.
var authArgs = []authArg{
	{arg: "kubeconfig"},
	{arg: "context"},
	{arg: "host"},
	{arg: "api_key"},
	{arg: "username"},
	{arg: "password"},
	{arg: "validate_certs", alt: "verify_ssl", isBool: true},
	{arg: "ca_cert", alt: "ssl_ca_cert"},
	{arg: "client_cert", alt: "cert_file"},
	{arg: "client_key", alt: "key_file"},
	{arg: "proxy"},
	{arg: "no_proxy"},
	{arg: "impersonate_user"},
	{arg: "impersonate_groups"},
}

// authSpec resolves the connection arguments from args, then the K8S_AUTH_*
// environment variables, as kubernetes.core's _create_auth_spec does.
func authSpec(getenv func(string) (string, bool), args *value.Dict) map[string]any {
	auth := map[string]any{}
	for _, a := range authArgs {
		if args != nil {
			if v, ok := args.Get(a.arg); ok && v != nil {
				auth[a.arg] = v
				continue
			}
			if a.alt != "" {
				if v, ok := args.Get(a.alt); ok && v != nil {
					auth[a.arg] = v
					continue
				}
			}
		}
		env, ok := getenv("K8S_AUTH_" + strings.ToUpper(a.arg))
		if (!ok || env == "") && a.alt != "" {
			env, ok = getenv("K8S_AUTH_" + strings.ToUpper(a.alt))
		}
		if !ok || (env == "" && a.alt != "") {
			continue
		}
		if a.isBool {
			l := strings.ToLower(env)
			auth[a.arg] = l != "0" && l != "false" && l != "no"
			continue
		}
		if a.arg == "impersonate_groups" {
			var groups []any
			for _, g := range strings.Split(env, ",") {
				if g != "" {
					groups = append(groups, g)
				}
			}
			auth[a.arg] = groups
			continue
		}
		auth[a.arg] = env
	}
	return auth
}

func authStr(auth map[string]any, k string) string {
	v, ok := auth[k]
	if !ok || v == nil {
		return ""
	}
	return value.Str(v)
}

// RESTConfig builds a client configuration the way kubernetes.core does:
// explicit credentials (host with api_key, username/password or a client
// certificate) are used as they are; otherwise a kubeconfig is loaded when
// `kubeconfig` or `context` is given; otherwise the in-cluster service
// account is tried, then the default kubeconfig ($KUBECONFIG, else
// ~/.kube/config). Explicit arguments and K8S_AUTH_* variables then
// override what was loaded. getenv reads the task environment.
func RESTConfig(getenv func(string) (string, bool), args *value.Dict) (*rest.Config, error) {
	return restConfig(getenv, authSpec(getenv, args))
}

func restConfig(getenv func(string) (string, bool), auth map[string]any) (*rest.Config, error) {
	host := strings.TrimRight(authStr(auth, "host"), "/")
	set := func(names ...string) bool {
		for _, n := range names {
			if authStr(auth, n) == "" {
				return false
			}
		}
		return true
	}
	var cfg *rest.Config
	var err error
	switch {
	case host != "" && (set("username", "password") || set("api_key") || set("client_cert", "client_key")):
		cfg = &rest.Config{}
	case set("kubeconfig") || set("context"):
		cfg, err = loadKubeconfig(getenv, auth)
	default:
		cfg = inClusterConfig(getenv)
		if cfg == nil {
			cfg, err = loadKubeconfig(getenv, auth)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("Could not create API client: %s", err)
	}
	if err := applyAuth(cfg, auth, host); err != nil {
		return nil, err
	}
	cfg.QPS = clientQPS
	cfg.Burst = clientBurst
	cfg.UserAgent = userAgent
	return cfg, nil
}

// applyAuth overrides the loaded configuration with explicit values.
func applyAuth(cfg *rest.Config, auth map[string]any, host string) error {
	if host != "" {
		cfg.Host = host
	}
	if cfg.Host == "" {
		return fmt.Errorf("Could not create API client: Invalid kube-config file. No configuration found.")
	}
	if v := authStr(auth, "api_key"); v != "" {
		cfg.BearerToken = strings.TrimPrefix(v, "Bearer ")
		cfg.BearerTokenFile = ""
		cfg.Username, cfg.Password = "", ""
		cfg.ExecProvider, cfg.AuthProvider = nil, nil
	}
	if u, p := authStr(auth, "username"), authStr(auth, "password"); u != "" && p != "" {
		cfg.Username, cfg.Password = u, p
		cfg.BearerToken, cfg.BearerTokenFile = "", ""
	}
	if v := authStr(auth, "ca_cert"); v != "" {
		cfg.TLSClientConfig.CAFile = v
		cfg.TLSClientConfig.CAData = nil
	}
	if v := authStr(auth, "client_cert"); v != "" {
		cfg.TLSClientConfig.CertFile = v
		cfg.TLSClientConfig.CertData = nil
	}
	if v := authStr(auth, "client_key"); v != "" {
		cfg.TLSClientConfig.KeyFile = v
		cfg.TLSClientConfig.KeyData = nil
	}
	if v, ok := auth["validate_certs"]; ok && v != nil {
		b, _ := argspec.LenientBoolean(v)
		cfg.TLSClientConfig.Insecure = !b
	}
	if cfg.TLSClientConfig.Insecure {
		// client-go refuses a CA together with insecure; Python ignores it.
		cfg.TLSClientConfig.CAFile = ""
		cfg.TLSClientConfig.CAData = nil
	}
	if v := authStr(auth, "proxy"); v != "" {
		u, err := url.Parse(v)
		if err != nil {
			return fmt.Errorf("Could not create API client: invalid proxy %q", v)
		}
		noProxy := splitNoProxy(authStr(auth, "no_proxy"))
		cfg.Proxy = func(r *http.Request) (*url.URL, error) {
			if bypassProxy(r.URL.Hostname(), noProxy) {
				return nil, nil
			}
			return u, nil
		}
	}
	if v := authStr(auth, "impersonate_user"); v != "" {
		cfg.Impersonate.UserName = v
	}
	if gs, ok := auth["impersonate_groups"].([]any); ok {
		for _, g := range gs {
			cfg.Impersonate.Groups = append(cfg.Impersonate.Groups, value.Str(g))
		}
	}
	return nil
}

func splitNoProxy(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// expandUser is os.path.expanduser for "~" and "~/...": HOME, else the
// user's home directory.
func expandUser(getenv func(string) (string, bool), p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, _ := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return home + p[1:]
}

func bypassProxy(host string, noProxy []string) bool {
	for _, p := range noProxy {
		if p == "*" || host == p || strings.HasSuffix(host, "."+strings.TrimPrefix(p, ".")) {
			return true
		}
		if _, cidr, err := net.ParseCIDR(p); err == nil {
			if ip := net.ParseIP(host); ip != nil && cidr.Contains(ip) {
				return true
			}
		}
	}
	return false
}

// loadKubeconfig loads the `kubeconfig` argument (a path or an inline
// dict), else $KUBECONFIG, else ~/.kube/config, selecting `context`.
func loadKubeconfig(getenv func(string) (string, bool), auth map[string]any) (*rest.Config, error) {
	overrides := &clientcmd.ConfigOverrides{CurrentContext: authStr(auth, "context")}
	switch kc := auth["kubeconfig"].(type) {
	case *value.Dict:
		raw, err := clientcmd.Load([]byte(value.JSON(kc, value.JSONOptions{})))
		if err != nil {
			return nil, err
		}
		return clientcmd.NewNonInteractiveClientConfig(*raw, overrides.CurrentContext, overrides, nil).ClientConfig()
	case string:
		if kc != "" {
			// As the Python client's KubeConfigMerger: each path of the
			// list has its ~ expanded (K8S_AUTH_KUBECONFIG=~/... reaches
			// the module as it is), paths that do not exist are skipped,
			// and none existing is "No configuration found".
			var paths []string
			for _, p := range filepath.SplitList(kc) {
				if p == "" {
					continue
				}
				p = expandUser(getenv, p)
				if _, err := os.Stat(p); err == nil {
					paths = append(paths, p)
				}
			}
			if len(paths) == 0 {
				return nil, fmt.Errorf("Invalid kube-config file. No configuration found.")
			}
			rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: paths[0]}
			if len(paths) > 1 {
				rules = &clientcmd.ClientConfigLoadingRules{Precedence: paths}
			}
			return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
		}
	}
	rules := &clientcmd.ClientConfigLoadingRules{}
	if env, ok := getenv("KUBECONFIG"); ok && env != "" {
		for _, p := range filepath.SplitList(env) {
			rules.Precedence = append(rules.Precedence, expandUser(getenv, p))
		}
	} else {
		home, _ := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		rules.Precedence = []string{filepath.Join(home, ".kube", "config")}
	}
	found := false
	for _, p := range rules.Precedence {
		if _, err := os.Stat(p); err == nil {
			found = true
		}
	}
	if !found {
		return nil, fmt.Errorf("Invalid kube-config file. No configuration found.")
	}
	raw, err := rules.Load()
	if err != nil {
		return nil, err
	}
	if len(raw.Contexts) == 0 && len(raw.Clusters) == 0 {
		return nil, fmt.Errorf("Invalid kube-config file. No configuration found.")
	}
	return clientcmd.NewNonInteractiveClientConfig(*raw, overrides.CurrentContext, overrides, rules).ClientConfig()
}

// Where a pod's service account credentials are mounted.
var serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// inClusterConfig returns the pod's service-account configuration, or nil
// outside a pod.
func inClusterConfig(getenv func(string) (string, bool)) *rest.Config {
	host, _ := getenv("KUBERNETES_SERVICE_HOST")
	port, _ := getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil
	}
	token := filepath.Join(serviceAccountDir, "token")
	if _, err := os.Stat(token); err != nil {
		return nil
	}
	cfg := &rest.Config{
		Host:            "https://" + net.JoinHostPort(host, port),
		BearerTokenFile: token,
	}
	ca := filepath.Join(serviceAccountDir, "ca.crt")
	if _, err := os.Stat(ca); err == nil {
		cfg.TLSClientConfig.CAFile = ca
	}
	return cfg
}

// Clients are the per-run Kubernetes clients of one connection.
type Clients struct {
	// Config is the connection; copy it before changing it.
	Config *rest.Config
	// Dynamic is a dynamic client over Config.
	Dynamic dynamic.Interface
	// Discovery caches discovery in memory for the run.
	Discovery *kdisco.Client
	// Mapper maps kinds to resources; on a miss it refreshes discovery
	// once and retries, so a CRD installed earlier in the run is found.
	Mapper meta.ResettableRESTMapper

	raw rest.Interface
	// proxy is the proxy URL the connection was given, for
	// k8s_cluster_info's `connection`.
	proxy string
	// shareDiscovery makes Discovery use the run's cache for its server
	// before the clients are first handed out.
	shareDiscovery sync.Once
}

// quietKlog stops client-go's internal logging (for example discovery
// errors it only reports) from reaching the playbook's output; failures
// reach the user through the module results instead.
var quietKlog sync.Once

// newClients builds the clients of cfg.
func newClients(cfg *rest.Config) (*Clients, error) {
	quietKlog.Do(func() {
		klog.LogToStderr(false)
		klog.SetOutput(io.Discard)
	})
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("Could not create API client: %s", err)
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("Could not create API client: %s", err)
	}
	raw, err := kdisco.RESTClientFor(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("Could not create API client: %s", err)
	}
	disco := kdisco.New(raw)
	return &Clients{
		Config:    cfg,
		Dynamic:   dyn,
		Discovery: disco,
		Mapper:    &kdisco.Mapper{Client: disco, RefreshOnMiss: true},
		raw:       raw,
	}, nil
}

// ClientsFor returns the clients for the connection that args and the
// task environment describe, creating them once per run in shared.
func ClientsFor(shared *module.Shared, getenv func(string) (string, bool), args *value.Dict) (*Clients, error) {
	auth := authSpec(getenv, args)
	build := func() (any, error) {
		cfg, err := restConfig(getenv, auth)
		if err != nil {
			return nil, err
		}
		c, err := newClients(cfg)
		if err == nil {
			c.proxy = authStr(auth, "proxy")
		}
		return c, err
	}
	if shared == nil {
		c, err := build()
		if err != nil {
			return nil, err
		}
		return c.(*Clients), nil
	}
	// The in-cluster and default-kubeconfig paths depend on the environment
	// too; include what they read in the key.
	for _, k := range []string{"KUBECONFIG", "HOME", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"} {
		if v, ok := getenv(k); ok {
			auth["env:"+k] = v
		}
	}
	// A kubeconfig file that was changed or removed since the clients were
	// built must not be served from the cache: kubernetes.core reads it
	// on every task. A stat per call (not a read) keeps the operator's
	// hot path cheap.
	auth["kubeconfig:files"] = kubeconfigFingerprint(getenv, auth)
	c, err := shared.Get(cacheKey(auth), build)
	if err != nil {
		return nil, err
	}
	cl := c.(*Clients)
	cl.shareDiscovery.Do(func() {
		// kubernetes.core keeps discovery in a file per server (and OS
		// user), whatever the credentials: a connection that may not read
		// discovery itself, such as an impersonated one, finds kinds
		// through what another connection to the server fetched, and its
		// request is then refused by the server, not by discovery.
		cache, _ := shared.Get("k8s.discovery/"+cl.Config.Host, func() (any, error) { return &kdisco.Cache{}, nil })
		cl.Discovery.Cache = cache.(*kdisco.Cache)
	})
	return cl, nil
}

// cacheKey digests the connection parameters so that no credential is kept
// in clear in the key.
func cacheKey(auth map[string]any) string {
	keys := make([]string, 0, len(auth))
	for k := range auth {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\x00", k, value.JSON(auth[k], value.JSONOptions{SortKeys: true}))
	}
	return "k8s.clients/" + hex.EncodeToString(h.Sum(nil))
}

// kubeconfigFingerprint describes the kubeconfig files a connection may
// load (the `kubeconfig` path, else $KUBECONFIG's list, else
// ~/.kube/config) by what stat says of each: missing, or its size,
// modification and change times and inode. Any edit, replacement or
// removal changes it.
func kubeconfigFingerprint(getenv func(string) (string, bool), auth map[string]any) string {
	var paths []string
	if kc, ok := auth["kubeconfig"].(string); ok && kc != "" {
		paths = filepath.SplitList(kc)
	} else if env, ok := getenv("KUBECONFIG"); ok && env != "" {
		paths = filepath.SplitList(env)
	} else {
		home, _ := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		paths = []string{filepath.Join(home, ".kube", "config")}
	}
	var b strings.Builder
	for _, p := range paths {
		b.WriteString(p)
		b.WriteByte('=')
		b.WriteString(statFingerprint(p))
		b.WriteByte(';')
	}
	return b.String()
}

// actionKubeconfig does what kubernetes.core's action plugin does with a
// `kubeconfig` path before any of its modules runs: each of its
// ':'-separated files is found on the task's files/ search path (the
// role's files/, the play's directory, ...), and a missing one fails the
// action with ansible-core's "Could not find or access" message. It
// returns the arguments with the paths resolved, or the failed result.
func actionKubeconfig(req *module.Request, args *value.Dict) (*value.Dict, *value.Dict) {
	kc, ok := args.Get("kubeconfig")
	s, isStr := kc.(string)
	if !ok || !isStr || s == "" {
		return args, nil
	}
	parts := strings.Split(s, ":")
	for i, p := range parts {
		found, tried, ok := findFile(req, "files", p)
		if !ok {
			return nil, module.ActionFailed(search.NotFoundMessage(p, tried))
		}
		parts[i] = found
	}
	args = args.Copy()
	args.Set("kubeconfig", strings.Join(parts, ":"))
	return args, nil
}

// connectOpts are the steps of connect a module asks for.
type connectOpts struct {
	// src finds a local `src` on the task's files/ search path first, as
	// the action plugin does before the module runs.
	src bool
}

// connect is what every kubernetes.core module does before its own work:
// the action plugin's kubeconfig search, the argument spec, and the
// clients. A non-nil failed result ends the task with it.
func connect(req *module.Request, name string, spec *argspec.Spec, o connectOpts) (p params, c *Clients, ctx context.Context, failed *value.Dict) {
	args, failed := actionKubeconfig(req, req.Args)
	if failed != nil {
		return nil, nil, nil, failed
	}
	if o.src {
		if src, ok := args.Get("src"); ok {
			if s, isStr := src.(string); isStr && s != "" && !isURL(s) {
				found, tried, ok := findFile(req, "files", s)
				if !ok {
					return nil, nil, nil, module.FailedResult(errors.New(search.NotFoundMessage(s, tried)))
				}
				args = args.Copy()
				args.Set("src", found)
			}
		}
	}
	p, msg := validate(name, spec, args)
	if msg != "" {
		return nil, nil, nil, module.FailedResult(errors.New(msg))
	}
	c, err := ClientsFor(req.Host.Shared(), req.Getenv, args)
	if err != nil {
		return nil, nil, nil, module.FailedResult(err)
	}
	ctx = req.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return p, c, ctx, nil
}
