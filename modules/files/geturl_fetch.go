package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/urls"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// fetchRequest is what get_url asks of fetch_url.
type fetchRequest struct {
	url, method, agent   string
	username, password   string
	force, forceBasic    bool
	useNetrc, decompress bool
	headers              *value.Dict
	unredirected         []string
	lastModified         time.Time
	getenv               func(string) (string, bool)
	conn                 urls.Conn
	gssapi               bool
	ciphers              []string
}

// fetchResult is fetch_url's answer: info (url, status, msg and the
// response headers, lower-cased) and, for a success, the body to read.
type fetchResult struct {
	info   *value.Dict
	status int
	// fatal is fetch_url failing the module itself (an URL without a
	// scheme): the message, with info as the extra keys.
	fatal string
	// msgOnly fails with fatal alone, without info.
	msgOnly bool
	body    io.ReadCloser
	// secrets are credentials found in the URL or .netrc.
	secrets []string
}

// fetchURL performs the request through engine/urls, as fetch_url does:
// file:// URLs read the local file, http(s) follow redirects as urllib2
// does, HTTP errors and connection failures become info.
func fetchURL(ctx context.Context, r fetchRequest) fetchResult {
	res := fetchResult{info: value.DictOf("url", r.url, "status", -1), status: -1}
	var headers [][2]string
	if r.headers != nil {
		r.headers.Each(func(k string, v any) bool {
			headers = append(headers, [2]string{k, value.Str(v)})
			return true
		})
	}
	var unredirected []string
	for _, h := range r.unredirected {
		unredirected = append(unredirected, strings.ToLower(h))
	}
	resp, err := urls.Open(&urls.Request{Ctx: ctx, URL: r.url, Method: r.method, Headers: headers, Unredirected: unredirected,
		Agent: r.agent, Force: r.force, LastModified: r.lastModified, Username: r.username, Password: r.password,
		ForceBasic: r.forceBasic, UseNetrc: r.useNetrc, Follow: "urllib2", Decompress: r.decompress, Cookies: true,
		Stream: true, Getenv: r.getenv, GSSAPI: r.gssapi, Ciphers: r.ciphers, Conn: r.conn})
	res.secrets = resp.Secrets
	var valueErr *urls.ValueError
	var httpErr *urls.HTTPError
	var unsupported *urls.UnsupportedError
	switch {
	case errors.As(err, &unsupported):
		res.fatal, res.msgOnly = unsupported.Text, true
		return res
	case errors.As(err, &valueErr):
		res.fatal = valueErr.Text
		return res
	case errors.As(err, &httpErr):
		infoHeaders(res.info, resp)
		res.status = resp.Status
		res.info.Set("status", resp.Status)
		res.info.Set("msg", httpErr.Error())
		return res
	case err != nil:
		res.info.Set("msg", urls.FetchMessage(err))
		return res
	}
	infoHeaders(res.info, resp)
	length := resp.Header.Get("Content-Length")
	if length == "" {
		length = "unknown"
	}
	res.info.Set("msg", "OK ("+length+" bytes)")
	res.body = resp.Stream
	if resp.File {
		// urllib's file handler has no status code.
		res.info.Set("status", nil)
		res.status = 0
		return res
	}
	res.info.Set("url", resp.URL)
	res.info.Set("status", resp.Status)
	res.status = resp.Status
	return res
}

// infoHeaders adds the answer's headers to info, lower-cased, repeated
// ones joined with ", ".
func infoHeaders(info *value.Dict, resp *urls.Response) {
	keys := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		info.Set(strings.ToLower(k), strings.Join(resp.Header[k], ", "))
	}
}

// copyBody writes a successful answer's body to w; a failure is worded
// as get_url words an exception of shutil.copyfileobj.
func copyBody(res fetchResult, w io.Writer) error {
	defer res.body.Close()
	if _, err := io.Copy(w, res.body); err != nil {
		return fmt.Errorf("failed to create temporary content file: %s", urls.ReadError(err))
	}
	return nil
}
