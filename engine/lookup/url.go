package lookup

import (
	"errors"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/urls"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// urlLookups returns ansible-core's url lookup.
func urlLookups() template.Library {
	return template.Library{Collection: "ansible.builtin",
		Lookups: map[string]template.LookupFunc{
			"url": lookupURL,
		},
		LookupOptions: optionsOf("url"),
	}
}

// lookupURL fetches each term with a GET request and returns the body's
// lines (or the whole body without split_lines), as ansible-core's
// open_url does: basic authentication after a challenge (or at once with
// force_basic_auth), the http_agent User-Agent, the follow_redirects
// policy, certificate checks unless validate_certs is off, and proxies
// from the environment unless use_proxy is off, .netrc. GSSAPI and
// cipher lists are refused (engine/urls).
func lookupURL(c *template.Ctx, terms []any, a *template.Args) ([]any, error) {
	opts, err := c.LookupOptions("url", a)
	if err != nil {
		return nil, err
	}
	if f, _ := opts["follow_redirects"].(string); f == "yes" || f == "no" {
		w := diag.Deprecate("Using 'yes' or 'no' for 'follow_redirects' parameter is deprecated.", "2.22", nil)
		w.Plugin = "lookup plugin 'url'"
		c.Warn(w)
	}
	out := []any{}
	for _, t := range terms {
		term := value.Str(t)
		body, err := fetchURL(c, term, opts)
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

// fetchURL makes the GET request for one term through engine/urls
// (open_url) and returns the body, with the lookup's wording for a
// failure.
func fetchURL(c *template.Ctx, term string, opts map[string]any) (string, error) {
	str := func(k string) string { v, _ := opts[k].(string); return v }
	timeout, _ := opts["timeout"].(float64)
	r := &urls.Request{URL: term, Agent: str("http_agent"), Force: opts["force"] == true,
		Username: str("username"), Password: str("password"), ForceBasic: opts["force_basic_auth"] == true,
		UseNetrc: opts["use_netrc"] != false, Follow: str("follow_redirects"), Decompress: true,
		GSSAPI: opts["use_gssapi"] == true, Getenv: c.Engine().Getenv,
		Conn: urls.Conn{ValidateCerts: opts["validate_certs"] != false, UseProxy: opts["use_proxy"] != false,
			CAPath: str("ca_path"), UnixSocket: str("unix_socket"), Timeout: time.Duration(timeout * float64(time.Second))}}
	if h, ok := opts["headers"].(*value.Dict); ok {
		h.Each(func(k string, v any) bool { r.Headers = append(r.Headers, [2]string{k, value.Str(v)}); return true })
	}
	if l, ok := opts["unredirected_headers"].([]any); ok {
		for _, h := range l {
			r.Unredirected = append(r.Unredirected, strings.ToLower(value.Str(h)))
		}
	}
	if l, ok := opts["ciphers"].([]any); ok {
		for _, s := range l {
			r.Ciphers = append(r.Ciphers, value.Str(s))
		}
	}
	resp, err := urls.Open(r)
	var httpErr *urls.HTTPError
	var urlErr *urls.URLError
	switch {
	case errors.As(err, &httpErr):
		return "", template.Detachedf("Received HTTP error for %s : %s", term, httpErr.Error())
	case errors.As(err, &urlErr):
		return "", template.Detachedf("Failed lookup url for %s : %s", term, urlErr.Error())
	case err != nil:
		return "", template.Errorf("%s", err.Error())
	}
	return string(resp.Body), nil
}
