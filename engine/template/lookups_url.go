package template

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"github.com/cfzt/cfzt-runner/engine/diag"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// urlLookups returns ansible-core's url lookup.
func urlLookups() family {
	return family{collection: "ansible.builtin", lookups: map[string]LookupFunc{
		"url": lookupURL,
	}}
}

// lookupURL fetches each term with a GET request and returns the body's
// lines (or the whole body without split_lines), as ansible-core's
// open_url does: basic authentication after a challenge (or at once with
// force_basic_auth), the http_agent User-Agent, the follow_redirects
// policy, certificate checks unless validate_certs is off, and proxies
// from the environment unless use_proxy is off. netrc files, GSSAPI and
// cipher lists are not supported.
func lookupURL(c *Ctx, terms []any, a *Args) ([]any, error) {
	opts, err := lookupOptions(c, "url", a)
	if err != nil {
		return nil, err
	}
	if f, _ := opts["follow_redirects"].(string); f == "yes" || f == "no" {
		w := diag.Deprecate("Using 'yes' or 'no' for 'follow_redirects' parameter is deprecated.", "2.22", nil)
		w.Plugin = "lookup plugin 'url'"
		c.warn(w)
	}
	client, err := urlClient(opts)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, t := range terms {
		term := value.Str(t)
		body, err := fetchURL(client, term, opts)
		if err != nil {
			return nil, err
		}
		if opts["split_lines"] == true {
			for _, l := range splitBytesLines(body) {
				out = append(out, l)
			}
		} else {
			out = append(out, body)
		}
	}
	return out, nil
}

// urlClient builds the HTTP client of one url lookup from its options.
func urlClient(opts map[string]any) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: opts["validate_certs"] == false}
	// urllib, under open_url, reads file:// URLs from the local disk.
	tr.RegisterProtocol("file", http.NewFileTransport(http.Dir("/")))
	if ca, _ := opts["ca_path"].(string); ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, Errorf("%s", py.OSErrorText(err, ca))
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		tr.TLSClientConfig.RootCAs = pool
	}
	if opts["use_proxy"] == false {
		tr.Proxy = nil
	}
	if sock, _ := opts["unix_socket"].(string); sock != "" {
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}
	}
	timeout, _ := opts["timeout"].(float64)
	client := &http.Client{Transport: tr, Timeout: time.Duration(timeout * float64(time.Second))}
	unredirected, _ := opts["unredirected_headers"].([]any)
	follow, _ := opts["follow_redirects"].(string)
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		switch follow {
		case "none", "no", "false":
			return http.ErrUseLastResponse
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		for _, h := range unredirected {
			req.Header.Del(value.Str(h))
		}
		return nil
	}
	return client, nil
}

// fetchURL makes the GET request for one term and returns the body, with
// urllib's wording for a failure.
func fetchURL(client *http.Client, term string, opts map[string]any) (string, error) {
	resp, err := urlGet(client, term, opts, opts["force_basic_auth"] == true)
	if err == nil && resp.StatusCode == http.StatusUnauthorized && !(opts["force_basic_auth"] == true) && opts["username"] != nil &&
		strings.HasPrefix(strings.ToLower(resp.Header.Get("WWW-Authenticate")), "basic") {
		resp.Body.Close()
		resp, err = urlGet(client, term, opts, true)
	}
	var unknown *FilterError
	if errors.As(err, &unknown) {
		return "", unknown
	}
	if err != nil {
		return "", urlError(term, err)
	}
	defer resp.Body.Close()
	if resp.Request.URL.Scheme == "file" && resp.StatusCode == http.StatusNotFound {
		// The file transport answers 404; urllib raises the OSError.
		path, _ := url.PathUnescape(resp.Request.URL.Path)
		_, serr := os.Stat(path)
		return "", detachedf("Failed lookup url for %s : <urlopen error %s>", term, py.OSErrorText(serr, path))
	}
	if resp.StatusCode >= 300 {
		reason := strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)+" ")
		return "", detachedf("Received HTTP error for %s : HTTP Error %d: %s", term, resp.StatusCode, reason)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", urlError(term, err)
	}
	return string(body), nil
}

// urlGet sends one GET request with the lookup's headers.
func urlGet(client *http.Client, term string, opts map[string]any, auth bool) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, term, nil)
	if err == nil && req.URL.Scheme == "" {
		err = Errorf("unknown url type: %s", value.Repr(term))
	}
	if err != nil {
		return nil, err
	}
	if agent, _ := opts["http_agent"].(string); agent != "" {
		req.Header.Set("User-Agent", agent)
	}
	if opts["force"] == true {
		req.Header.Set("Cache-Control", "no-cache")
	}
	if h, ok := opts["headers"].(*value.Dict); ok {
		h.Each(func(k string, v any) bool { req.Header.Set(k, value.Str(v)); return true })
	}
	if auth && opts["username"] != nil {
		req.SetBasicAuth(value.Str(opts["username"]), value.Str(opts["password"]))
	}
	return client.Do(req)
}

// urlError words a failed request as urllib's URLError does; ansible-core
// raises it while handling urllib's, so it shows in a section of its own.
func urlError(term string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var certErr *tls.CertificateVerificationError
	if errors.As(err, &certErr) {
		return detachedf("Error validating the server's certificate for %s: %s", term, certErr.Error())
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return detachedf("Failed lookup url for %s : <urlopen error [Errno %d] %s>", term, int(errno), py.Strerror(errno))
	}
	return detachedf("Failed lookup url for %s : <urlopen error %s>", term, err.Error())
}
