package k8s

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var cluster *kubetest.Cluster

func TestMain(m *testing.M) {
	kubetest.Main(m, func(c *kubetest.Cluster) {
		cluster = c
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.ApplyYAML(ctx, gadgetCRD); err != nil {
			panic(err)
		}
	})
}

// env is a task environment that points the modules at the test cluster
// with one of its tokens, the way a playbook's `environment` would.
func env(token string) map[string]string {
	return map[string]string{
		"K8S_AUTH_HOST":        cluster.Host,
		"K8S_AUTH_API_KEY":     token,
		"K8S_AUTH_SSL_CA_CERT": cluster.CAFile,
		// Keep a developer's own kubeconfig out of the tests.
		"KUBECONFIG": "/nonexistent",
	}
}

func adminEnv() map[string]string { return env(cluster.AdminToken) }

// call runs one module invocation with YAML arguments.
type call struct {
	mod   string
	args  string
	check bool
	diff  bool
	env   map[string]string
	// shared carries clients between calls of one "run"; nil for a fresh one.
	shared *module.Shared
	dir    string
}

func run(t *testing.T, c call) *value.Dict {
	t.Helper()
	docs, _, err := value.DecodeYAML("args", []byte(c.args))
	require.NoError(t, err)
	args, ok := docs[0].(*value.Dict)
	require.True(t, ok, "arguments must be a mapping")
	if c.env == nil {
		c.env = adminEnv()
	}
	if c.shared == nil {
		c.shared = module.NewShared()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h := moduletest.NewHost(nil)
	h.State, h.Dir = c.shared, c.dir
	if c.dir != "" {
		h.Dirs = []string{c.dir}
	}
	req := &module.Request{Ctx: ctx, Args: args, Name: c.mod, Action: c.mod, Check: c.check, Diff: c.diff, Env: c.env, Host: h}
	var mod module.Module
	for _, e := range Entries() {
		if e.Short() == c.mod {
			mod = e.Module
		}
	}
	require.NotNil(t, mod, c.mod)
	res, err := mod.Run(req)
	require.NoError(t, err)
	require.NotNil(t, res)
	return res
}

// ok runs a call that must succeed.
func ok(t *testing.T, c call) *value.Dict {
	t.Helper()
	res := run(t, c)
	require.False(t, value.Truthy(res.Default("failed", false)), "unexpected failure: %v", res.Default("msg", nil))
	return res
}

// fails runs a call that must fail and returns its message.
func fails(t *testing.T, c call) (*value.Dict, string) {
	t.Helper()
	res := run(t, c)
	require.True(t, value.Truthy(res.Default("failed", false)), "expected a failure, got %s", value.JSON(res, value.JSONOptions{}))
	return res, value.Str(res.Default("msg", ""))
}

func changed(res *value.Dict) bool { return value.Truthy(res.Default("changed", false)) }

// get reads a field path of a model value, failing the test if absent.
func get(t *testing.T, v any, path string) any {
	t.Helper()
	for _, k := range strings.Split(path, ".") {
		d, ok := v.(*value.Dict)
		require.True(t, ok, "%s: not a dict at %q", path, k)
		v, ok = d.Get(k)
		require.True(t, ok, "%s: no key %q", path, k)
	}
	return v
}

// live reads an object as admin, straight from the API; nil if absent.
func live(t *testing.T, gvr schema.GroupVersionResource, ns, name string) *unstructured.Unstructured {
	t.Helper()
	dyn, err := cluster.Dynamic()
	require.NoError(t, err)
	obj, err := dyn.Resource(gvr).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		require.Contains(t, err.Error(), "not found")
		return nil
	}
	return obj
}

// liveObj is live as a model value; the object must exist.
func liveObj(t *testing.T, gvr schema.GroupVersionResource, ns, name string) any {
	t.Helper()
	obj := live(t, gvr, ns, name)
	require.NotNil(t, obj, "%s %s/%s does not exist", gvr.Resource, ns, name)
	return value.FromGo(obj.Object)
}

var (
	cmGVR     = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	secretGVR = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	deployGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

// namespace creates a fresh namespace for one test.
func namespace(t *testing.T, name string) string {
	t.Helper()
	ok(t, call{mod: "k8s", args: "{api_version: v1, kind: Namespace, name: " + name + "}"})
	return name
}

// noSecrets asserts that neither token appears anywhere in a result.
func noSecrets(t *testing.T, res *value.Dict) {
	t.Helper()
	s := value.JSON(res, value.JSONOptions{})
	require.NotContains(t, s, cluster.AdminToken)
	require.NotContains(t, s, cluster.OperatorToken)
}
