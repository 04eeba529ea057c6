// Package uritest serves the fixed HTTP and HTTPS endpoints that the uri
// module's tests and golden playbooks call, from loopback, with a private CA
// generated at start. The recording script (testdata/record.sh) runs the
// same server for the reference ansible-playbook, so both runners see
// byte-identical responses.
package uritest

import (
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server is the running set of test servers.
type Server struct {
	// HTTP, HTTPS and MTLS are base URLs (no trailing slash). MTLS requires
	// a client certificate signed by the CA.
	HTTP, HTTPS, MTLS string
	// Refused is a loopback URL with nothing listening.
	Refused string
	// CAFile, ClientCert and ClientKey are PEM files in the directory
	// given to Start.
	CAFile, ClientCert, ClientKey string

	servers []*httptest.Server
	mu      sync.Mutex
	counts  map[string]int
}

// Vars are the playbook variables naming the servers.
func (s *Server) Vars() map[string]string {
	return map[string]string{"base": s.HTTP, "tls_base": s.HTTPS, "mtls_base": s.MTLS, "refused": s.Refused,
		"ca_file": s.CAFile, "client_cert": s.ClientCert, "client_key": s.ClientKey}
}

// Close stops every server.
func (s *Server) Close() {
	for _, srv := range s.servers {
		srv.Close()
	}
}

// Start generates a CA, a server certificate for 127.0.0.1 and a client
// certificate into dir and starts the servers.
func Start(dir string) (*Server, error) {
	s := &Server{counts: map[string]int{}}
	ca, caKey, err := newCert(nil, nil, "cfzt uri test CA", true, false)
	if err != nil {
		return nil, err
	}
	srvCert, srvKey, err := newCert(ca, caKey, "127.0.0.1", false, false)
	if err != nil {
		return nil, err
	}
	cliCert, cliKey, err := newCert(ca, caKey, "uri-client", false, true)
	if err != nil {
		return nil, err
	}
	s.CAFile = filepath.Join(dir, "ca.pem")
	s.ClientCert = filepath.Join(dir, "client.pem")
	s.ClientKey = filepath.Join(dir, "client-key.pem")
	for path, blocks := range map[string][]*pem.Block{
		s.CAFile:     {{Type: "CERTIFICATE", Bytes: ca.Raw}},
		s.ClientCert: {{Type: "CERTIFICATE", Bytes: cliCert.Raw}},
		s.ClientKey:  {keyBlock(cliKey)},
	} {
		var b []byte
		for _, bl := range blocks {
			b = append(b, pem.EncodeToMemory(bl)...)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return nil, err
		}
	}
	pair := tls.Certificate{Certificate: [][]byte{srvCert.Raw}, PrivateKey: srvKey}
	pool := x509.NewCertPool()
	pool.AddCert(ca)

	plain := httptest.NewServer(s)
	s.servers = append(s.servers, plain)
	s.HTTP = plain.URL

	secure := httptest.NewUnstartedServer(s)
	secure.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	secure.Config.ErrorLog = log.New(io.Discard, "", 0)
	secure.StartTLS()
	s.servers = append(s.servers, secure)
	s.HTTPS = secure.URL

	mtls := httptest.NewUnstartedServer(s)
	mtls.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	mtls.Config.ErrorLog = log.New(io.Discard, "", 0)
	mtls.StartTLS()
	s.servers = append(s.servers, mtls)
	s.MTLS = mtls.URL

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.Refused = "http://" + l.Addr().String()
	l.Close()
	return s, nil
}

func keyBlock(k *ecdsa.PrivateKey) *pem.Block {
	der, _ := x509.MarshalECPrivateKey(k)
	return &pem.Block{Type: "EC PRIVATE KEY", Bytes: der}
}

func newCert(parent *x509.Certificate, parentKey *ecdsa.PrivateKey, cn string, isCA, client bool) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	switch {
	case isCA:
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	case client:
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	default:
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
		tmpl.DNSNames = []string{"localhost"}
	}
	signer, signerKey := tmpl, key
	if parent != nil {
		signer, signerKey = parent, parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

func write(w http.ResponseWriter, code int, ctype string, body []byte) {
	if ctype != "" {
		w.Header().Set("Content-Type", ctype)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	w.Write(body)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, _ := json.Marshal(v)
	write(w, code, "application/json", b)
}

// ServeHTTP answers the fixed endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/json":
		w.Header().Add("Set-Cookie", "session=abc123; Path=/")
		w.Header().Add("Set-Cookie", "theme=dark")
		w.Header().Set("X-Request-Id", "req-1")
		write(w, 200, "application/json", []byte(`{"name": "cfzt", "items": [1, 2, 3], "nested": {"ok": true, "ratio": 0.5}}`))
	case p == "/problem":
		write(w, 200, "application/problem+json; charset=utf-8", []byte(`{"title": "Gone"}`))
	case p == "/text":
		write(w, 200, "text/plain; charset=utf-8", []byte("hello, world\n"))
	case p == "/notfound":
		write(w, 404, "application/json", []byte(`{"error": "no such thing"}`))
	case p == "/missing":
		write(w, 404, "text/html", []byte("<p>missing</p>"))
	case p == "/server-error":
		write(w, 503, "text/plain", []byte("try later"))
	case p == "/redirect":
		w.Header().Set("Location", "/json")
		write(w, 302, "", nil)
	case p == "/redirect-chain":
		w.Header().Set("Location", "/redirect")
		write(w, 301, "", nil)
	case p == "/redirect-307":
		w.Header().Set("Location", "/echo")
		write(w, 307, "", nil)
	case p == "/redirect-loop":
		w.Header().Set("Location", "/redirect-loop")
		write(w, 302, "", nil)
	case p == "/cookie-redirect":
		w.Header().Add("Set-Cookie", "step=one; Path=/")
		w.Header().Set("Location", "/echo")
		write(w, 302, "", nil)
	case p == "/slow":
		time.Sleep(2 * time.Second)
		write(w, 200, "text/plain", []byte("late"))
	case p == "/gzip":
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "text/plain")
		zw := gzip.NewWriter(w)
		io.WriteString(zw, "unzipped text")
		zw.Close()
	case p == "/chunked":
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(200)
		io.WriteString(w, "part one, ")
		w.(http.Flusher).Flush()
		io.WriteString(w, "part two")
	case p == "/basic":
		user, pass, ok := r.BasicAuth()
		if !ok || user != "alice" || pass != "s3cr3t-pass" {
			w.Header().Set("WWW-Authenticate", `Basic realm="cfzt"`)
			write(w, 401, "text/plain", []byte("unauthorized"))
			return
		}
		writeJSON(w, 200, map[string]any{"user": user})
	case p == "/bearer":
		if r.Header.Get("Authorization") != "Bearer tok-0123456789" {
			writeJSON(w, 403, map[string]any{"error": "forbidden"})
			return
		}
		writeJSON(w, 200, map[string]any{"authorized": true})
	case strings.HasPrefix(p, "/flaky/"):
		// 429 twice, then 200, counted per path.
		s.mu.Lock()
		s.counts[p]++
		n := s.counts[p]
		s.mu.Unlock()
		if n <= 2 {
			w.Header().Set("Retry-After", "0")
			writeJSON(w, 429, map[string]any{"error": "rate limited", "attempt": n})
			return
		}
		writeJSON(w, 200, map[string]any{"attempt": n})
	case p == "/echo":
		body, _ := io.ReadAll(r.Body)
		out := map[string]any{
			"method":       r.Method,
			"body":         string(body),
			"content_type": r.Header.Get("Content-Type"),
			"user_agent":   r.Header.Get("User-Agent"),
			"cookie":       r.Header.Get("Cookie"),
			"x_custom":     r.Header.Get("X-Custom"),
			"has_auth":     r.Header.Get("Authorization") != "",
			"query":        r.URL.RawQuery,
		}
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			out["client_cn"] = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		writeJSON(w, 200, out)
	default:
		write(w, 500, "text/plain", []byte("unknown test endpoint "+p))
	}
}

var (
	dateRe = regexp.MustCompile(`"date": "[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT"`)
	portRe = regexp.MustCompile(`127\.0\.0\.1:\d+`)
)

// Normalize makes a run's output comparable: dates, ports and the
// directories given are replaced by placeholders.
func Normalize(out string, dirs map[string]string) string {
	for dir, name := range dirs {
		if dir != "" {
			out = strings.ReplaceAll(out, dir, name)
		}
	}
	out = dateRe.ReplaceAllString(out, `"date": "DATE"`)
	return portRe.ReplaceAllString(out, "127.0.0.1:PORT")
}

// BasicAuth is the Authorization value for the /basic endpoint.
func BasicAuth() string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:s3cr3t-pass"))
}

// String describes the servers.
func (s *Server) String() string {
	return fmt.Sprintf("http=%s https=%s mtls=%s", s.HTTP, s.HTTPS, s.MTLS)
}
