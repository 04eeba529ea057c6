package files

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
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

// fetchRequest is what get_url asks of fetch_url.
type fetchRequest struct {
	url, method, agent   string
	username, password   string
	force, forceBasic    bool
	validateCerts, proxy bool
	timeout              time.Duration
	headers              *value.Dict
	unredirected         []string
	lastModified         time.Time
}

// fetchResult is fetch_url's answer: info (url, status, msg and the
// response headers, lower-cased) and the body, streamed to w.
type fetchResult struct {
	info   *value.Dict
	status int
	// fatal is fetch_url failing the module itself (an URL without a
	// scheme): the message, with info as the extra keys.
	fatal string
}

// fetchURL performs the request and writes the body to w, as fetch_url
// and urllib do: file:// URLs read the local file, http(s) follow
// redirects, HTTP errors and connection failures become info.
func fetchURL(ctx context.Context, r fetchRequest, w io.Writer) fetchResult {
	res := fetchResult{info: value.DictOf("url", r.url, "status", -1), status: -1}
	u, err := url.Parse(r.url)
	if err != nil || u.Scheme == "" {
		res.fatal = "unknown url type: " + value.Repr(r.url)
		return res
	}
	switch u.Scheme {
	case "file":
		return fetchFile(u, w, res)
	case "http", "https":
	default:
		return failedFetch(res, "Request failed: <urlopen error unknown url type: "+u.Scheme+">")
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.url, nil)
	if err != nil {
		return failedFetch(res, "Request failed: <urlopen error "+err.Error()+">")
	}
	r.setHeaders(req)
	resp, err := r.client().Do(req)
	if err != nil {
		return failedFetch(res, transferFailure(err))
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		res.info.Set(strings.ToLower(k), strings.Join(v, ", "))
	}
	res.status = resp.StatusCode
	res.info.Set("status", resp.StatusCode)
	res.info.Set("url", resp.Request.URL.String())
	if resp.StatusCode >= 400 || resp.StatusCode == http.StatusNotModified {
		res.info.Set("msg", fmt.Sprintf("HTTP Error %d: %s", resp.StatusCode, http.StatusText(resp.StatusCode)))
		if resp.StatusCode == http.StatusNotModified {
			res.info.Set("msg", "HTTP Error 304: Not Modified")
		}
		return res
	}
	length := "unknown"
	if cl := resp.Header.Get("Content-Length"); cl != "" {
		length = cl
	}
	res.info.Set("msg", "OK ("+length+" bytes)")
	if _, err := io.Copy(w, resp.Body); err != nil {
		return failedFetch(res, "Connection failure: "+err.Error())
	}
	return res
}

// setHeaders adds the user agent, caching and auth headers and the task's
// headers to req.
func (r fetchRequest) setHeaders(req *http.Request) {
	req.Header.Set("User-Agent", r.agent)
	if r.force {
		req.Header.Set("Cache-Control", "no-cache")
	} else if !r.lastModified.IsZero() {
		req.Header.Set("If-Modified-Since", r.lastModified.UTC().Format(http.TimeFormat))
	}
	if r.username != "" && r.forceBasic {
		req.SetBasicAuth(r.username, r.password)
	}
	if r.headers != nil {
		r.headers.Each(func(k string, v any) bool {
			req.Header.Set(k, value.Str(v))
			return true
		})
	}
}

// client is urllib's opener for the request: the timeout, certificate
// checks, proxies from the environment, and redirects that drop the
// unredirected headers.
func (r fetchRequest) client() *http.Client {
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: !r.validateCerts}}
	if r.proxy {
		tr.Proxy = http.ProxyFromEnvironment
	}
	c := &http.Client{Timeout: r.timeout, Transport: tr}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("maximum redirections exceeded")
		}
		for _, h := range r.unredirected {
			req.Header.Del(h)
		}
		return nil
	}
	if r.username != "" && !r.forceBasic {
		// urllib answers a 401 challenge with the credentials; sending
		// them up front is what a challenged request ends with.
		c.Transport = basicOnChallenge{tr, r.username, r.password}
	}
	return c
}

// basicOnChallenge retries a request that got 401 with basic auth.
type basicOnChallenge struct {
	next       http.RoundTripper
	user, pass string
}

func (b basicOnChallenge) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || req.Header.Get("Authorization") != "" {
		return resp, err
	}
	resp.Body.Close()
	retry := req.Clone(req.Context())
	retry.SetBasicAuth(b.user, b.pass)
	return b.next.RoundTrip(retry)
}

func failedFetch(res fetchResult, msg string) fetchResult {
	res.info.Set("msg", msg)
	res.info.Set("status", -1)
	res.status = -1
	return res
}

// fetchFile answers a file:// URL from the local file system, as urllib's
// FileHandler does (no status code).
func fetchFile(u *url.URL, w io.Writer, res fetchResult) fetchResult {
	path, _ := url.PathUnescape(u.Path)
	f, err := os.Open(path)
	if err != nil {
		return failedFetch(res, "Request failed: <urlopen error "+pyOSError(err)+">")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return failedFetch(res, "Request failed: <urlopen error [Errno 21] Is a directory: "+value.Repr(path)+">")
	}
	res.info.Set("content-type", "text/plain")
	res.info.Set("content-length", strconv.FormatInt(st.Size(), 10))
	res.info.Set("last-modified", st.ModTime().UTC().Format(http.TimeFormat))
	res.info.Set("msg", "OK ("+strconv.FormatInt(st.Size(), 10)+" bytes)")
	res.info.Set("status", nil)
	res.status = 0
	// urllib's FileHandler reads the file whatever the method.
	if _, err := io.Copy(w, f); err != nil {
		return failedFetch(res, "Connection failure: "+err.Error())
	}
	return res
}

// transferFailure words a failed HTTP exchange as urllib does.
func transferFailure(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		return fmt.Sprintf("Request failed: <urlopen error [Errno %d] %s>", int(en), py.Strerror(en))
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "Request failed: <urlopen error [Errno -2] Name or service not known>"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "Request failed: <urlopen error timed out>"
	}
	return "Request failed: <urlopen error " + err.Error() + ">"
}
