package cfsim

import (
	"net/http"
	"sync"
	"time"
)

// maxLogEntries bounds the request log of a long-running simulator.
const maxLogEntries = 100000

// RequestRecord is one API request as the simulator saw it. It never holds
// the Authorization header or any request or response body, so secrets such
// as client_secret cannot leak through the log.
type RequestRecord struct {
	Time   time.Time `json:"time"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	Query  string    `json:"query,omitempty"`
	Status int       `json:"status"` // 0 when the connection was dropped
	Fault  string    `json:"fault,omitempty"`
	// AppliedStatus is the status of the real answer that an apply fault
	// threw away (the request was served, the client saw Status).
	AppliedStatus int     `json:"applied_status,omitempty"`
	DurationMS    float64 `json:"duration_ms"`
}

// IsWrite reports whether the request could change state.
func (r RequestRecord) IsWrite() bool {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

type requestLog struct {
	mu      sync.Mutex
	entries []RequestRecord
}

func (l *requestLog) add(rec RequestRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.entries) >= maxLogEntries {
		l.entries = append(l.entries[:0:0], l.entries[len(l.entries)/2:]...)
	}
	l.entries = append(l.entries, rec)
}

func (l *requestLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = nil
}

func (l *requestLog) snapshot() []RequestRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]RequestRecord{}, l.entries...)
}

func (s *Server) record(r *http.Request, status int, fault string, start time.Time) RequestRecord {
	return RequestRecord{
		Time:       s.now().UTC(),
		Method:     r.Method,
		Path:       r.URL.Path,
		Query:      r.URL.RawQuery,
		Status:     status,
		Fault:      fault,
		DurationMS: float64(time.Since(start).Microseconds()) / 1000,
	}
}

// Requests returns the API requests served since start-up or the last
// ResetLog/Reset, oldest first. Admin requests are not logged.
func (s *Server) Requests() []RequestRecord { return s.log.snapshot() }

// ResetLog empties the request log.
func (s *Server) ResetLog() { s.log.reset() }

// CountWrites counts logged POST, PUT, PATCH and DELETE API requests,
// whatever their outcome: a reconcile that is already converged should make
// none.
func (s *Server) CountWrites() int {
	n := 0
	for _, r := range s.log.snapshot() {
		if r.IsWrite() {
			n++
		}
	}
	return n
}
