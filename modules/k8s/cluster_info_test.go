package k8s

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// TestClusterInfo runs k8s_cluster_info against the apiserver: every
// served group version's kinds (no subresources, no *List pseudo-kinds),
// the connection and the versions, with the server's /version under
// `kubernetes` as kubernetes.core returns it.
func TestClusterInfo(t *testing.T) {
	res := ok(t, call{mod: "k8s_cluster_info", args: "{}"})
	require.False(t, changed(res))
	cm := get(t, res, "apis.v1.ConfigMap")
	require.Equal(t, "configmaps", get(t, cm, "name"))
	require.Equal(t, true, get(t, cm, "namespaced"))
	require.Equal(t, true, get(t, cm, "preferred"))
	require.Equal(t, []any{"cm"}, get(t, cm, "short_names"))
	require.Equal(t, "configmap", get(t, cm, "singular_name"))
	require.Equal(t, []any{}, get(t, cm, "categories"))
	// Deployments are in the "all" category.
	require.Contains(t, get(t, res, "apis.apps/v1.Deployment.categories"), "all")
	// A custom resource is listed under its group version.
	apis := get(t, res, "apis").(*value.Dict)
	gadgets, found := apis.Get("test.cfzt.io/v1")
	require.True(t, found, "the custom resource's group version is listed")
	require.Equal(t, []any{"gdg"}, get(t, gadgets, "Gadget.short_names"))
	apis.Each(func(gv string, kinds any) bool {
		kinds.(*value.Dict).Each(func(kind string, r any) bool {
			require.NotContains(t, value.Str(get(t, r, "name")), "/", "%s %s is a subresource", gv, kind)
			require.False(t, strings.HasSuffix(kind, "List") && kind != "List", "%s lists the pseudo-kind %s", gv, kind)
			return true
		})
		return true
	})
	require.NotEmpty(t, value.Str(get(t, res, "version.server.kubernetes.gitVersion")))
	require.NotEmpty(t, value.Str(get(t, res, "version.server.kubernetes.major")))
	require.NotEmpty(t, value.Str(get(t, res, "version.client")))
	require.Equal(t, cluster.Host, get(t, res, "connection.host"))
	require.Equal(t, true, get(t, res, "connection.verify_ssl"))
	require.Equal(t, cluster.CAFile, get(t, res, "connection.ssl_ca_cert"))
	require.Nil(t, get(t, res, "connection.password"))
	// The bearer token is a credential: it never appears in the result.
	require.NotContains(t, value.JSON(res, value.JSONOptions{}), cluster.AdminToken)
}

// TestClusterInfoArgs: the module validates its arguments as
// kubernetes.core does (invalidate_cache is a boolean).
func TestClusterInfoArgs(t *testing.T) {
	_, msg := fails(t, call{mod: "k8s_cluster_info", args: "{invalidate_cache: maybe}"})
	require.Contains(t, msg, "invalidate_cache")
	_, msg = fails(t, call{mod: "k8s_cluster_info", args: "{nope: 1}"})
	require.Contains(t, msg, "Unsupported parameters")
}

// lookupEngine is a template engine with the k8s lookup whose environment
// is env.
func lookupEngine(env map[string]string, shared *module.Shared) *template.Engine {
	eng := template.New()
	eng.Getenv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	RegisterLookups(eng, shared)
	return eng
}

func lookupEval(t *testing.T, eng *template.Engine, expr string) (any, error) {
	t.Helper()
	return eng.Render("{{ "+expr+" }}", template.MapVars{D: value.NewDict(0)}, template.Options{})
}

// TestLookupOptions covers the k8s lookup's options against the apiserver:
// src (a local file), resource_definition, kind/api_version/resource_name/
// namespace, the selectors, cluster_info and wantlist.
func TestLookupOptions(t *testing.T) {
	ns := "lookup-opts"
	ok(t, call{mod: "k8s", args: fmt.Sprintf("{definition: {apiVersion: v1, kind: Namespace, metadata: {name: %s}}}", ns)})
	for _, n := range []string{"one", "two"} {
		ok(t, call{mod: "k8s", args: fmt.Sprintf("{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: %s, namespace: %s, labels: {app: lk, which: %s}}, data: {k: %s}}}", n, ns, n, n)})
	}
	eng := lookupEngine(adminEnv(), module.NewShared())
	dir := t.TempDir()
	src := filepath.Join(dir, "cm.yml")
	require.NoError(t, os.WriteFile(src, []byte(fmt.Sprintf("---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n  namespace: %s\n---\nkind: Secret\n", ns)), 0o600))

	// src names the object from its first document, over kind/namespace.
	v, err := lookupEval(t, eng, fmt.Sprintf("lookup('kubernetes.core.k8s', src=%q, kind='Secret', namespace='default')", src))
	require.NoError(t, err)
	require.Equal(t, "two", get(t, v, "data.k"))

	// resource_definition wins over src and the plain options.
	v, err = lookupEval(t, eng, fmt.Sprintf("lookup('kubernetes.core.k8s', src=%q, resource_definition={'kind': 'ConfigMap', 'metadata': {'name': 'one', 'namespace': %q}})", src, ns))
	require.NoError(t, err)
	require.Equal(t, "one", get(t, v, "data.k"))

	// kind, namespace and a label selector: a list of the matches.
	v, err = lookupEval(t, eng, fmt.Sprintf("query('k8s', kind='ConfigMap', namespace=%q, label_selector='app=lk') | map(attribute='metadata.name') | sort", ns))
	require.NoError(t, err)
	require.Equal(t, []any{"one", "two"}, v)
	v, err = lookupEval(t, eng, fmt.Sprintf("query('k8s', kind='ConfigMap', api_version='v1', namespace=%q, field_selector='metadata.name=one') | map(attribute='metadata.name')", ns))
	require.NoError(t, err)
	require.Equal(t, []any{"one"}, v)
	// resource_name of a missing object: nothing.
	v, err = lookupEval(t, eng, fmt.Sprintf("query('k8s', kind='ConfigMap', namespace=%q, resource_name='absent')", ns))
	require.NoError(t, err)
	require.Equal(t, []any{}, v)
	// wantlist keeps the one object in a list.
	v, err = lookupEval(t, eng, fmt.Sprintf("lookup('k8s', kind='ConfigMap', namespace=%q, resource_name='one', wantlist=True) | length", ns))
	require.NoError(t, err)
	require.Equal(t, 1, v)

	// cluster_info=version has kubernetes.core's shape (issue 22 item 6).
	v, err = lookupEval(t, eng, "lookup('k8s', cluster_info='version')")
	require.NoError(t, err)
	require.NotEmpty(t, value.Str(get(t, v, "kubernetes.gitVersion")))
	require.NotEmpty(t, value.Str(get(t, v, "kubernetes.minor")))
	// api_groups: the core group "" first, then the served groups.
	v, err = lookupEval(t, eng, "lookup('k8s', cluster_info='api_groups')")
	require.NoError(t, err)
	groups := v.([]any)
	require.Equal(t, "", groups[0])
	require.Contains(t, groups, "apps")
	require.Contains(t, groups, "test.cfzt.io")

	// No kind anywhere, an empty src file and a missing src file fail
	// with kubernetes.core's messages.
	_, err = lookupEval(t, eng, "lookup('k8s', namespace='default')")
	require.ErrorContains(t, err, "Error: no Kind specified")
	empty := filepath.Join(dir, "empty.yml")
	require.NoError(t, os.WriteFile(empty, []byte("---\n"), 0o600))
	_, err = lookupEval(t, eng, fmt.Sprintf("lookup('k8s', src=%q)", empty))
	require.ErrorContains(t, err, "Error: no Kind specified")
	_, err = lookupEval(t, eng, fmt.Sprintf("lookup('k8s', src=%q)", filepath.Join(dir, "nope.yml")))
	require.ErrorContains(t, err, "No such file or directory")
}

// TestLookupAuthOptions: the lookup takes the connection from its own
// options (host, api_key, ca_cert, validate_certs, kubeconfig, context)
// rather than the environment, and a wrong credential is refused.
func TestLookupAuthOptions(t *testing.T) {
	eng := lookupEngine(map[string]string{"KUBECONFIG": "/nonexistent"}, module.NewShared())
	v, err := lookupEval(t, eng, fmt.Sprintf("lookup('k8s', kind='Namespace', resource_name='default', host=%q, api_key=%q, ca_cert=%q)", cluster.Host, cluster.AdminToken, cluster.CAFile))
	require.NoError(t, err)
	require.Equal(t, "default", get(t, v, "metadata.name"))
	v, err = lookupEval(t, eng, fmt.Sprintf("lookup('k8s', kind='Namespace', resource_name='default', host=%q, api_key=%q, validate_certs=False)", cluster.Host, cluster.AdminToken))
	require.NoError(t, err)
	require.Equal(t, "default", get(t, v, "metadata.name"))
	_, err = lookupEval(t, eng, fmt.Sprintf("lookup('k8s', kind='Namespace', resource_name='default', host=%q, api_key='not-a-token', ca_cert=%q)", cluster.Host, cluster.CAFile))
	require.Error(t, err)
	require.NotContains(t, err.Error(), cluster.AdminToken)

	kc := writeKubeconfigFor(t, t.TempDir(), cluster.Host, cluster.AdminToken)
	v, err = lookupEval(t, eng, fmt.Sprintf("lookup('k8s', kind='Namespace', resource_name='default', kubeconfig=%q, context='test')", kc))
	require.NoError(t, err)
	require.Equal(t, "default", get(t, v, "metadata.name"))
	_, err = lookupEval(t, eng, fmt.Sprintf("lookup('k8s', kind='Namespace', resource_name='default', kubeconfig=%q, context='absent')", kc))
	require.Error(t, err)
}

// writeKubeconfig writes a kubeconfig with one context, "test", for host
// with token, and returns its path.
func writeKubeconfigFor(t *testing.T, dir, host, token string) string {
	t.Helper()
	p := filepath.Join(dir, "config")
	doc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: %q, certificate-authority: %q}
users:
- name: u
  user: {token: %q}
contexts:
- name: test
  context: {cluster: c, user: u}
current-context: test
`, host, cluster.CAFile, token)
	require.NoError(t, os.WriteFile(p, []byte(doc), 0o600))
	return p
}

// TestStaleKubeconfig: clients are cached per run, but a kubeconfig that
// is removed or rewritten is noticed on the next task, as kubernetes.core
// (which reads it on every task) would: removed, the task fails with
// kubernetes.core's message; rewritten, the new content is used.
func TestStaleKubeconfig(t *testing.T) {
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".kube"), 0o700))
	kc := writeKubeconfigFor(t, filepath.Join(home, ".kube"), cluster.Host, cluster.AdminToken)
	shared := module.NewShared()
	env := map[string]string{"HOME": home}
	args := "{kind: Namespace, name: default}"
	res := ok(t, call{mod: "k8s_info", args: args, env: env, shared: shared})
	require.Len(t, res.Default("resources", nil), 1)

	require.NoError(t, os.Remove(kc))
	_, msg := fails(t, call{mod: "k8s_info", args: args, env: env, shared: shared})
	require.Equal(t, "Could not create API client: Invalid kube-config file. No configuration found.", msg)

	// Rewritten with a bad token: the new content is what the task uses
	// (the kind is known from the discovery of the earlier connection to
	// the server, so the refusal is the server's answer to the request).
	writeKubeconfigFor(t, filepath.Join(home, ".kube"), cluster.Host, "not-a-token")
	_, msg = fails(t, call{mod: "k8s_info", args: args, env: env, shared: shared})
	require.Contains(t, msg, "(401)\nReason: Unauthorized")

	writeKubeconfigFor(t, filepath.Join(home, ".kube"), cluster.Host, cluster.AdminToken)
	res = ok(t, call{mod: "k8s_info", args: args, env: env, shared: shared})
	require.Len(t, res.Default("resources", nil), 1)

	// An attacker who swaps the credentials in place, with the same size
	// and the old modification time put back, is still noticed (the
	// change time and inode cannot be put back).
	st, err := os.Stat(kc)
	require.NoError(t, err)
	writeKubeconfigFor(t, filepath.Join(home, ".kube"), cluster.Host, strings.Repeat("x", len(cluster.AdminToken)))
	st2, err := os.Stat(kc)
	require.NoError(t, err)
	require.Equal(t, st.Size(), st2.Size())
	require.NoError(t, os.Chtimes(kc, st.ModTime(), st.ModTime()))
	_, msg = fails(t, call{mod: "k8s_info", args: args, env: env, shared: shared})
	require.Contains(t, msg, "(401)\nReason: Unauthorized")
	writeKubeconfigFor(t, filepath.Join(home, ".kube"), cluster.Host, cluster.AdminToken)

	// The lookup sees the same: a removed kubeconfig fails it.
	eng := lookupEngine(env, shared)
	_, err = lookupEval(t, eng, "lookup('k8s', kind='Namespace', resource_name='default')")
	require.NoError(t, err)
	require.NoError(t, os.Remove(kc))
	_, err = lookupEval(t, eng, "lookup('k8s', kind='Namespace', resource_name='default')")
	require.ErrorContains(t, err, "Invalid kube-config file. No configuration found.")
}

// TestKubeconfigSearchPath: as kubernetes.core's action plugin, a relative
// `kubeconfig` is found on the task's files/ search path, each of a
// ':'-separated list, before the module connects.
func TestKubeconfigSearchPath(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "files"), 0o700))
	writeKubeconfigFor(t, filepath.Join(dir, "files"), cluster.Host, cluster.AdminToken)
	env := map[string]string{"KUBECONFIG": "/nonexistent"}
	for _, mod := range []string{"k8s_info", "k8s_cluster_info"} {
		args := "{kubeconfig: config}"
		if mod == "k8s_info" {
			args = "{kind: Namespace, name: default, kubeconfig: config}"
		}
		ok(t, call{mod: mod, args: args, env: env, dir: dir})
	}
	ok(t, call{mod: "k8s", args: "{kind: Namespace, name: default, kubeconfig: 'config:config'}", env: env, dir: dir})
	res, msg := fails(t, call{mod: "k8s_info", args: "{kind: Namespace, kubeconfig: 'config:absent'}", env: env, dir: dir})
	require.True(t, module.IsActionFailure(res))
	require.Contains(t, msg, "Could not find or access 'absent'")
}
