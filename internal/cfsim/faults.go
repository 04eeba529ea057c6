package cfsim

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Fault is one injected misbehaviour, consumed by the next matching API
// requests. Set exactly one of Status, LatencyMS, Drop or HTMLStatus.
//
//   - Status (429 or 5xx) answers Count requests (default 1) with that status
//     and a Cloudflare error envelope; RetryAfter sets the Retry-After header
//     (429 defaults to 1 second).
//   - LatencyMS delays Count requests (0: every request until cleared) before
//     they are served normally.
//   - Drop closes the connection of the next Drop requests without answering.
//   - HTMLStatus (200 to 599) answers Count requests (default 1) with that
//     status and an HTML page instead of Cloudflare's JSON envelope, as a
//     proxy, a captive portal or a maintenance page in front of the API
//     would.
//
// Apply, with Status, Drop or HTMLStatus, serves the request first, so that
// its change is committed, and then throws the real answer away: the
// client sees the injected status or page, or a closed connection, for a
// request that did happen. Without Apply the request never reaches the API.
//
// PathPrefix limits the fault to paths starting with it, given either with or
// without the /client/v4 prefix; Method limits it to one HTTP method.
type Fault struct {
	Status     int    `json:"status,omitempty"`
	Count      int    `json:"count,omitempty"`
	PathPrefix string `json:"path_prefix,omitempty"`
	Method     string `json:"method,omitempty"`
	RetryAfter int    `json:"retry_after,omitempty"`
	LatencyMS  int    `json:"latency_ms,omitempty"`
	Drop       int    `json:"drop,omitempty"`
	HTMLStatus int    `json:"html_status,omitempty"`
	Apply      bool   `json:"apply,omitempty"`
}

func (f Fault) validate() error {
	kinds := 0
	if f.Status != 0 {
		kinds++
		if f.Status != http.StatusTooManyRequests && (f.Status < 500 || f.Status > 599) {
			return fmt.Errorf("fault status %d: want 429 or 5xx", f.Status)
		}
	}
	if f.LatencyMS != 0 {
		kinds++
	}
	if f.Drop != 0 {
		kinds++
	}
	if f.HTMLStatus != 0 {
		kinds++
		if f.HTMLStatus < 200 || f.HTMLStatus > 599 {
			return fmt.Errorf("fault html_status %d: want 200 to 599", f.HTMLStatus)
		}
	}
	if kinds != 1 {
		return errors.New("fault: set exactly one of status, latency_ms, drop or html_status")
	}
	if f.Count < 0 || f.Drop < 0 || f.LatencyMS < 0 || f.RetryAfter < 0 {
		return errors.New("fault: negative values are not allowed")
	}
	if f.Apply && f.LatencyMS != 0 {
		return errors.New("fault: apply needs status, drop or html_status (latency_ms always serves the request)")
	}
	return nil
}

func (f Fault) matches(method, path string) bool {
	if f.Method != "" && !strings.EqualFold(f.Method, method) {
		return false
	}
	if f.PathPrefix == "" {
		return true
	}
	return strings.HasPrefix(path, f.PathPrefix) || strings.HasPrefix(path, APIPrefix+f.PathPrefix)
}

// pendingFault is a Fault with its remaining uses; remaining < 0 is unlimited.
type pendingFault struct {
	Fault
	remaining int
}

type faultQueue struct {
	mu      sync.Mutex
	pending []*pendingFault
}

// faultAction is what the injected faults do to one request.
type faultAction struct {
	latency time.Duration
	drop    bool
	err     *apiError
	html    int  // answer this status with an HTML page
	apply   bool // serve the request before drop, err or html
}

// name is how the request log records the action.
func (a faultAction) name() string {
	var n string
	switch {
	case a.drop:
		n = "drop"
	case a.err != nil:
		n = "status"
	case a.html != 0:
		n = "html"
	default:
		return ""
	}
	if a.apply {
		n = "apply+" + n
	}
	return n
}

// InjectFault queues f; it applies to API requests only, never to /__admin/.
func (s *Server) InjectFault(f Fault) error {
	if err := f.validate(); err != nil {
		return err
	}
	p := &pendingFault{Fault: f}
	switch {
	case f.Drop > 0:
		p.remaining = f.Drop
	case f.LatencyMS > 0 && f.Count == 0:
		p.remaining = -1
	case f.Count == 0:
		p.remaining = 1
	default:
		p.remaining = f.Count
	}
	s.faults.mu.Lock()
	s.faults.pending = append(s.faults.pending, p)
	s.faults.mu.Unlock()
	return nil
}

// ClearFaults drops every pending fault.
func (s *Server) ClearFaults() { s.faults.clear() }

// Faults lists the pending faults with their remaining uses in Count
// (-1: until cleared).
func (s *Server) Faults() []Fault {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	out := make([]Fault, 0, len(s.faults.pending))
	for _, p := range s.faults.pending {
		f := p.Fault
		f.Count = p.remaining
		out = append(out, f)
	}
	return out
}

func (q *faultQueue) clear() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = nil
}

// take consumes the faults that apply to one request: the first matching
// latency fault, then the first matching drop or status fault, in the order
// they were injected.
func (q *faultQueue) take(method, path string) faultAction {
	q.mu.Lock()
	defer q.mu.Unlock()
	var act faultAction
	var latencyDone, outcomeDone bool
	for _, p := range q.pending {
		if !p.matches(method, path) || p.remaining == 0 {
			continue
		}
		switch {
		case p.LatencyMS > 0 && !latencyDone:
			act.latency = time.Duration(p.LatencyMS) * time.Millisecond
			latencyDone = true
		case p.LatencyMS == 0 && !outcomeDone:
			switch {
			case p.Drop > 0:
				act.drop = true
			case p.HTMLStatus != 0:
				act.html = p.HTMLStatus
			default:
				act.err = injectedError(p.Status, p.RetryAfter)
			}
			act.apply = p.Apply
			outcomeDone = true
		default:
			continue
		}
		if p.remaining > 0 {
			p.remaining--
		}
	}
	q.pending = filter(q.pending, func(p *pendingFault) bool { return p.remaining != 0 })
	return act
}

func injectedError(status, retryAfter int) *apiError {
	if status == http.StatusTooManyRequests {
		return errRateLimited(max(retryAfter, 1))
	}
	e := newAPIError(status, codeInternal, "Internal server error (injected by cfsim)")
	e.retryAfter = retryAfter
	return e
}

// htmlPage is the body of an html_status fault: what a proxy or a
// maintenance page answers, not Cloudflare's JSON envelope.
const htmlPage = "<!DOCTYPE html>\n<html><head><title>Service temporarily unavailable</title></head>\n" +
	"<body><h1>We'll be back soon</h1><p>This page was injected by cfsim.</p></body></html>\n"

func writeHTML(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(htmlPage))
}

// discardWriter takes the real answer of a request served under an Apply
// fault and keeps only its status.
type discardWriter struct {
	header http.Header
	status int
}

func (d *discardWriter) Header() http.Header {
	if d.header == nil {
		d.header = http.Header{}
	}
	return d.header
}

func (d *discardWriter) WriteHeader(status int) {
	if d.status == 0 {
		d.status = status
	}
}

func (d *discardWriter) Write(b []byte) (int, error) {
	d.WriteHeader(http.StatusOK)
	return len(b), nil
}

// dropConnection closes the client's connection without a response, as a
// crashed proxy or a network partition would.
func dropConnection(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	// HTTP/2 and test recorders cannot be hijacked; aborting the handler
	// resets the stream instead.
	panic(http.ErrAbortHandler)
}
