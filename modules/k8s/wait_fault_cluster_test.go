package k8s

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// faultProxy forwards to the test apiserver and lets a test break one
// response: the status line and a truncated body, then a closed
// connection, which no HTTP client retries on its own.
type faultProxy struct {
	srv    *httptest.Server
	caFile string

	mu     sync.Mutex
	break_ func(r *http.Request) bool // true: break this response
}

func newFaultProxy(t *testing.T) *faultProxy {
	t.Helper()
	target, err := url.Parse(cluster.Host)
	require.NoError(t, err)
	caPEM, err := os.ReadFile(cluster.CAFile)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(caPEM))
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	p := &faultProxy{}
	p.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		brk := p.break_ != nil && p.break_(r)
		p.mu.Unlock()
		if brk {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"kind\":")
				_ = buf.Flush()
				_ = conn.Close()
			}
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	p.caFile = filepath.Join(t.TempDir(), "proxy-ca.crt")
	require.NoError(t, os.WriteFile(p.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw}), 0o600))
	return p
}

func (p *faultProxy) env() map[string]string {
	e := adminEnv()
	e["K8S_AUTH_HOST"] = p.srv.URL
	e["K8S_AUTH_SSL_CA_CERT"] = p.caFile
	return e
}

// TestWaitAbsentSurvivesDroppedResponse: a wait for state absent whose
// poll fails on the wire must not take the failure for "gone". As in
// kubernetes.core's Waiter, the last object fetched is judged again and
// the wait goes on; here the object really goes away after the broken
// poll, so the wait succeeds. (The old code reported the transport error
// at once, although the object still existed.)
func TestWaitAbsentSurvivesDroppedResponse(t *testing.T) {
	ns := namespace(t, "wait-fault")
	ok(t, call{mod: "k8s", args: "{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: held, namespace: " + ns + ", finalizers: [cfzt.test/hold]}}}"})
	dyn, err := cluster.Dynamic()
	require.NoError(t, err)

	p := newFaultProxy(t)
	deleted, polls := false, 0
	var releaseErr error
	p.break_ = func(r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/configmaps/held") {
			return false
		}
		if r.Method == http.MethodDelete {
			deleted = true
			return false
		}
		if !deleted || r.Method != http.MethodGet {
			return false
		}
		// The first poll after the delete sees the object held by its
		// finalizer; the second is broken, and meanwhile the finalizer is
		// released, so the third finds the object gone.
		polls++
		if polls != 2 {
			return false
		}
		_, releaseErr = dyn.Resource(cmGVR).Namespace(ns).Patch(context.Background(), "held", types.MergePatchType,
			[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		return true
	}
	res := ok(t, call{mod: "k8s", env: p.env(), args: "{state: absent, wait: true, wait_timeout: 30, wait_sleep: 1, api_version: v1, kind: ConfigMap, name: held, namespace: " + ns + "}"})
	require.NoError(t, releaseErr)
	require.GreaterOrEqual(t, polls, 3, "the proxy broke the second poll and the wait went on")
	require.True(t, changed(res))
	require.Nil(t, live(t, cmGVR, ns, "held"))
}
