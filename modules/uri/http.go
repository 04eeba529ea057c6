package uri

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/urls"
	"github.com/cfzt/cfzt-runner/engine/value"
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
	gssapi                          bool
	ciphers                         []string
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
	fatal string
	// crash is an exception uri raises on the answer.
	crash error
	// crashMsg makes crash fail_json(msg) rather than an exception.
	crashMsg    bool
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

// fetch performs the request through engine/urls (open_url, with
// fetch_url's cookie jar) and returns fetch_url's info.
func (o *options) fetch(req *module.Request, data []byte, hasData bool) *fetched {
	f := &fetched{info: value.DictOf("url", o.url, "status", -1), status: -1}
	r := &urls.Request{Ctx: req.Ctx, URL: o.url, Method: o.method, Data: data, HasData: hasData,
		Headers: o.headers, Unredirected: o.unredirected, Agent: o.agent, Force: o.force, LastModified: o.lastMod,
		Username: o.username, Password: o.password, ForceBasic: o.forceBasic, UseNetrc: o.useNetrc,
		Follow: o.follow, Decompress: o.decompress, Cookies: true, Getenv: o.getenv, GSSAPI: o.gssapi, Ciphers: o.ciphers,
		Conn: urls.Conn{ValidateCerts: o.validate, UseProxy: o.useProxy, CAPath: o.caPath, ClientCert: o.clientCert,
			ClientKey: o.clientKey, UnixSocket: o.unixSocket, Timeout: o.timeout}}
	resp, err := urls.Open(r)
	o.secretsFromURL = append(o.secretsFromURL, resp.Secrets...)
	var valueErr *urls.ValueError
	var httpErr *urls.HTTPError
	var unsupported *urls.UnsupportedError
	switch {
	case errors.As(err, &unsupported):
		f.crash = unsupported
		f.crashMsg = true
		return f
	case errors.As(err, &valueErr):
		f.fatal = valueErr.Text
		return f
	case errors.As(err, &httpErr):
		return o.httpError(f, resp, httpErr.Msg)
	case err != nil:
		return o.failed(f, urls.FetchMessage(err))
	case resp.File:
		// fetch_url's info has no status for urllib's file handler, and
		// uri's int(info['status']) raises.
		f.crash = errors.New("int() argument must be a string, a bytes-like object or a real number, not 'NoneType'")
		return f
	}
	return o.success(f, resp)
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

func (o *options) success(f *fetched, resp *urls.Response) *fetched {
	headerInfo(f.info, resp.Header, true)
	cookies := value.NewDict(len(resp.Cookies))
	var parts []string
	for _, c := range resp.Cookies {
		cookies.Set(c[0], c[1])
		parts = append(parts, c[0]+"="+c[1])
	}
	f.info.Set("cookies_string", strings.Join(parts, "; "))
	f.info.Set("cookies", cookies)
	n := resp.Header.Get("Content-Length")
	if n == "" {
		n = "unknown"
	}
	f.info.Set("msg", "OK ("+n+" bytes)")
	f.info.Set("url", resp.URL)
	f.info.Set("status", resp.Status)
	f.status, f.gotResponse, f.header, f.body, f.finalURL = resp.Status, true, resp.Header, resp.Body, resp.URL
	return f
}

func (o *options) httpError(f *fetched, resp *urls.Response, reason string) *fetched {
	headerInfo(f.info, resp.Header, false)
	f.info.Set("msg", fmt.Sprintf("HTTP Error %d: %s", resp.Status, reason))
	f.info.Set("body", decodeText(resp.Body, "utf-8"))
	f.info.Set("status", resp.Status)
	f.status, f.gotResponse, f.httpError, f.header, f.body = resp.Status, true, true, resp.Header, resp.Body
	return f
}
