package bench

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

// KubeProxy is a TLS reverse proxy in front of the apiserver that counts
// the requests passing through it by verb. Both runners talk to the
// apiserver through it (their kubeconfig points at it).
type KubeProxy struct {
	srv *httptest.Server
	// Kubeconfig is a kubeconfig file for the proxy with the admin token.
	Kubeconfig string

	mu     sync.Mutex
	counts map[string]int
}

// StartKubeProxy starts a counting proxy for cluster c, writing its
// kubeconfig and CA into dir.
func StartKubeProxy(c *kubetest.Cluster, dir string) (*KubeProxy, error) {
	target, err := url.Parse(c.Host)
	if err != nil {
		return nil, err
	}
	caPEM, err := os.ReadFile(c.CAFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	p := &KubeProxy{counts: map[string]int{}}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = target.Host
		},
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, MaxIdleConnsPerHost: 64, ForceAttemptHTTP2: true},
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
	}
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.count(r)
		rp.ServeHTTP(w, r)
	}))
	p.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	p.srv.StartTLS()
	ca := filepath.Join(dir, "kube-proxy-ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw}), 0o600); err != nil {
		return nil, err
	}
	p.Kubeconfig = filepath.Join(dir, "kubeconfig")
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: bench
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: admin
  user:
    token: %s
contexts:
- name: bench
  context: {cluster: bench, user: admin, namespace: default}
current-context: bench
`, p.srv.URL, ca, c.AdminToken)
	if err := os.WriteFile(p.Kubeconfig, []byte(kc), 0o600); err != nil {
		return nil, err
	}
	return p, nil
}

// Close stops the proxy.
func (p *KubeProxy) Close() { p.srv.Close() }

// Env is the environment that points both runners at the proxy.
func (p *KubeProxy) Env() map[string]string {
	return map[string]string{"KUBECONFIG": p.Kubeconfig, "K8S_AUTH_KUBECONFIG": p.Kubeconfig}
}

// Take returns the counts since the last call and resets them.
func (p *KubeProxy) Take() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.counts
	p.counts = map[string]int{}
	return out
}

func (p *KubeProxy) count(r *http.Request) {
	v := kubeVerb(r)
	p.mu.Lock()
	p.counts["k8s "+v]++
	p.mu.Unlock()
	if kubeLog != nil {
		fmt.Fprintf(kubeLog, "%s %s %s?%s\n", v, r.Method, r.URL.Path, r.URL.RawQuery)
	}
}

// kubeLog, when BENCH_KUBE_LOG names a file, receives one line per
// proxied request (verb, method, path and query), for finding where two
// runtimes' request counts differ.
var kubeLog = func() *os.File {
	if name := os.Getenv("BENCH_KUBE_LOG"); name != "" {
		if f, err := os.Create(name); err == nil {
			return f
		}
	}
	return nil
}()

// kubeVerb classifies a request as the apiserver's audit log would:
// discovery, list, watch, get, create, update, patch or delete.
func kubeVerb(r *http.Request) string {
	path := strings.Trim(r.URL.Path, "/")
	segs := strings.Split(path, "/")
	var rest []string
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		rest = segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		rest = segs[3:]
	default:
		return "discovery"
	}
	if len(rest) == 0 {
		return "discovery"
	}
	named := false
	switch {
	case rest[0] == "namespaces" && len(rest) >= 4:
		named = true
	case rest[0] == "namespaces" && len(rest) == 3:
		named = false
	default:
		named = len(rest) >= 2
	}
	switch r.Method {
	case http.MethodGet:
		if r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1" {
			return "watch"
		}
		if named {
			return "get"
		}
		return "list"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return strings.ToLower(r.Method)
}

// seedConfigMaps creates namespace ns with n labelled ConfigMaps
// cm-0000, cm-0001, ...
func seedConfigMaps(ctx context.Context, c *kubetest.Cluster, ns string, n int) error {
	cs, err := kubernetes.NewForConfig(c.AdminConfig)
	if err != nil {
		return err
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	work := make(chan int)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				cm := &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i), Namespace: ns,
						Labels: map[string]string{"bench": "cfzt", "shard": fmt.Sprint(i % 10)}},
					// The data of bench/scenarios/k8s/setup-configmaps.yml.
					Data: map[string]string{"index": fmt.Sprint(i), "payload": strings.Repeat("x", 64)},
				}
				if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}
