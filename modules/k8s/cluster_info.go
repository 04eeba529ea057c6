package k8s

import (
	"context"
	"runtime/debug"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// clusterInfoSpec is kubernetes.core.k8s_cluster_info's argument_spec:
// the connection options and invalidate_cache.
var clusterInfoSpec = &argspec.Spec{Options: concat(authOptions(), []opt{
	{Name: "invalidate_cache", Type: argspec.Bool, Default: true},
})}

// runClusterInfo is kubernetes.core.k8s_cluster_info: the resources of
// every served group version (apis), the connection and the versions.
func runClusterInfo(req *module.Request) (*value.Dict, error) {
	p, c, ctx, failed := connect(req, "kubernetes.core.k8s_cluster_info", clusterInfoSpec, connectOpts{})
	if failed != nil {
		return failed, nil
	}
	if b, _ := p["invalidate_cache"].(bool); b {
		c.Discovery.Invalidate()
	}
	apis, err := clusterAPIs(c)
	if err != nil {
		return module.FailedResult(err), nil
	}
	ver, err := serverVersion(ctx, c)
	if err != nil {
		return module.FailedResult(err), nil
	}
	return value.DictOf("changed", false, "apis", apis, "connection", connectionInfo(c),
		"version", value.DictOf("client", clientVersion(), "server", ver)), nil
}

// clusterAPIs is the module's `apis`: for each served group version
// ("v1", "apps/v1"), its kinds with their names, scope, categories, short
// names and whether the version is the group's preferred one.
// Subresources are not listed, as the Python discovery nests them.
func clusterAPIs(c *Clients) (*value.Dict, error) {
	snap, err := c.Discovery.Current()
	if err != nil {
		return nil, err
	}
	out := value.NewDict(0)
	for _, gv := range snap.Versions() {
		res, err := snap.Resources(gvString(gv.Group, gv.Version))
		if err != nil {
			// An unavailable group version lists nothing, as the
			// Python discovery treats a 503.
			continue
		}
		key := gvString(gv.Group, gv.Version)
		kinds, _ := out.Get(key)
		kd, _ := kinds.(*value.Dict)
		if kd == nil {
			kd = value.NewDict(len(res))
			out.Set(key, kd)
		}
		for _, r := range res {
			singular := r.Singular
			if singular == "" && r.Name != "" {
				singular = r.Name[:len(r.Name)-1]
			}
			kd.Set(r.Kind, value.DictOf(
				"categories", strList(r.Categories),
				"name", r.Name,
				"namespaced", r.Namespaced,
				"preferred", gv.Preferred,
				"short_names", strList(r.ShortNames),
				"singular_name", singular))
		}
	}
	return out, nil
}

func gvString(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

func strList(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

// serverVersion is the Python discovery's version: the apiserver's
// /version document under `kubernetes`.
func serverVersion(ctx context.Context, c *Clients) (*value.Dict, error) {
	resp, err := c.do(ctx, request{verb: "GET", path: "/version"})
	if err != nil {
		return nil, err
	}
	return value.DictOf("kubernetes", resp.obj), nil
}

// connectionInfo is the module's `connection`, the Python client
// configuration's fields: None where nothing was configured.
func connectionInfo(c *Clients) *value.Dict {
	cfg := c.Config
	orNone := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	var proxy any
	if c.proxy != "" {
		proxy = c.proxy
	}
	return value.DictOf(
		"cert_file", orNone(cfg.TLSClientConfig.CertFile),
		"host", cfg.Host,
		"password", orNone(cfg.Password),
		"proxy", proxy,
		"ssl_ca_cert", orNone(cfg.TLSClientConfig.CAFile),
		"username", orNone(cfg.Username),
		"verify_ssl", !cfg.TLSClientConfig.Insecure)
}

// clientVersion stands for the Python client's version: the client-go
// release cfzt-runner is built with.
func clientVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/client-go" {
				return "client-go " + d.Version
			}
		}
	}
	return "client-go"
}
