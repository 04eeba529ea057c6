package cfsim

import (
	"encoding/json"
	"net/http"
	"strings"
)

// serveAdmin answers the unauthenticated test controls under /__admin/:
//
//	POST   /__admin/faults     inject a Fault (JSON body)
//	GET    /__admin/faults     list pending faults
//	DELETE /__admin/faults     clear pending faults
//	GET    /__admin/state      StateDump, secrets redacted
//	GET    /__admin/requests   request log (?method=, ?path_prefix=, ?writes=true)
//	GET    /__admin/writes     {"count": CountWrites()}
//	POST   /__admin/reset-log  empty the request log
//	POST   /__admin/reset      restore the seeded state, clear log/faults/limits
//	POST   /__admin/evaluate   AccessDecision for an AccessRequest (JSON body)
//	GET    /__admin/health     {"ok": true}
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, AdminPrefix), "/")
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	fail := func(status int, msg string) { reply(status, map[string]any{"ok": false, "error": msg}) }

	switch r.Method + " " + path {
	case "POST faults":
		var f Fault
		if err := decodeStrict(w, r, &f); err != nil {
			fail(http.StatusBadRequest, "fault: "+err.Error())
			return
		}
		if err := s.InjectFault(f); err != nil {
			fail(http.StatusBadRequest, err.Error())
			return
		}
		reply(http.StatusOK, map[string]any{"ok": true, "pending": s.Faults()})
	case "GET faults":
		reply(http.StatusOK, s.Faults())
	case "DELETE faults":
		s.ClearFaults()
		reply(http.StatusOK, map[string]any{"ok": true})
	case "GET state":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.stateJSON())
	case "GET requests":
		reply(http.StatusOK, filterRequests(s.Requests(), r))
	case "GET writes":
		reply(http.StatusOK, map[string]int{"count": s.CountWrites()})
	case "POST reset-log":
		s.ResetLog()
		reply(http.StatusOK, map[string]any{"ok": true})
	case "POST reset":
		s.Reset()
		reply(http.StatusOK, map[string]any{"ok": true})
	case "POST evaluate":
		var req AccessRequest
		if err := decodeStrict(w, r, &req); err != nil {
			fail(http.StatusBadRequest, "evaluate: "+err.Error())
			return
		}
		if req.Hostname == "" && req.AppID == "" {
			fail(http.StatusBadRequest, "evaluate: set hostname or app_id")
			return
		}
		reply(http.StatusOK, s.Evaluate(req))
	case "GET health":
		reply(http.StatusOK, map[string]any{"ok": true})
	default:
		fail(http.StatusNotFound, "unknown admin endpoint "+r.Method+" "+r.URL.Path)
	}
}

func filterRequests(all []RequestRecord, r *http.Request) []RequestRecord {
	q := r.URL.Query()
	out := []RequestRecord{}
	for _, rec := range all {
		if m := q.Get("method"); m != "" && !strings.EqualFold(m, rec.Method) {
			continue
		}
		if p := q.Get("path_prefix"); p != "" && !strings.HasPrefix(rec.Path, p) && !strings.HasPrefix(rec.Path, APIPrefix+p) {
			continue
		}
		if q.Get("writes") == "true" && !rec.IsWrite() {
			continue
		}
		out = append(out, rec)
	}
	return out
}

// decodeStrict reads an admin request's JSON body into v, refusing unknown
// fields so that a misspelt test control fails loudly.
func decodeStrict(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
