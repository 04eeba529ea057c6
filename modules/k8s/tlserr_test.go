package k8s

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/module"
)

// TestUntrustedCertificateWordedAsUrllib3: a server whose certificate the
// connection cannot verify fails the task with urllib3's words, which
// kubernetes.core's k8s_info target (api-server-caching) tests for
// "certificate verify failed".
func TestUntrustedCertificateWordedAsUrllib3(t *testing.T) {
	shared := module.NewShared()
	ok(t, call{mod: "k8s_info", shared: shared, args: "{kind: Namespace, name: default}"})
	u, err := url.Parse(cluster.Host)
	require.NoError(t, err)
	_, msg := fails(t, call{mod: "k8s_info", shared: shared, env: map[string]string{"HOME": t.TempDir()},
		args: "{kind: Namespace, name: default, host: '" + cluster.Host + "', api_key: '" + cluster.AdminToken + "'}"})
	require.Equal(t, "Exception 'HTTPSConnectionPool(host='"+u.Hostname()+"', port="+u.Port()+"): Max retries exceeded with url: /api/v1/namespaces/default "+
		"(Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:992)')))' "+
		"raised while trying to get resource using {'name': 'default'}", msg)
	require.NotContains(t, msg, cluster.AdminToken)
}

// TestSSLVerifyReasons: a self-signed certificate and a name the
// certificate does not cover are worded as OpenSSL words them; other
// transport errors keep Go's words.
func TestSSLVerifyReasons(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	_, err := http.Get(srv.URL + "/api?x=1")
	require.Error(t, err)
	msg := pyTransportError(err)
	require.Contains(t, msg, "Max retries exceeded with url: /api?x=1 (Caused by SSLError")
	require.Contains(t, msg, "certificate verify failed: ")

	// Trusting the server's CA but asking for another name.
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.ServerName = "wrong.invalid"
	_, err = (&http.Client{Transport: tr}).Get(srv.URL + "/")
	require.Error(t, err)
	require.Contains(t, pyTransportError(err), "certificate verify failed: Hostname mismatch, certificate is not valid for 'wrong.invalid'.")

	_, err = http.Get("http://127.0.0.1:1/")
	require.Error(t, err)
	require.Equal(t, err.Error(), pyTransportError(err))
}
