package uri

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules"
)

// options are a uri task's request settings.
type options struct {
	url, method, follow, agent      string
	validate, force, forceBasic     bool
	useProxy, decompress, useNetrc  bool
	timeout                         time.Duration
	caPath, clientCert, clientKey   string
	unixSocket, username, password  string
	headers                         [][2]string
	unredirected                    []string
	lastMod                         time.Time
	getenv                          func(string) (string, bool)
	secretsFromArgs, secretsFromURL []string
}

func (o *options) header(name string) string {
	for _, h := range o.headers {
		if strings.EqualFold(h[0], name) {
			return h[1]
		}
	}
	return ""
}

func (o *options) secrets() []string {
	return append(append([]string(nil), o.secretsFromArgs...), o.secretsFromURL...)
}

// fetched is what fetch_url returns: the info dict and the response.
type fetched struct {
	info   *value.Dict
	status int
	// fatal is set when fetch_url itself fails the module (a ValueError
	// such as an URL without a scheme).
	fatal       string
	gotResponse bool
	httpError   bool
	header      http.Header
	body        []byte
	finalURL    string
}

// filename is get_response_filename: Content-Disposition's filename or
// the last path segment of the final URL, else index.html.
func (f *fetched) filename(fallback string) string {
	if cd := f.header.Get("Content-Disposition"); cd != "" {
		if _, params, err := mime.ParseMediaType(cd); err == nil && params["filename"] != "" {
			return filepath.Base(params["filename"])
		}
	}
	u := f.finalURL
	if u == "" {
		u = fallback
	}
	if pu, err := url.Parse(u); err == nil {
		if b := path.Base(strings.TrimRight(pu.Path, "/")); b != "." && b != "/" && b != "" {
			if s, err := url.PathUnescape(b); err == nil {
				return s
			}
			return b
		}
	}
	return "index.html"
}

// redirect codes urllib's redirect handler answers.
var redirectCodes = map[int]bool{301: true, 302: true, 303: true, 307: true, 308: true}

const maxRedirections = 10

// fetch performs the request with urllib's redirect, cookie and basic-auth
// handling and returns fetch_url's info.
func (o *options) fetch(req *module.Request, data []byte, hasData bool) *fetched {
	f := &fetched{info: value.DictOf("url", o.url, "status", -1), status: -1}
	target, user, pass, done := o.target(f)
	if done != nil {
		return done
	}
	client, err := o.client(req)
	if err != nil {
		return o.failed(f, connFailure(err))
	}
	x := &exchange{o: o, f: f, req: req, client: client, method: o.method, cur: target.String(), firstHost: target.Host,
		data: data, hasData: hasData, jar: &cookieJar{}, visited: map[string]int{}, extraUnredirected: http.Header{}}
	x.setHeaders(target.Hostname(), user, pass)
	return x.run()
}

// target parses the URL and takes the credentials it carries (unless
// url_username is given); a URL urllib cannot open fails at once.
func (o *options) target(f *fetched) (target *url.URL, user, pass string, done *fetched) {
	target, err := url.Parse(o.url)
	if err != nil || target.Scheme == "" {
		f.fatal = fmt.Sprintf("unknown url type: %s", value.Repr(o.url))
		return nil, "", "", f
	}
	switch target.Scheme {
	case "http", "https":
	default:
		return nil, "", "", o.failed(f, "Request failed: <urlopen error unknown url type: "+target.Scheme+">")
	}
	user, pass = o.username, o.password
	if user == "" && target.User != nil {
		user = target.User.Username()
		pass, _ = target.User.Password()
		if pass != "" {
			o.secretsFromURL = append(o.secretsFromURL, pass)
		}
	}
	target.User = nil
	return target, user, pass, nil
}

// exchange is one fetch across its redirects and authentication retries.
type exchange struct {
	o      *options
	f      *fetched
	req    *module.Request
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
	o := x.o
	x.hdr, x.unredirected = http.Header{}, http.Header{}
	if o.agent != "" {
		x.hdr.Set("User-Agent", o.agent)
	}
	if o.force {
		x.hdr.Set("Cache-Control", "no-cache")
	} else if !o.lastMod.IsZero() {
		x.hdr.Set("If-Modified-Since", o.lastMod.UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT"))
	}
	for _, h := range o.headers {
		if contains(o.unredirected, strings.ToLower(h[0])) {
			x.unredirected.Set(h[0], h[1])
		} else {
			x.hdr.Set(h[0], h[1])
		}
	}
	if user != "" {
		x.basic = "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
		if o.forceBasic {
			x.hdr.Set("Authorization", x.basic)
		}
	} else if o.useNetrc {
		if l, p := netrcLogin(o.getenv, host); l != "" && p != "" {
			x.basic = "Basic " + base64.StdEncoding.EncodeToString([]byte(l+":"+p))
			x.hdr.Set("Authorization", x.basic)
			o.secretsFromURL = append(o.secretsFromURL, p)
		}
	}
	if x.basic != "" {
		o.secretsFromURL = append(o.secretsFromURL, authSecrets(x.basic)...)
	}
	if x.hasData && x.hdr.Get("Content-Type") == "" && x.unredirected.Get("Content-Type") == "" {
		x.hdr.Set("Content-Type", "application/x-www-form-urlencoded")
	}
}

// run sends requests until a response ends the exchange.
func (x *exchange) run() *fetched {
	for hop := 0; ; hop++ {
		hreq, resp, body, done := x.send(hop)
		if done != nil {
			return done
		}
		code := resp.StatusCode
		if resp.Close && resp.ProtoAtLeast(1, 1) && resp.Header.Get("Connection") == "" {
			// net/http drops "Connection: close"; urllib keeps it.
			resp.Header.Set("Connection", "close")
		}
		if len(resp.TransferEncoding) > 0 {
			resp.Header.Set("Transfer-Encoding", strings.Join(resp.TransferEncoding, ", "))
		}
		if code >= 200 && code < 300 {
			return x.o.success(x.f, resp, body, x.cur, x.jar)
		}
		if x.answerChallenge(hreq, resp) {
			hop--
			continue
		}
		x.extraUnredirected = http.Header{}
		next, done := x.redirectTarget(resp, body, hop)
		if done != nil {
			return done
		}
		x.follow(next, code)
	}
}

// send sends the request of a hop and reads its response; a transport
// failure ends the exchange.
func (x *exchange) send(hop int) (*http.Request, *http.Response, []byte, *fetched) {
	o := x.o
	hreq, err := http.NewRequestWithContext(x.req.Ctx, x.method, x.cur, nil)
	if err != nil {
		return nil, nil, nil, o.failed(x.f, "Request failed: <urlopen error "+err.Error()+">")
	}
	if x.hasData {
		hreq.Body = io.NopCloser(bytes.NewReader(x.data))
		hreq.ContentLength = int64(len(x.data))
		d := x.data
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
	if c := x.jar.header(hreq.URL); c != "" {
		hreq.Header.Set("Cookie", c)
	}
	// Python's http.client closes the connection after each request.
	hreq.Close = true
	resp, err := x.client.Do(hreq)
	if err != nil {
		modules.ObserveRequest("http", 0)
		return nil, nil, nil, o.failed(x.f, transportError(err))
	}
	body, rerr := readBody(resp, o.timeout)
	resp.Body.Close()
	modules.ObserveRequest("http", resp.StatusCode)
	if rerr != nil {
		return nil, nil, nil, o.failed(x.f, transportError(rerr))
	}
	if o.decompress && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		if b, err := gunzip(body); err == nil {
			body = b
		}
	}
	x.jar.store(resp)
	return hreq, resp, body, nil
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

// redirectTarget is where a response redirects to, as urllib's redirect
// handler decides with follow_redirects; a response it does not follow
// ends the exchange as an HTTP error.
func (x *exchange) redirectTarget(resp *http.Response, body []byte, hop int) (*url.URL, *fetched) {
	o, code := x.o, resp.StatusCode
	reason := strings.TrimSpace(strings.TrimPrefix(resp.Status, fmt.Sprint(code)))
	loc := resp.Header.Get("Location")
	if loc == "" {
		loc = resp.Header.Get("URI")
	}
	if !redirectCodes[code] || loc == "" {
		return nil, o.httpError(x.f, resp, body, code, reason)
	}
	follow := false
	switch o.follow {
	case "urllib2":
		follow = ((x.method == "GET" || x.method == "HEAD") || (code <= 303 && x.method == "POST"))
	case "all", "yes":
		follow = true
	case "safe":
		follow = x.method == "GET" || x.method == "HEAD"
	}
	if !follow {
		return nil, o.httpError(x.f, resp, body, code, reason)
	}
	base, _ := url.Parse(x.cur)
	ref, err := url.Parse(strings.ReplaceAll(loc, " ", "%20"))
	if err != nil {
		return nil, o.httpError(x.f, resp, body, code, reason)
	}
	next := base.ResolveReference(ref)
	if next.Scheme != "http" && next.Scheme != "https" {
		return nil, o.httpError(x.f, resp, body, code, fmt.Sprintf("%s - Redirection to url '%s' is not allowed", reason, next))
	}
	// urllib's loop detection: 4 visits of one URL or 10 distinct URLs.
	if hop > 0 && (x.visited[next.String()] >= 4 || len(x.visited) >= maxRedirections) {
		return nil, o.httpError(x.f, resp, body, code, "The HTTP server returned a redirect error that would lead to an infinite loop.\nThe last 30x error message was:\n"+reason)
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
		if x.o.follow == "urllib2" {
			x.method = "GET"
			if x.o.method == "HEAD" {
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

// failed records a transport failure (status -1) with fetch_url's msg.
func (o *options) failed(f *fetched, msg string) *fetched {
	f.info.Set("msg", msg)
	f.info.Set("status", -1)
	return f
}

// headerInfo adds response headers lower-cased; with join, repeated
// headers are joined with ", " as fetch_url does for a success.
func headerInfo(info *value.Dict, h http.Header, join bool) {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vals := h[k]
		v := vals[len(vals)-1]
		if join {
			v = strings.Join(vals, ", ")
		}
		info.Set(strings.ToLower(k), v)
	}
}

func (o *options) success(f *fetched, resp *http.Response, body []byte, cur string, jar *cookieJar) *fetched {
	headerInfo(f.info, resp.Header, true)
	cookies := value.NewDict(len(jar.list))
	var parts []string
	for _, c := range jar.ordered() {
		cookies.Set(c.Name, c.Value)
		parts = append(parts, c.Name+"="+c.Value)
	}
	f.info.Set("cookies_string", strings.Join(parts, "; "))
	f.info.Set("cookies", cookies)
	n := resp.Header.Get("Content-Length")
	if n == "" {
		n = "unknown"
	}
	f.info.Set("msg", "OK ("+n+" bytes)")
	f.info.Set("url", cur)
	f.info.Set("status", resp.StatusCode)
	f.status, f.gotResponse, f.header, f.body, f.finalURL = resp.StatusCode, true, resp.Header, body, cur
	return f
}

func (o *options) httpError(f *fetched, resp *http.Response, body []byte, code int, reason string) *fetched {
	headerInfo(f.info, resp.Header, false)
	f.info.Set("msg", fmt.Sprintf("HTTP Error %d: %s", code, reason))
	f.info.Set("body", decodeText(body, "utf-8"))
	f.info.Set("status", code)
	f.status, f.gotResponse, f.httpError, f.header, f.body = code, true, true, resp.Header, body
	return f
}

// readBody reads a response body, failing when no data arrives for the
// timeout (Python's socket timeout applies to each read).
func readBody(resp *http.Response, timeout time.Duration) ([]byte, error) {
	if timeout <= 0 {
		return io.ReadAll(resp.Body)
	}
	var buf bytes.Buffer
	chunk := make([]byte, 32*1024)
	timer := time.AfterFunc(timeout, func() { resp.Body.Close() })
	defer timer.Stop()
	for {
		n, err := resp.Body.Read(chunk)
		buf.Write(chunk[:n])
		if err == io.EOF {
			return buf.Bytes(), nil
		}
		if err != nil {
			if !timer.Stop() {
				return nil, errReadTimeout
			}
			return nil, err
		}
		if !timer.Reset(timeout) {
			return nil, errReadTimeout
		}
	}
}

var errReadTimeout = errors.New("read timeout")

// client returns the shared client for the task's TLS, proxy, socket and
// timeout settings, so loops and later tasks reuse it.
func (o *options) client(req *module.Request) (*http.Client, error) {
	key := fmt.Sprintf("uri-client\x00%v\x00%s\x00%s\x00%s\x00%s\x00%v\x00%v", o.validate, o.caPath, o.clientCert, o.clientKey, o.unixSocket, o.useProxy, o.timeout)
	mk := func() (any, error) {
		tc := &tls.Config{}
		if !o.validate {
			tc.InsecureSkipVerify = true
		} else if o.caPath != "" {
			pem, err := os.ReadFile(o.caPath)
			if err != nil {
				return nil, err
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, errNoCerts
			}
			tc.RootCAs = pool
		}
		if o.clientCert != "" {
			keyFile := o.clientKey
			if keyFile == "" {
				keyFile = o.clientCert
			}
			for _, p := range []string{o.clientCert, keyFile} {
				if _, err := os.Stat(p); err != nil {
					return nil, err
				}
			}
			cert, err := tls.LoadX509KeyPair(o.clientCert, keyFile)
			if err != nil {
				return nil, errBadClientCert
			}
			tc.Certificates = []tls.Certificate{cert}
		}
		d := &net.Dialer{Timeout: o.timeout}
		tr := &http.Transport{
			TLSClientConfig:       tc,
			DialContext:           d.DialContext,
			TLSHandshakeTimeout:   o.timeout,
			ResponseHeaderTimeout: o.timeout,
			DisableCompression:    true,
			DisableKeepAlives:     true,
		}
		if o.useProxy {
			tr.Proxy = http.ProxyFromEnvironment
		}
		if o.unixSocket != "" {
			sock := o.unixSocket
			tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
				return d.DialContext(ctx, "unix", sock)
			}
		}
		return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, nil
	}
	c, err := req.Host.Shared().Get(key, mk)
	if err != nil {
		return nil, err
	}
	return c.(*http.Client), nil
}

var (
	errNoCerts       = errors.New("[X509: NO_CERTIFICATE_OR_CRL_FOUND] no certificate or crl found (_ssl.c:4149)")
	errBadClientCert = errors.New("[SSL] PEM lib (_ssl.c:3895)")
)

// connFailure words an error building the TLS context, which fetch_url
// reports as an OSError.
func connFailure(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return "Connection failure: " + errnoText(pe.Err)
	}
	return "Connection failure: " + err.Error()
}

// errnoText renders a syscall error as Python's OSError str does.
func errnoText(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		return fmt.Sprintf("[Errno %d] %s", int(en), py.Strerror(en))
	}
	return err.Error()
}

// transportError words a failed request as urllib and fetch_url word it:
// failures while connecting (and the TLS handshake) are URLErrors,
// "Request failed: <urlopen error ...>"; failures after the request was
// sent are OSErrors, "Connection failure: ...".
func transportError(err error) string {
	urlopen := func(s string) string { return "Request failed: <urlopen error " + s + ">" }
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if err == errReadTimeout || strings.Contains(err.Error(), "timeout awaiting response headers") {
		return "Connection failure: timed out"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		if dnsErr.IsNotFound {
			return urlopen("[Errno -2] Name or service not known")
		}
		return urlopen("[Errno -3] Temporary failure in name resolution")
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		if op.Timeout() {
			return urlopen("timed out")
		}
		return urlopen(errnoText(op.Err))
	}
	if msg, ok := tlsError(err); ok {
		return urlopen(msg)
	}
	if strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") {
		return urlopen("[SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:992)")
	}
	if strings.Contains(err.Error(), "TLS handshake timeout") {
		return urlopen("_ssl.c:993: The handshake operation timed out")
	}
	if strings.Contains(err.Error(), "tls: certificate required") {
		return "Connection failure: [SSL: TLSV13_ALERT_CERTIFICATE_REQUIRED] tlsv13 alert certificate required (_ssl.c:2546)"
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "Connection failure: Remote end closed connection without response"
	}
	var en syscall.Errno
	if errors.As(err, &en) {
		return "Connection failure: " + errnoText(en)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "Connection failure: timed out"
	}
	if errors.Is(err, context.Canceled) {
		return "Connection failure: interrupted"
	}
	return "Connection failure: " + err.Error()
}

// tlsError words certificate failures as OpenSSL does through Python's ssl.
func tlsError(err error) (string, bool) {
	verify := func(s string) (string, bool) {
		return "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: " + s + " (_ssl.c:992)", true
	}
	var ua x509.UnknownAuthorityError
	if errors.As(err, &ua) {
		if c := ua.Cert; c != nil && bytes.Equal(c.RawIssuer, c.RawSubject) {
			return verify("self-signed certificate")
		}
		return verify("unable to get local issuer certificate")
	}
	var he x509.HostnameError
	if errors.As(err, &he) {
		if net.ParseIP(he.Host) != nil {
			return verify(fmt.Sprintf("IP address mismatch, certificate is not valid for '%s'.", he.Host))
		}
		return verify(fmt.Sprintf("Hostname mismatch, certificate is not valid for '%s'.", he.Host))
	}
	var ci x509.CertificateInvalidError
	if errors.As(err, &ci) {
		if ci.Reason == x509.Expired {
			if strings.Contains(ci.Detail, "before") {
				return verify("certificate is not yet valid")
			}
			return verify("certificate has expired")
		}
		return verify("unsupported certificate purpose")
	}
	var rh tls.RecordHeaderError
	if errors.As(err, &rh) {
		return "[SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:992)", true
	}
	return "", false
}

// netrcLogin finds the login and password for host in $NETRC or ~/.netrc.
func netrcLogin(getenv func(string) (string, bool), host string) (string, string) {
	file, ok := getenv("NETRC")
	if !ok || file == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", ""
		}
		file = filepath.Join(home, ".netrc")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", ""
	}
	toks := strings.Fields(string(b))
	var login, pass, defLogin, defPass string
	in, inDefault, found := false, false, false
	for i := 0; i < len(toks); i++ {
		switch toks[i] {
		case "machine":
			if in && found {
				return login, pass
			}
			in, inDefault = i+1 < len(toks) && toks[i+1] == host, false
			if in {
				found = true
			}
			i++
		case "default":
			if in && found {
				return login, pass
			}
			in, inDefault = false, true
		case "login", "password", "account":
			if i+1 >= len(toks) {
				break
			}
			v := toks[i+1]
			switch {
			case in && toks[i] == "login":
				login = v
			case in && toks[i] == "password":
				pass = v
			case inDefault && toks[i] == "login":
				defLogin = v
			case inDefault && toks[i] == "password":
				defPass = v
			}
			i++
		}
	}
	if found {
		return login, pass
	}
	return defLogin, defPass
}
