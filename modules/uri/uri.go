// Package uri implements ansible.builtin's uri and slurp modules natively:
// uri over net/http with ansible-core 2.19's arguments, result keys and
// failure wording, slurp over the local file system.
package uri

import (
	"fmt"
	"mime"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/urls"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Entries registers the HTTP and file modules.
func Entries() []module.Entry {
	return []module.Entry{
		{FQCN: "ansible.builtin.uri", Module: module.Func(runURI)},
		{FQCN: "ansible.builtin.slurp", Module: module.Func(runSlurp)},
	}
}

// uriSpec is ansible.builtin.uri's argument_spec (ansible-core 2.19).
var uriSpec = &argspec.Spec{
	Options: append([]argspec.Option{
		{Name: "url", Type: argspec.Str, Required: true},
		{Name: "force", Type: argspec.Bool, Default: false},
		{Name: "http_agent", Type: argspec.Str, Default: "ansible-httpget"},
		{Name: "use_proxy", Type: argspec.Bool, Default: true},
		{Name: "validate_certs", Type: argspec.Bool, Default: true},
		{Name: "url_username", Type: argspec.Str, Aliases: []string{"user"}},
		{Name: "url_password", Type: argspec.Str, Aliases: []string{"password"}, NoLog: true},
		{Name: "force_basic_auth", Type: argspec.Bool, Default: false},
		{Name: "client_cert", Type: argspec.Path},
		{Name: "client_key", Type: argspec.Path},
		{Name: "use_gssapi", Type: argspec.Bool, Default: false},
		{Name: "follow_redirects", Type: argspec.Str, Default: "safe", Choices: []any{"all", "no", "none", "safe", "urllib2", "yes"}},
		{Name: "dest", Type: argspec.Path},
		{Name: "body", Type: argspec.Raw},
		{Name: "body_format", Type: argspec.Str, Default: "raw", Choices: []any{"form-urlencoded", "json", "raw", "form-multipart"}},
		{Name: "src", Type: argspec.Path},
		{Name: "method", Type: argspec.Str, Default: "GET"},
		{Name: "return_content", Type: argspec.Bool, Default: false},
		{Name: "creates", Type: argspec.Path},
		{Name: "removes", Type: argspec.Path},
		{Name: "status_code", Type: argspec.List, Elements: argspec.Int, Default: []any{200}},
		{Name: "timeout", Type: argspec.Int, Default: 30},
		{Name: "headers", Type: argspec.Dict},
		{Name: "unix_socket", Type: argspec.Path},
		{Name: "remote_src", Type: argspec.Bool, Default: false},
		{Name: "ca_path", Type: argspec.Path},
		{Name: "unredirected_headers", Type: argspec.List, Elements: argspec.Str, Default: []any{}},
		{Name: "decompress", Type: argspec.Bool, Default: true},
		{Name: "ciphers", Type: argspec.List, Elements: argspec.Str},
		{Name: "use_netrc", Type: argspec.Bool, Default: true},
	}, argspec.FileCommonOptions()...),
	Rules: argspec.Rules{MutuallyExclusive: [][]string{{"body", "src"}}},
}

var methodRe = regexp.MustCompile(`^[A-Z]+$`)

// runURI is ansible.builtin.uri.
func runURI(req *module.Request) (*value.Dict, error) {
	if req.Check {
		// The uri action plugin does not support check mode.
		return value.DictOf("changed", false, "msg", "This action (uri) does not support check mode.", "skipped", true), nil
	}
	v := uriSpec.Validate(req.Args)
	if f := v.Failure(req.LegacyName()); f != nil {
		return f, nil
	}
	p := v.P().AsMap()
	o := newOptions(req, p)
	if !methodRe.MatchString(o.method) {
		return module.Failed("Parameter 'method' needs to be a single word in uppercase, like GET or POST."), nil
	}
	prep, early := prepareRequest(req, p, o)
	if early != nil {
		return early, nil
	}
	start := time.Now()
	f := o.fetch(req, prep.data, prep.hasData)
	elapsed := int(time.Since(start).Seconds())
	return uriResult(p, o, f, prep.dest, elapsed), nil
}

// newOptions reads the request options from the validated parameters.
func newOptions(req *module.Request, p map[string]any) *options {
	o := &options{
		url:        p["url"].(string),
		method:     strings.ToUpper(p["method"].(string)),
		follow:     p["follow_redirects"].(string),
		validate:   p["validate_certs"].(bool),
		timeout:    time.Duration(p["timeout"].(int)) * time.Second,
		agent:      p["http_agent"].(string),
		force:      p["force"].(bool),
		forceBasic: p["force_basic_auth"].(bool),
		useProxy:   p["use_proxy"].(bool),
		decompress: p["decompress"].(bool),
		useNetrc:   p["use_netrc"].(bool),
		caPath:     str(p["ca_path"]),
		clientCert: str(p["client_cert"]),
		clientKey:  str(p["client_key"]),
		unixSocket: str(p["unix_socket"]),
		username:   str(p["url_username"]),
		password:   str(p["url_password"]),
		getenv:     req.Getenv,
		gssapi:     p["use_gssapi"] == true,
	}
	if l, ok := p["ciphers"].([]any); ok {
		for _, c := range l {
			o.ciphers = append(o.ciphers, value.Str(c))
		}
	}
	if o.password != "" {
		o.secretsFromArgs = append(o.secretsFromArgs, o.password)
	}
	for _, h := range p["unredirected_headers"].([]any) {
		o.unredirected = append(o.unredirected, strings.ToLower(value.Str(h)))
	}
	return o
}

// preparedRequest is what the request sends, and where its body goes.
type preparedRequest struct {
	data    []byte
	hasData bool
	dest    string
}

// prepareRequest encodes the body, applies creates/removes, reads src and
// sets the headers, in the module's order. A non-nil result ends the
// task before any request: a failure, or the skip of creates/removes.
func prepareRequest(req *module.Request, p map[string]any, o *options) (*preparedRequest, *value.Dict) {
	headers := value.NewDict(4)
	if h, ok := p["headers"].(*value.Dict); ok {
		headers = h
	}
	body, early := encodeBody(req, p, headers)
	if early != nil {
		return nil, early
	}
	if early := creationGuard(p); early != nil {
		return nil, early
	}
	prep := &preparedRequest{}
	if prep.data, prep.hasData, early = requestData(req, p, o.url, body); early != nil {
		return nil, early
	}
	if early := o.setHeaders(headers, p["status_code"].([]any)); early != nil {
		return nil, early
	}
	if v := o.header("Authorization"); v != "" {
		o.secretsFromArgs = append(o.secretsFromArgs, urls.AuthSecrets(v)...)
	}
	prep.dest = str(p["dest"])
	if prep.dest != "" {
		if st, err := os.Stat(prep.dest); err == nil && st.Mode().IsRegular() {
			o.lastMod = st.ModTime()
		}
	}
	return prep, nil
}

// encodeBody encodes the body as body_format asks, setting the
// Content-Type header it implies.
func encodeBody(req *module.Request, p map[string]any, headers *value.Dict) (any, *value.Dict) {
	body := p["body"]
	switch p["body_format"].(string) {
	case "json":
		if _, isStr := body.(string); !isStr {
			body = value.JSON(body, value.JSONOptions{EnsureASCII: true})
		}
		setDefaultHeader(headers, "Content-Type", "application/json")
	case "form-urlencoded":
		if _, isStr := body.(string); !isStr {
			enc, err := formURLEncode(body)
			if err != nil {
				return nil, module.Failed(err.Error())
			}
			body = enc
		}
		setDefaultHeader(headers, "Content-Type", "application/x-www-form-urlencoded")
	case "form-multipart":
		ct, enc, err := multipartBody(body, req)
		if err != nil {
			return nil, module.Failed("failed to parse body as form-multipart: " + err.Error())
		}
		body = enc
		headers.Set("Content-Type", ct)
	}
	return body, nil
}

// creationGuard is creates/removes: the skipped result when the path
// exists (creates) or does not (removes), else nil.
func creationGuard(p map[string]any) *value.Dict {
	if c := str(p["creates"]); c != "" {
		if _, err := os.Stat(c); err == nil {
			return skippedStdout(fmt.Sprintf("skipped, since '%s' exists", c))
		}
	}
	if r := str(p["removes"]); r != "" {
		if _, err := os.Stat(r); err != nil {
			return skippedStdout(fmt.Sprintf("skipped, since '%s' does not exist", r))
		}
	}
	return nil
}

// requestData is what the request sends: src's content, else the body.
func requestData(req *module.Request, p map[string]any, rawURL string, body any) ([]byte, bool, *value.Dict) {
	if src := str(p["src"]); src != "" {
		if !p["remote_src"].(bool) {
			src = findFile(req, src)
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return nil, false, value.DictOf("changed", false, "elapsed", 0, "msg", "Unable to open source file "+src, "failed", true)
		}
		return b, true, nil
	}
	switch b := body.(type) {
	case nil:
		return nil, false, nil
	case string:
		return []byte(b), true, nil
	}
	// urllib cannot send a non-string body.
	return nil, false, value.DictOf("changed", false, "elapsed", 0, "failed", true, "redirected", false, "status", -1, "url", rawURL,
		"msg", fmt.Sprintf("Status code was -1 and not %s: An unknown error occurred: can't concat str to bytes", statusList(p["status_code"].([]any))))
}

// setHeaders takes the request headers; a value that is not a string
// fails the task, as http.client refuses it.
func (o *options) setHeaders(headers *value.Dict, codes []any) *value.Dict {
	var badHeader any
	headers.Each(func(k string, v any) bool {
		switch v.(type) {
		case []any, *value.Dict, nil:
			badHeader = v
			return false
		}
		o.headers = append(o.headers, [2]string{k, value.Str(v)})
		return true
	})
	if badHeader == nil && headers.Len() == len(o.headers) {
		return nil
	}
	return value.DictOf("changed", false, "elapsed", 0, "failed", true, "redirected", false, "status", -1, "url", o.url,
		"msg", fmt.Sprintf("Status code was -1 and not %s: An unknown error occurred: expected string or bytes-like object, got '%s'", statusList(codes), value.TypeName(badHeader)))
}

// uriResult is the module's result for a fetched response: status
// check, the response's headers and content (decoded, and parsed when it
// is JSON), dest written, secrets masked.
func uriResult(p map[string]any, o *options, f *fetched, dest string, elapsed int) *value.Dict {
	codes := p["status_code"].([]any)
	statusOK := false
	for _, c := range codes {
		if c.(int) == f.status {
			statusOK = true
		}
	}
	if f.crash != nil && f.crashMsg {
		return module.Failed(f.crash.Error())
	}
	if f.crash != nil {
		return module.Crashed(f.crash)
	}
	if f.fatal != "" {
		// fetch_url's ConnectionError/ValueError path: fail_json with info only.
		res := value.DictOf("changed", false, "msg", f.fatal, "failed", true, "status", -1, "url", o.url)
		return mask(res, o.secrets())
	}
	_, sub, charset := parseContentType(f)
	maybeJSON := false
	if sub != "" {
		s := sub
		if _, suffix, ok := strings.Cut(sub, "+"); ok {
			s = suffix
		}
		s = strings.ToLower(s)
		maybeJSON = s == "json" || s == "javascript"
	}
	returnContent := p["return_content"].(bool)
	maybeOutput := maybeJSON || returnContent || !statusOK

	resp := value.NewDict(16)
	resp.Set("redirected", f.info.Default("url", "") != o.url)
	resp.Update(f.info)
	var content []byte
	haveContent := false
	if maybeOutput {
		content, haveContent = f.body, true
		if f.httpError || f.status == -1 {
			// uri pops the error body from info once read.
			resp.Delete("body")
		}
	}
	resp.Set("elapsed", elapsed)
	resp.Set("changed", false)
	if dest != "" && f.gotResponse && !saveDest(resp, f, o.url, dest, statusOK) {
		return mask(resp, o.secrets())
	}
	out := responseKeys(resp, o.url)
	var text any
	if haveContent {
		t := decodeText(content, charset)
		text = t
		if maybeJSON {
			if js, err := value.DecodeJSON([]byte(t)); err == nil {
				out.Set("json", js)
			}
		}
	}
	if !statusOK {
		msg := fmt.Sprintf("Status code was %d and not %s: %s", f.status, statusList(codes), value.Str(out.Default("msg", "")))
		out.Delete("msg")
		out.Set("msg", msg)
		out.Set("failed", true)
	}
	if returnContent {
		out.Set("content", text)
	}
	return mask(out, o.secrets())
}

// saveDest writes a successful response's body to dest (a file in it when
// it is a directory) and records it in resp; false when the write failed,
// which resp then reports.
func saveDest(resp *value.Dict, f *fetched, rawURL, dest string, statusOK bool) bool {
	if statusOK && f.status != 304 {
		if st, err := os.Stat(dest); err == nil && st.IsDir() {
			dest = filepath.Join(dest, f.filename(rawURL))
		}
		if err := writeAtomic(dest, f.body); err != nil {
			msg := err.Error()
			if m := value.Str(resp.Default("msg", "")); m != "" {
				msg += " " + m
			}
			resp.Delete("msg")
			resp.Set("msg", msg)
			resp.Set("failed", true)
			return false
		}
		resp.Set("changed", true)
		addFileAttrs(resp, dest)
	}
	resp.Set("path", dest)
	return true
}

// responseKeys are the result's keys as uri names them: lower case with
// underscores, the Location header made absolute.
func responseKeys(resp *value.Dict, rawURL string) *value.Dict {
	out := value.NewDict(resp.Len() + 2)
	resp.Each(func(k string, v any) bool {
		out.Set(strings.ToLower(strings.ReplaceAll(k, "-", "_")), v)
		return true
	})
	if loc, ok := out.Get("location"); ok {
		if base, err := url.Parse(rawURL); err == nil {
			if ref, err := url.Parse(value.Str(loc)); err == nil {
				out.Set("location", base.ResolveReference(ref).String())
			}
		}
	}
	return out
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return value.Str(v)
}

// statusList renders status_code as Python prints a list of ints.
func statusList(codes []any) string {
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = strconv.Itoa(c.(int))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func skippedStdout(s string) *value.Dict {
	return value.DictOf("changed", false, "stdout", s, "stdout_lines", []any{s})
}

// setDefaultHeader sets a header unless one of that name (any case) exists.
func setDefaultHeader(h *value.Dict, name, val string) {
	for _, k := range h.Keys() {
		if strings.EqualFold(k, name) {
			return
		}
	}
	h.Set(name, val)
}

// formURLEncode is uri's form_urlencoded: a dict or a list of pairs, list
// values repeated, None values dropped, encoded like urllib's urlencode.
func formURLEncode(body any) (string, error) {
	var pairs [][2]any
	switch b := body.(type) {
	case nil:
		return "", nil
	case *value.Dict:
		b.Each(func(k string, v any) bool { pairs = append(pairs, [2]any{k, v}); return true })
	case []any:
		for _, e := range b {
			switch x := e.(type) {
			case []any:
				if len(x) != 2 {
					return "", fmt.Errorf("failed to parse body as form_urlencoded: too many values to unpack (expected 2)")
				}
				pairs = append(pairs, [2]any{x[0], x[1]})
			case *value.Dict:
				return "", fmt.Errorf("failed to parse body as form_urlencoded: too many values to unpack (expected 2)")
			default:
				return "", fmt.Errorf("failed to parse body as form_urlencoded: not enough values to unpack (expected 2, got 1)")
			}
		}
	default:
		return value.Str(body), nil
	}
	var out []string
	for _, kv := range pairs {
		vals, ok := kv[1].([]any)
		if !ok {
			vals = []any{kv[1]}
		}
		for _, v := range vals {
			if v == nil {
				continue
			}
			out = append(out, quotePlus(value.Str(kv[0]))+"="+quotePlus(value.Str(v)))
		}
	}
	return strings.Join(out, "&"), nil
}

// quotePlus is urllib.parse.quote_plus with its default safe set.
func quotePlus(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("_.-~", c) >= 0:
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// findFile resolves a relative src as the action plugin's
// _find_needle('files') does; an unfound name is returned as it is, for
// the module's own "not found" error.
func findFile(req *module.Request, name string) string {
	if p, _, ok := req.Host.FindFile("files", name); ok {
		return p
	}
	return name
}

// parseContentType is urls.parse_content_type over the response headers:
// the content type (text/plain when absent, as Python's email package
// answers), its subtype and the charset (utf-8 by default).
func parseContentType(f *fetched) (ctype, sub, charset string) {
	if !f.gotResponse {
		return "application/octet-stream", "octet-stream", "utf-8"
	}
	ctype, charset = "text/plain", "utf-8"
	if raw := f.header.Get("Content-Type"); raw != "" {
		mt, params, err := mime.ParseMediaType(raw)
		if err == nil && strings.Count(mt, "/") == 1 {
			ctype = strings.ToLower(mt)
			if cs := params["charset"]; cs != "" {
				charset = strings.ToLower(strings.Split(cs, ",")[0])
			}
		}
	}
	_, sub, _ = strings.Cut(ctype, "/")
	return ctype, sub, charset
}

// decodeText decodes a body with its charset, as to_text does.
func decodeText(b []byte, charset string) string {
	switch strings.ReplaceAll(charset, "_", "-") {
	case "iso-8859-1", "latin-1", "latin1", "l1":
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		return string(r)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// writeAtomic writes dest through a temporary file in its directory.
func writeAtomic(dest string, content []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".cfzt-uri-*")
	if err != nil {
		return fmt.Errorf("Failed to create temporary content file: %v", err)
	}
	_, werr := tmp.Write(content)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), dest)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("failed to copy %s to %s: %v", tmp.Name(), dest, werr)
	}
	return nil
}

// addFileAttrs adds the file keys exit_json adds for a path result.
func addFileAttrs(res *value.Dict, path string) {
	st, err := os.Stat(path)
	if err != nil {
		return
	}
	uid, gid := fileOwner(st)
	res.Set("uid", uid)
	res.Set("gid", gid)
	owner, group := strconv.Itoa(uid), strconv.Itoa(gid)
	if u, err := user.LookupId(owner); err == nil {
		owner = u.Username
	}
	if g, err := user.LookupGroupId(group); err == nil {
		group = g.Name
	}
	res.Set("owner", owner)
	res.Set("group", group)
	res.Set("mode", fmt.Sprintf("%04o", st.Mode().Perm()))
	res.Set("state", "file")
	res.Set("size", int(st.Size()))
}

// mask replaces every occurrence of a secret in the result's strings (and
// keys, except Ansible's reserved ones) with ********, as AnsibleModule
// does for no_log parameters.
func mask(res *value.Dict, secrets []string) *value.Dict {
	if len(secrets) == 0 {
		return res
	}
	return maskValue(res, secrets).(*value.Dict)
}

var noModifyKeys = map[string]bool{"msg": true, "exception": true, "warnings": true, "deprecations": true, "failed": true,
	"skipped": true, "changed": true, "rc": true, "stdout": true, "stderr": true, "elapsed": true, "path": true,
	"location": true, "content_type": true}

func maskValue(v any, secrets []string) any {
	switch x := v.(type) {
	case string:
		for _, s := range secrets {
			if s != "" {
				x = strings.ReplaceAll(x, s, "********")
			}
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = maskValue(e, secrets)
		}
		return out
	case *value.Dict:
		out := value.NewDict(x.Len())
		x.Each(func(k string, e any) bool {
			nk := k
			if !noModifyKeys[k] {
				nk = maskValue(k, secrets).(string)
			}
			out.Set(nk, maskValue(e, secrets))
			return true
		})
		return out
	}
	return v
}
