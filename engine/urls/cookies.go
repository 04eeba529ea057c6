package urls

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// cookieJar keeps the cookies of one request's redirect chain. It orders
// them as Python's CookieJar iterates: by domain, then path, then name, each
// in order of first appearance.
type cookieJar struct {
	list []*jarCookie
}

type jarCookie struct {
	domain, path string
	hostOnly     bool
	secure       bool
	expires      time.Time
	*http.Cookie
}

// store records a response's Set-Cookie headers.
func (j *cookieJar) store(resp *http.Response) {
	u := resp.Request.URL
	host := strings.ToLower(u.Hostname())
	for _, c := range resp.Cookies() {
		jc := &jarCookie{Cookie: c, secure: c.Secure}
		jc.domain = strings.TrimPrefix(strings.ToLower(c.Domain), ".")
		if jc.domain == "" {
			jc.domain, jc.hostOnly = host, true
		} else if !domainMatch(host, jc.domain) {
			continue
		}
		jc.path = c.Path
		if jc.path == "" || !strings.HasPrefix(jc.path, "/") {
			jc.path = defaultPath(u.Path)
		}
		switch {
		case c.MaxAge < 0:
			jc.expires = time.Unix(1, 0)
		case c.MaxAge > 0:
			jc.expires = time.Now().Add(time.Duration(c.MaxAge) * time.Second)
		case !c.Expires.IsZero():
			jc.expires = c.Expires
		}
		j.put(jc)
	}
}

func (j *cookieJar) put(c *jarCookie) {
	for i, e := range j.list {
		if e.domain == c.domain && e.path == c.path && e.Name == c.Name {
			if !c.expires.IsZero() && c.expires.Before(time.Now()) {
				j.list = append(j.list[:i], j.list[i+1:]...)
				return
			}
			j.list[i] = c
			return
		}
	}
	if !c.expires.IsZero() && c.expires.Before(time.Now()) {
		return
	}
	j.list = append(j.list, c)
}

// ordered lists the live cookies grouped by domain, then path.
func (j *cookieJar) ordered() []*jarCookie {
	var domains, paths []string
	seen := map[string]bool{}
	for _, c := range j.list {
		if !seen["d"+c.domain] {
			seen["d"+c.domain] = true
			domains = append(domains, c.domain)
		}
		if !seen["p"+c.domain+"\x00"+c.path] {
			seen["p"+c.domain+"\x00"+c.path] = true
			paths = append(paths, c.domain+"\x00"+c.path)
		}
	}
	var out []*jarCookie
	for _, d := range domains {
		for _, p := range paths {
			if !strings.HasPrefix(p, d+"\x00") {
				continue
			}
			for _, c := range j.list {
				if c.domain+"\x00"+c.path == p {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// header renders the Cookie header for a request to u.
func (j *cookieJar) header(u *url.URL) string {
	host := strings.ToLower(u.Hostname())
	var parts []string
	for _, c := range j.ordered() {
		if c.hostOnly && host != c.domain || !c.hostOnly && !domainMatch(host, c.domain) {
			continue
		}
		if !strings.HasPrefix(u.Path, c.path) && !(u.Path == "" && c.path == "/") {
			continue
		}
		if c.secure && u.Scheme != "https" {
			continue
		}
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; ")
}

func domainMatch(host, domain string) bool {
	if host == domain {
		return true
	}
	return net.ParseIP(host) == nil && strings.HasSuffix(host, "."+domain)
}

// defaultPath is RFC 6265's default-path of a request path.
func defaultPath(p string) string {
	if p == "" || p[0] != '/' {
		return "/"
	}
	i := strings.LastIndex(p, "/")
	if i == 0 {
		return "/"
	}
	return p[:i]
}
