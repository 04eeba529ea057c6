package k8s

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// canListNamespaces reports whether the connection the call describes can
// list namespaces, failing the test on anything but a 403.
func canListNamespaces(t *testing.T, c call) bool {
	t.Helper()
	c.mod = "k8s_info"
	if c.args == "" {
		c.args = "{}"
	}
	c.args = strings.Replace(c.args, "{", "{kind: Namespace, ", 1)
	res := run(t, c)
	noSecrets(t, res)
	if !value.Truthy(res.Default("failed", false)) {
		return true
	}
	require.Contains(t, value.Str(res.Default("msg", "")), "(403)\nReason: Forbidden")
	return false
}

// writeKubeconfig writes a kubeconfig with an "admin" and an "operator"
// context; current-context is current.
func writeKubeconfig(t *testing.T, current string) string {
	t.Helper()
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: %q, certificate-authority: %q}
users:
- name: admin
  user: {token: %q}
- name: operator
  user: {token: %q}
contexts:
- name: admin
  context: {cluster: test, user: admin}
- name: operator
  context: {cluster: test, user: operator}
current-context: %s
`, cluster.Host, cluster.CAFile, cluster.AdminToken, cluster.OperatorToken, current)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(kc), 0o600))
	return path
}

func TestConnectionSources(t *testing.T) {
	bare := map[string]string{"KUBECONFIG": "/nonexistent", "HOME": "/nonexistent"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range bare {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	kc := writeKubeconfig(t, "operator")

	t.Run("module arguments", func(t *testing.T) {
		args := fmt.Sprintf("{host: %q, api_key: %q, ca_cert: %q}", cluster.Host, cluster.AdminToken, cluster.CAFile)
		require.True(t, canListNamespaces(t, call{env: bare, args: args}))
	})
	t.Run("K8S_AUTH variables", func(t *testing.T) {
		require.True(t, canListNamespaces(t, call{env: adminEnv()}))
		require.False(t, canListNamespaces(t, call{env: env(cluster.OperatorToken)}))
		// The argument wins over the variable.
		require.True(t, canListNamespaces(t, call{env: env(cluster.OperatorToken), args: fmt.Sprintf("{api_key: %q}", cluster.AdminToken)}))
	})
	t.Run("kubeconfig argument and context", func(t *testing.T) {
		require.False(t, canListNamespaces(t, call{env: bare, args: fmt.Sprintf("{kubeconfig: %q}", kc)}))
		require.True(t, canListNamespaces(t, call{env: bare, args: fmt.Sprintf("{kubeconfig: %q, context: admin}", kc)}))
		require.True(t, canListNamespaces(t, call{env: with("K8S_AUTH_KUBECONFIG", kc, "K8S_AUTH_CONTEXT", "admin")}))
	})
	t.Run("inline kubeconfig dict", func(t *testing.T) {
		data, err := os.ReadFile(kc)
		require.NoError(t, err)
		require.True(t, canListNamespaces(t, call{env: bare, args: "{context: admin, kubeconfig: " + yamlFlow(string(data)) + "}"}))
	})
	t.Run("KUBECONFIG and ~/.kube/config", func(t *testing.T) {
		require.False(t, canListNamespaces(t, call{env: with("KUBECONFIG", kc)}))
		home := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(home, ".kube"), 0o700))
		data, _ := os.ReadFile(writeKubeconfig(t, "admin"))
		require.NoError(t, os.WriteFile(filepath.Join(home, ".kube", "config"), data, 0o600))
		env := with("HOME", home)
		delete(env, "KUBECONFIG")
		require.True(t, canListNamespaces(t, call{env: env}))
	})
	t.Run("validate_certs", func(t *testing.T) {
		noCA := map[string]string{"K8S_AUTH_HOST": cluster.Host, "K8S_AUTH_API_KEY": cluster.AdminToken, "KUBECONFIG": "/nonexistent"}
		res, msg := fails(t, call{mod: "k8s_info", env: noCA, args: "{kind: Namespace}"})
		require.Contains(t, msg, "certificate")
		noSecrets(t, res)
		require.True(t, canListNamespaces(t, call{env: noCA, args: "{validate_certs: false}"}))
		noCA["K8S_AUTH_VERIFY_SSL"] = "no"
		require.True(t, canListNamespaces(t, call{env: noCA}))
	})
	t.Run("in-cluster service account", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "token"), []byte(cluster.AdminToken), 0o600))
		ca, err := os.ReadFile(cluster.CAFile)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o600))
		prev := serviceAccountDir
		serviceAccountDir = dir
		t.Cleanup(func() { serviceAccountDir = prev })
		u, err := url.Parse(cluster.Host)
		require.NoError(t, err)
		require.True(t, canListNamespaces(t, call{env: with("KUBERNETES_SERVICE_HOST", u.Hostname(), "KUBERNETES_SERVICE_PORT", u.Port())}))
	})
	t.Run("nothing configured", func(t *testing.T) {
		_, msg := fails(t, call{mod: "k8s_info", env: bare, args: "{kind: Namespace}"})
		require.Equal(t, "Could not create API client: Invalid kube-config file. No configuration found.", msg)
	})
}

func TestRESTConfigExported(t *testing.T) {
	cfg, err := RESTConfig(lookup(adminEnv()), value.DictOf("context", nil))
	require.NoError(t, err)
	require.Equal(t, cluster.Host, cfg.Host)
	require.Equal(t, cluster.AdminToken, cfg.BearerToken)
	require.Equal(t, cluster.CAFile, cfg.TLSClientConfig.CAFile)
	require.EqualValues(t, 200, cfg.QPS)
	require.Equal(t, 400, cfg.Burst)

	cfg, err = RESTConfig(lookup(map[string]string{"K8S_AUTH_HOST": "https://h:6443/", "K8S_AUTH_API_KEY": "t", "K8S_AUTH_VERIFY_SSL": "false",
		"K8S_AUTH_SSL_CA_CERT": "/ca", "K8S_AUTH_CERT_FILE": "/c", "K8S_AUTH_KEY_FILE": "/k"}), nil)
	require.NoError(t, err)
	require.Equal(t, "https://h:6443", cfg.Host)
	require.True(t, cfg.TLSClientConfig.Insecure)
	require.Empty(t, cfg.TLSClientConfig.CAFile, "client-go refuses a CA with insecure")
	require.Equal(t, "/c", cfg.TLSClientConfig.CertFile)
	require.Equal(t, "/k", cfg.TLSClientConfig.KeyFile)

	// Arguments and their aliases override the variables.
	cfg, err = RESTConfig(lookup(map[string]string{"K8S_AUTH_HOST": "https://env", "K8S_AUTH_API_KEY": "t"}),
		value.DictOf("host", "https://arg", "verify_ssl", true, "ssl_ca_cert", "/ca2", "impersonate_user", "bob"))
	require.NoError(t, err)
	require.Equal(t, "https://arg", cfg.Host)
	require.False(t, cfg.TLSClientConfig.Insecure)
	require.Equal(t, "/ca2", cfg.TLSClientConfig.CAFile)
	require.Equal(t, "bob", cfg.Impersonate.UserName)
}

// K8S_AUTH_KUBECONFIG and KUBECONFIG reach the module as written, ~
// included (kubernetes.core's k8s_full target sets
// K8S_AUTH_KUBECONFIG=~/.kube/customconfig): as the Python client, each
// path of the list has its ~ expanded against HOME, missing ones are
// skipped, and none found is "No configuration found".
func TestKubeconfigEnvTilde(t *testing.T) {
	home := t.TempDir()
	writeKubeconfigFor(t, home, cluster.Host, cluster.AdminToken) // home/config
	args := "{kind: Namespace, name: default}"
	for _, env := range []map[string]string{
		{"HOME": home, "KUBECONFIG": "/nonexistent", "K8S_AUTH_KUBECONFIG": "~/config"},
		{"HOME": home, "KUBECONFIG": "/nonexistent", "K8S_AUTH_KUBECONFIG": "/nonexistent/a:~/missing:~/config"},
		{"HOME": home, "KUBECONFIG": "~/missing:~/config"},
	} {
		res := ok(t, call{mod: "k8s_info", args: args, env: env})
		require.Len(t, res.Default("resources", nil), 1, env)
	}
	for _, env := range []map[string]string{
		{"HOME": home, "KUBECONFIG": "/nonexistent", "K8S_AUTH_KUBECONFIG": "~/missing"},
		{"HOME": home, "KUBECONFIG": "/nonexistent", "K8S_AUTH_KUBECONFIG": "/nonexistent/a:/nonexistent/b"},
		// ~ is HOME's, not another user's home.
		{"HOME": "/nonexistent", "KUBECONFIG": "/nonexistent", "K8S_AUTH_KUBECONFIG": "~/config"},
	} {
		_, msg := fails(t, call{mod: "k8s_info", args: args, env: env})
		require.Equal(t, "Could not create API client: Invalid kube-config file. No configuration found.", msg, env)
	}
}
