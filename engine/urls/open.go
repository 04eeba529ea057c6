// Package urls is ansible-core's module_utils/urls over net/http: the one
// HTTP client of uri, get_url and the url lookup. Open is open_url: the
// connection settings (Conn), redirects as follow_redirects says, Basic
// challenges, .netrc, cookies for fetch_url, gzip, urllib's file://
// handler, and urllib's classes of failure (URLError, OSError,
// ValueError, HTTPError), which each caller words as its Python
// counterpart does. Every request is reported to the observer
// (SetObserver), which the operator's outbound-request metrics install.
package urls

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// MaxBody bounds a body read into memory (a hostile server cannot make
// the run run out of memory); a longer body is an OSError.
const MaxBody = 256 << 20

// maxBody is MaxBody, lowered by tests.
var maxBody = MaxBody

// Request is one open_url call.
type Request struct {
	Ctx         context.Context
	URL, Method string
	// Data is the request body when HasData.
	Data    []byte
	HasData bool
	// Headers are the task's headers, in order; Unredirected names
	// (lower-case) those sent with the first request only.
	Headers      [][2]string
	Unredirected []string
	Agent        string
	// Force asks caches not to answer (Cache-Control: no-cache); else
	// LastModified, when set, makes the request conditional.
	Force        bool
	LastModified time.Time
	// Username and Password are url_username and url_password; without
	// them, credentials in the URL are used, else .netrc (UseNetrc).
	Username, Password string
	ForceBasic         bool
	UseNetrc           bool
	// Follow is follow_redirects: urllib2 (open_url's default), all,
	// yes, safe, none, no.
	Follow     string
	Decompress bool
	// Cookies keeps cookies across redirects, as fetch_url's jar does.
	Cookies bool
	// Stream leaves a successful answer's body unread in Response.Stream.
	Stream bool
	Getenv func(string) (string, bool)
	// GSSAPI (use_gssapi) and Ciphers (ciphers) are refused: Go has no
	// GSSAPI, and its TLS stack cannot take OpenSSL cipher strings.
	GSSAPI  bool
	Ciphers []string
	Conn
}

// Response is the answer to a Request, also returned with a failure for
// what is known by then (the URL reached, the secrets to mask).
type Response struct {
	// Status is the HTTP status; 0 for a file:// answer.
	Status int
	// Reason is the status line's reason phrase.
	Reason string
	Header http.Header
	// Body is the body, read unless Stream was asked for a success.
	Body []byte
	// Stream is a successful answer's body when Stream was asked; the
	// caller closes it. Each read is bounded by the timeout.
	Stream io.ReadCloser
	// URL is the final URL, after redirects.
	URL string
	// Cookies are the jar's cookies, ordered as Python's CookieJar
	// iterates them, as name/value pairs.
	Cookies [][2]string
	// File is true for an answer of urllib's file handler.
	File bool
	// Secrets are the credentials Open found in the URL or .netrc, to
	// mask in results.
	Secrets []string
}

// redirectCodes are the codes urllib's redirect handler answers.
var redirectCodes = map[int]bool{301: true, 302: true, 303: true, 307: true, 308: true}

const maxRedirections = 10

// Open performs r as open_url does. The Response is never nil.
func Open(r *Request) (*Response, error) {
	res := &Response{URL: r.URL}
	if r.GSSAPI {
		return res, &UnsupportedError{"Cannot use GSSAPI authentication: cfzt-runner has no GSSAPI support (use_gssapi)"}
	}
	if len(r.Ciphers) > 0 {
		return res, &UnsupportedError{"cfzt-runner cannot restrict TLS ciphers (ciphers); remove the option to use Go's default cipher suites"}
	}
	target, err := url.Parse(r.URL)
	if err != nil || target.Scheme == "" {
		return res, &ValueError{"unknown url type: " + value.Repr(r.URL)}
	}
	switch target.Scheme {
	case "file":
		return openFile(target, r, res)
	case "http", "https":
	default:
		return res, &URLError{"unknown url type: " + target.Scheme}
	}
	user, pass := r.Username, r.Password
	if user == "" && target.User != nil {
		user = target.User.Username()
		pass, _ = target.User.Password()
		if pass != "" {
			res.Secrets = append(res.Secrets, pass)
		}
	}
	target.User = nil
	client, err := r.client()
	if err != nil {
		return res, err
	}
	ctx := r.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	x := &exchange{r: r, res: res, ctx: ctx, client: client, method: r.Method, cur: target.String(), firstHost: target.Host,
		data: r.Data, hasData: r.HasData, visited: map[string]int{}, extraUnredirected: http.Header{}}
	if x.method == "" {
		x.method = http.MethodGet
		if r.HasData {
			x.method = http.MethodPost
		}
	}
	if r.Cookies {
		x.jar = &cookieJar{}
	}
	x.setHeaders(target.Hostname(), user, pass)
	return x.run()
}

// exchange is one Open across its redirects and authentication retries.
type exchange struct {
	r      *Request
	res    *Response
	ctx    context.Context
	client *http.Client
	// method and cur are the method and URL of the next request;
	// firstHost is the host credentials are meant for.
	method, cur, firstHost string
	// basic is the Basic Authorization value, "" for none.
	basic string
	// hdr goes with every request, unredirected with the first only,
	// extraUnredirected with the next only (an answered challenge).
	hdr, unredirected, extraUnredirected http.Header
	data                                 []byte
	hasData, triedBasic                  bool
	jar                                  *cookieJar
	visited                              map[string]int
}

// setHeaders sets the request headers: user agent, caching, the task's
// headers, and Basic credentials (from the task or the URL, else .netrc).
func (x *exchange) setHeaders(host, user, pass string) {
	r := x.r
	x.hdr, x.unredirected = http.Header{}, http.Header{}
	if r.Agent != "" {
		x.hdr.Set("User-Agent", r.Agent)
	}
	if r.Force {
		x.hdr.Set("Cache-Control", "no-cache")
	} else if !r.LastModified.IsZero() {
		x.hdr.Set("If-Modified-Since", r.LastModified.UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT"))
	}
	for _, h := range r.Headers {
		if contains(r.Unredirected, strings.ToLower(h[0])) {
			x.unredirected.Set(h[0], h[1])
		} else {
			x.hdr.Set(h[0], h[1])
		}
	}
	if user != "" {
		x.basic = "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
		if r.ForceBasic {
			x.hdr.Set("Authorization", x.basic)
		}
	} else if r.UseNetrc {
		if l, p := netrcLogin(r.Getenv, host); l != "" && p != "" {
			x.basic = "Basic " + base64.StdEncoding.EncodeToString([]byte(l+":"+p))
			x.hdr.Set("Authorization", x.basic)
			x.res.Secrets = append(x.res.Secrets, p)
		}
	}
	if x.basic != "" {
		x.res.Secrets = append(x.res.Secrets, AuthSecrets(x.basic)...)
	}
	if x.hasData && x.hdr.Get("Content-Type") == "" && x.unredirected.Get("Content-Type") == "" {
		x.hdr.Set("Content-Type", "application/x-www-form-urlencoded")
	}
}

// run sends requests until an answer ends the exchange.
func (x *exchange) run() (*Response, error) {
	for hop := 0; ; hop++ {
		hreq, resp, err := x.send(hop)
		if err != nil {
			return x.res, err
		}
		code := resp.StatusCode
		if resp.Close && resp.ProtoAtLeast(1, 1) && resp.Header.Get("Connection") == "" {
			// net/http drops "Connection: close"; urllib keeps it.
			resp.Header.Set("Connection", "close")
		}
		if len(resp.TransferEncoding) > 0 {
			resp.Header.Set("Transfer-Encoding", strings.Join(resp.TransferEncoding, ", "))
		}
		x.res.Status, x.res.Header = code, resp.Header
		x.res.Reason = strings.TrimSpace(strings.TrimPrefix(resp.Status, fmt.Sprint(code)))
		if code >= 200 && code < 300 {
			return x.success(resp)
		}
		body, err := x.read(resp)
		if err != nil {
			return x.res, err
		}
		x.res.Body = body
		if x.answerChallenge(hreq, resp) {
			hop--
			continue
		}
		x.extraUnredirected = http.Header{}
		next, err := x.redirectTarget(resp, hop)
		if err != nil {
			return x.res, err
		}
		x.follow(next, code)
	}
}

// success ends the exchange with a 2xx answer, its body read or left
// for the caller.
func (x *exchange) success(resp *http.Response) (*Response, error) {
	x.res.URL = x.cur
	if x.jar != nil {
		for _, c := range x.jar.ordered() {
			x.res.Cookies = append(x.res.Cookies, [2]string{c.Name, c.Value})
		}
	}
	if x.r.Stream {
		var rc io.ReadCloser = &timedBody{body: resp.Body, timeout: x.r.Timeout}
		if x.r.Decompress && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
			zr, err := gzip.NewReader(rc)
			if err == nil {
				rc = &gzipBody{zr, rc}
			} else {
				rc.Close()
				rc = io.NopCloser(bytes.NewReader(nil))
			}
		}
		x.res.Stream = rc
		return x.res, nil
	}
	body, err := x.read(resp)
	if err != nil {
		return x.res, err
	}
	x.res.Body = body
	return x.res, nil
}

// send sends the request of a hop and waits for its answer.
func (x *exchange) send(hop int) (*http.Request, *http.Response, error) {
	hreq, err := http.NewRequestWithContext(x.ctx, x.method, x.cur, nil)
	if err != nil {
		return nil, nil, &URLError{err.Error()}
	}
	if x.hasData {
		d := x.data
		hreq.Body = io.NopCloser(bytes.NewReader(d))
		hreq.ContentLength = int64(len(d))
		hreq.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(d)), nil }
	}
	for k, v := range x.hdr {
		hreq.Header[k] = v
	}
	for k, v := range x.extraUnredirected {
		hreq.Header[k] = v
	}
	if hop == 0 {
		for k, v := range x.unredirected {
			hreq.Header[k] = v
		}
	}
	if hreq.Header.Get("Accept-Encoding") == "" {
		hreq.Header.Set("Accept-Encoding", "identity")
	}
	if x.jar != nil {
		if c := x.jar.header(hreq.URL); c != "" {
			hreq.Header.Set("Cookie", c)
		}
	}
	// Python's http.client closes the connection after each request.
	hreq.Close = true
	resp, err := x.client.Do(hreq)
	if err != nil {
		observe(0)
		return nil, nil, transportError(err)
	}
	observe(resp.StatusCode)
	if x.jar != nil {
		x.jar.store(resp)
	}
	return hreq, resp, nil
}

// read reads and closes an answer's body, bounded by MaxBody and the
// timeout, decompressed when asked.
func (x *exchange) read(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(&timedBody{body: resp.Body, timeout: x.r.Timeout}, int64(maxBody)+1))
	if err != nil {
		return nil, transportError(err)
	}
	if len(body) > maxBody {
		return nil, &OSError{fmt.Sprintf("the answer's body is longer than %d MiB, cfzt-runner's limit", maxBody>>20)}
	}
	if x.r.Decompress && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		if b, err := gunzip(body); err == nil {
			body = b
		}
	}
	return body, nil
}

// answerChallenge is HTTPBasicAuthHandler: it answers a Basic challenge
// once, with the credentials the request did not send.
func (x *exchange) answerChallenge(hreq *http.Request, resp *http.Response) bool {
	if resp.StatusCode != 401 || x.basic == "" || x.triedBasic || hreq.Header.Get("Authorization") == x.basic ||
		!strings.HasPrefix(strings.ToLower(strings.TrimSpace(resp.Header.Get("WWW-Authenticate"))), "basic") {
		return false
	}
	x.triedBasic = true
	x.extraUnredirected.Set("Authorization", x.basic)
	return true
}

// redirectTarget is where an answer redirects to, as urllib's redirect
// handler decides with follow_redirects; an answer it does not follow
// ends the exchange as an HTTPError.
func (x *exchange) redirectTarget(resp *http.Response, hop int) (*url.URL, error) {
	code, reason := resp.StatusCode, x.res.Reason
	httpErr := func(msg string) error { return &HTTPError{Response: x.res, Msg: msg} }
	loc := resp.Header.Get("Location")
	if loc == "" {
		loc = resp.Header.Get("URI")
	}
	if !redirectCodes[code] || loc == "" {
		return nil, httpErr(reason)
	}
	follow := false
	switch x.r.Follow {
	case "urllib2", "":
		follow = (x.method == "GET" || x.method == "HEAD") || (code <= 303 && x.method == "POST")
	case "all", "yes":
		follow = true
	case "safe":
		follow = x.method == "GET" || x.method == "HEAD"
	}
	if !follow {
		return nil, httpErr(reason)
	}
	base, _ := url.Parse(x.cur)
	ref, err := url.Parse(strings.ReplaceAll(loc, " ", "%20"))
	if err != nil {
		return nil, httpErr(reason)
	}
	next := base.ResolveReference(ref)
	if next.Scheme != "http" && next.Scheme != "https" {
		return nil, httpErr(fmt.Sprintf("%s - Redirection to url '%s' is not allowed", reason, next))
	}
	// urllib's loop detection: 4 visits of one URL or 10 distinct URLs.
	if hop > 0 && (x.visited[next.String()] >= 4 || len(x.visited) >= maxRedirections) {
		return nil, httpErr("The HTTP server returned a redirect error that would lead to an infinite loop.\nThe last 30x error message was:\n" + reason)
	}
	x.visited[next.String()]++
	return next, nil
}

// follow prepares the request to next after a redirect with code: the
// method and body urllib keeps, and the credentials that stay behind.
func (x *exchange) follow(next *url.URL, code int) {
	if code != 307 && code != 308 {
		x.hasData = false
		x.hdr.Del("Content-Length")
		x.hdr.Del("Content-Type")
		x.hdr.Del("Transfer-Encoding")
		if (code == 302 || code == 303) && x.method != "HEAD" {
			x.method = "GET"
		}
		if code == 301 && x.method == "POST" {
			x.method = "GET"
		}
		if x.r.Follow == "urllib2" || x.r.Follow == "" {
			x.method = "GET"
			if x.r.Method == "HEAD" {
				x.method = "HEAD"
			}
		}
	}
	// Credentials stay with the host they were meant for (a deliberate
	// difference: urllib would resend them anywhere).
	if next.Host != x.firstHost {
		x.hdr.Del("Authorization")
		x.basic = ""
	}
	x.cur = next.String()
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// AuthSecrets are the values to hide for an Authorization header: the
// whole value and its credential part.
func AuthSecrets(v string) []string {
	out := []string{v}
	if _, cred, ok := strings.Cut(v, " "); ok && len(strings.TrimSpace(cred)) >= 4 {
		out = append(out, strings.TrimSpace(cred))
	}
	return out
}

// gunzip decodes a gzip body, as GzipDecodedReader does.
func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return io.ReadAll(io.LimitReader(zr, int64(maxBody)))
}

// timedBody fails a read that waits longer than timeout for data, as
// Python's socket timeout does for each recv.
type timedBody struct {
	body    io.ReadCloser
	timeout time.Duration
}

func (t *timedBody) Read(p []byte) (int, error) {
	if t.timeout <= 0 {
		return t.body.Read(p)
	}
	fired := make(chan struct{})
	timer := time.AfterFunc(t.timeout, func() { close(fired); t.body.Close() })
	n, err := t.body.Read(p)
	if !timer.Stop() {
		<-fired
		if err != nil && err != io.EOF {
			return n, errReadTimeout
		}
	}
	return n, err
}

func (t *timedBody) Close() error { return t.body.Close() }

type gzipBody struct {
	*gzip.Reader
	under io.Closer
}

func (g *gzipBody) Close() error {
	g.Reader.Close()
	return g.under.Close()
}
