package cfsim

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"
)

// APIPrefix is where the simulated Cloudflare v4 API is served, matching
// https://api.cloudflare.com/client/v4.
const APIPrefix = "/client/v4"

// AdminPrefix is where the unauthenticated test controls are served.
const AdminPrefix = "/__admin/"

// Server simulates Cloudflare's v4 API. It is safe for concurrent use.
type Server struct {
	now     func() time.Time
	ids     IDGenerator
	latency time.Duration
	seed    Seed // resolved: every ID filled in

	mu sync.Mutex // guards st
	st *store

	limiter *rateLimiter
	faults  *faultQueue
	log     *requestLog
	api     router
}

// New builds a Server from options. It fails only when the seed is invalid.
func New(opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	seed, err := resolveSeed(cfg.seed, cfg.ids)
	if err != nil {
		return nil, err
	}
	st, err := buildStore(seed, cfg.now())
	if err != nil {
		return nil, err
	}
	s := &Server{
		now:     cfg.now,
		ids:     cfg.ids,
		latency: cfg.latency,
		seed:    seed,
		st:      st,
		limiter: newRateLimiter(cfg.rateLimit, cfg.rateWindow),
		faults:  &faultQueue{},
		log:     &requestLog{},
	}
	s.registerRoutes()
	return s, nil
}

// MustNew is New for tests and fixed seeds: it panics on an invalid seed.
func MustNew(opts ...Option) *Server {
	s, err := New(opts...)
	if err != nil {
		panic(err)
	}
	return s
}

// Reset restores the seeded state and clears the request log, pending
// faults and rate-limit counters.
func (s *Server) Reset() {
	st, err := buildStore(s.seed, s.now())
	if err != nil {
		// The same seed built successfully in New.
		panic(err)
	}
	s.mu.Lock()
	s.st = st
	s.mu.Unlock()
	s.faults.clear()
	s.limiter.reset()
	s.log.reset()
}

func (s *Server) registerRoutes() {
	s.registerAccountRoutes()
	s.registerZoneRoutes()
	s.registerDNSRoutes()
	s.registerTunnelRoutes()
	s.registerAccessAppRoutes()
	s.registerAccessPolicyRoutes()
	s.registerAccessGroupRoutes()
	s.registerServiceTokenRoutes()
	s.registerIdentityProviderRoutes()
}

// ServeHTTP dispatches admin requests, then runs API requests through the
// fault injector, authentication, the rate limiter and the router, logging
// each one.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == strings.TrimSuffix(AdminPrefix, "/") || strings.HasPrefix(r.URL.Path, AdminPrefix) {
		s.serveAdmin(w, r)
		return
	}
	start := time.Now()
	// Reading the body first lets net/http notice a client that goes away
	// during an injected delay (it watches the connection only once the
	// body is consumed), so a killed client does not hold its handler.
	body, bodyErr := readBody(r)
	if !sleepCtx(r.Context(), s.latency) {
		return
	}
	act := s.faults.take(r.Method, r.URL.Path)
	if !sleepCtx(r.Context(), act.latency) {
		return
	}
	if act.name() == "" {
		status := s.serveAPI(w, r, body, bodyErr)
		s.log.add(s.record(r, status, "", start))
		return
	}
	applied := 0
	if act.apply {
		// The request happens; only its answer is lost or replaced.
		applied = s.serveAPI(&discardWriter{}, r, body, bodyErr)
	}
	rec := s.record(r, 0, act.name(), start)
	rec.AppliedStatus = applied
	switch {
	case act.drop:
		s.log.add(rec)
		dropConnection(w)
	case act.html != 0:
		writeHTML(w, act.html)
		rec.Status = act.html
		s.log.add(rec)
	default:
		writeError(w, act.err)
		rec.Status = act.err.status
		s.log.add(rec)
	}
}

// serveAPI answers one API request and returns the status it sent.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, body []byte, bodyErr error) int {
	fail := func(e *apiError) int {
		writeError(w, e)
		return e.status
	}
	if r.URL.Path != APIPrefix && !strings.HasPrefix(r.URL.Path, APIPrefix+"/") {
		return fail(errNoRoute())
	}
	rel := strings.TrimPrefix(r.URL.Path, APIPrefix)
	token := bearerToken(r)

	s.mu.Lock()
	known := s.st.knownToken(token)
	s.mu.Unlock()
	if !known {
		return fail(errAuth())
	}
	if retry, ok := s.limiter.allow(token, s.now()); !ok {
		return fail(errRateLimited(retry))
	}
	h, params, pathKnown := s.api.match(r.Method, rel)
	if h == nil {
		if pathKnown {
			return fail(errMethodNotAllowed(r.Method))
		}
		return fail(errNoRoute())
	}
	if bodyErr != nil {
		return fail(newAPIError(http.StatusRequestEntityTooLarge, codeMalformedJSON, "Request body too large"))
	}
	c := &call{s: s, r: r, path: rel, params: params, query: r.URL.Query(), token: token, body: body}

	// Handlers run, and their results are encoded, under the store lock so
	// that the encoded view cannot race with a concurrent mutation.
	s.mu.Lock()
	result, herr := h(c)
	var out []byte
	if herr == nil {
		out = encodeSuccess(result, c.info)
	}
	s.mu.Unlock()

	if herr != nil {
		apiErr, ok := herr.(*apiError)
		if !ok {
			apiErr = newAPIError(http.StatusInternalServerError, codeInternal, herr.Error())
		}
		return fail(apiErr)
	}
	status := c.status
	if status == 0 {
		status = http.StatusOK
	}
	writeRaw(w, status, out, 0)
	return status
}

// sleepCtx waits for d unless the client goes away first; it reports whether
// the request should still be served.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// stampNow is the current simulated time in Cloudflare's format.
func (s *Server) stampNow() string { return stamp(s.now()) }
