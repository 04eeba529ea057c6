package cfsim

import "strings"

// handlerFunc serves one API route. It runs with the store lock held and
// returns the envelope's result, or an *apiError.
type handlerFunc func(c *call) (any, error)

// route binds a method and a path pattern (relative to APIPrefix, segments
// in braces are parameters) to a handler.
type route struct {
	method  string
	pattern []string
	handle  handlerFunc
}

// router is a deliberately tiny matcher: the simulator needs Cloudflare's
// error envelope for unknown paths and wrong methods, which http.ServeMux
// would answer in plain text.
type router struct{ routes []route }

func (rt *router) add(method, pattern string, h handlerFunc) {
	rt.routes = append(rt.routes, route{method: method, pattern: splitPath(pattern), handle: h})
}

// match finds the handler for method and path. pathKnown is true when some
// route matches the path with another method, so the caller can answer 405.
func (rt *router) match(method, path string) (h handlerFunc, params map[string]string, pathKnown bool) {
	segs := splitPath(path)
	for _, r := range rt.routes {
		p, ok := matchSegments(r.pattern, segs)
		if !ok {
			continue
		}
		if r.method == method {
			return r.handle, p, true
		}
		pathKnown = true
	}
	return nil, nil, pathKnown
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

func matchSegments(pattern, segs []string) (map[string]string, bool) {
	if len(pattern) != len(segs) {
		return nil, false
	}
	params := map[string]string{}
	for i, want := range pattern {
		if strings.HasPrefix(want, "{") && strings.HasSuffix(want, "}") {
			if segs[i] == "" {
				return nil, false
			}
			params[want[1:len(want)-1]] = segs[i]
			continue
		}
		if want != segs[i] {
			return nil, false
		}
	}
	return params, true
}
