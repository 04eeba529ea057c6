package urls

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"os"
	"time"
)

// Conn is how a request reaches its server: the certificate checks, the
// client certificate, the proxy, a Unix socket and the socket timeout
// (open_url's validate_certs, ca_path, client_cert, client_key,
// use_proxy, unix_socket and timeout).
type Conn struct {
	ValidateCerts, UseProxy       bool
	CAPath, ClientCert, ClientKey string
	UnixSocket                    string
	// Timeout bounds connecting, the TLS handshake, waiting for the
	// answer and each read of the body, as Python's socket timeout does.
	Timeout time.Duration
}

var (
	errNoCerts       = errors.New("[X509: NO_CERTIFICATE_OR_CRL_FOUND] no certificate or crl found (_ssl.c:4149)")
	errBadClientCert = errors.New("[SSL] PEM lib (_ssl.c:3895)")
)

// tlsConfig is the SSL context open_url makes: the CA bundle of ca_path
// (else the system's), the client certificate, or no checks at all.
func (c Conn) tlsConfig() (*tls.Config, error) {
	tc := &tls.Config{}
	if !c.ValidateCerts {
		tc.InsecureSkipVerify = true
	} else if c.CAPath != "" {
		pem, err := os.ReadFile(c.CAPath)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, errNoCerts
		}
		tc.RootCAs = pool
	}
	if c.ClientCert != "" {
		keyFile := c.ClientKey
		if keyFile == "" {
			keyFile = c.ClientCert
		}
		for _, p := range []string{c.ClientCert, keyFile} {
			if _, err := os.Stat(p); err != nil {
				return nil, err
			}
		}
		cert, err := tls.LoadX509KeyPair(c.ClientCert, keyFile)
		if err != nil {
			return nil, errBadClientCert
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// client is the HTTP client of one request. It never follows redirects
// itself (the exchange does, as urllib's handler would) and, like
// Python's http.client, it neither keeps connections nor asks for
// compression.
func (c Conn) client() (*http.Client, error) {
	tc, err := c.tlsConfig()
	if err != nil {
		return nil, &OSError{Text: errnoText(err)}
	}
	d := &net.Dialer{Timeout: c.Timeout}
	tr := &http.Transport{
		TLSClientConfig:       tc,
		DialContext:           d.DialContext,
		TLSHandshakeTimeout:   c.Timeout,
		ResponseHeaderTimeout: c.Timeout,
		DisableCompression:    true,
		DisableKeepAlives:     true,
	}
	if c.UseProxy {
		tr.Proxy = http.ProxyFromEnvironment
	}
	if c.UnixSocket != "" {
		sock := c.UnixSocket
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "unix", sock)
		}
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, nil
}
