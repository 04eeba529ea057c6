package cfsim

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestInjectedServerErrors(t *testing.T) {
	h := newHarness(t)
	require.NoError(t, h.srv.InjectFault(Fault{Status: 503, Count: 2}))
	for range 2 {
		e := h.api(http.MethodGet, "/zones", nil).fails(http.StatusServiceUnavailable, 10001)
		require.Contains(t, e.Message, "injected")
	}
	h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
	require.Empty(t, h.srv.Faults())

	faults := []string{}
	for _, r := range h.srv.Requests() {
		faults = append(faults, r.Fault)
	}
	require.Equal(t, []string{"status", "status", ""}, faults)
}

func TestInjected429(t *testing.T) {
	h := newHarness(t)
	require.NoError(t, h.srv.InjectFault(Fault{Status: 429, RetryAfter: 7}))
	r := h.api(http.MethodGet, "/zones", nil)
	r.fails(http.StatusTooManyRequests, 971)
	require.Equal(t, "7", r.Header.Get("Retry-After"))

	require.NoError(t, h.srv.InjectFault(Fault{Status: 429}))
	r = h.api(http.MethodGet, "/zones", nil)
	require.Equal(t, "1", r.Header.Get("Retry-After"), "429s always say when to retry")

	require.NoError(t, h.srv.InjectFault(Fault{Status: 500, RetryAfter: 2}))
	r = h.api(http.MethodGet, "/zones", nil)
	r.fails(http.StatusInternalServerError, 10001)
	require.Equal(t, "2", r.Header.Get("Retry-After"))
}

func TestFaultsAreScopedByPathAndMethod(t *testing.T) {
	h := newHarness(t)
	id := createTunnel(h, "edge")
	require.NoError(t, h.srv.InjectFault(Fault{Status: 500, PathPrefix: "/accounts/" + acct1 + "/cfd_tunnel/" + id + "/configurations", Method: "PUT"}))
	require.NoError(t, h.srv.InjectFault(Fault{Status: 502, PathPrefix: APIPrefix + "/zones/" + zone1 + "/dns_records"}))

	h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
	h.api(http.MethodGet, configPath(id), nil).ok(http.StatusOK, nil)
	body := map[string]any{"config": map[string]any{"ingress": []any{map[string]any{"service": "http_status:404"}}}}
	h.api(http.MethodPut, configPath(id), body).fails(http.StatusInternalServerError, 10001)
	h.api(http.MethodPut, configPath(id), body).ok(http.StatusOK, nil)
	h.api(http.MethodGet, dnsPath, nil).fails(http.StatusBadGateway, 10001)
	h.api(http.MethodGet, dnsPath, nil).ok(http.StatusOK, nil)
}

func TestInjectedFaultsPrecedeAuthAndRateLimit(t *testing.T) {
	h := newHarness(t, WithRateLimit(1, time.Hour))
	require.NoError(t, h.srv.InjectFault(Fault{Status: 500}))
	h.do(http.MethodGet, "/zones", "", nil).fails(http.StatusInternalServerError, 10001)
	h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
}

func TestInjectedLatency(t *testing.T) {
	h := newHarness(t)
	require.NoError(t, h.srv.InjectFault(Fault{LatencyMS: 80, Count: 1}))
	start := time.Now()
	h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
	require.GreaterOrEqual(t, time.Since(start), 80*time.Millisecond)

	start = time.Now()
	h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
	require.Less(t, time.Since(start), 80*time.Millisecond)

	// Without a count, latency applies until cleared, alongside other faults.
	require.NoError(t, h.srv.InjectFault(Fault{LatencyMS: 30}))
	require.NoError(t, h.srv.InjectFault(Fault{Status: 500}))
	start = time.Now()
	h.api(http.MethodGet, "/zones", nil).fails(http.StatusInternalServerError, 10001)
	h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
	require.GreaterOrEqual(t, time.Since(start), 60*time.Millisecond)
	require.Equal(t, []Fault{{LatencyMS: 30, Count: -1}}, h.srv.Faults())
	h.srv.ClearFaults()
	require.Empty(t, h.srv.Faults())
}

func TestGlobalLatencyOption(t *testing.T) {
	h := newHarness(t, WithLatency(40*time.Millisecond))
	start := time.Now()
	h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
	require.GreaterOrEqual(t, time.Since(start), 40*time.Millisecond)
}

func TestDroppedConnections(t *testing.T) {
	h := newHarness(t)
	require.NoError(t, h.srv.InjectFault(Fault{Drop: 2, PathPrefix: "/zones"}))
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for range 2 {
		req, err := http.NewRequest(http.MethodPost, h.ts.URL+APIPrefix+dnsPath, bytes.NewReader([]byte(`{}`)))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+tok1)
		res, err := client.Do(req)
		if err == nil {
			res.Body.Close()
		}
		require.Error(t, err, "a dropped connection gets no response")
	}
	h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
	recs := h.srv.Requests()
	require.Equal(t, "drop", recs[0].Fault)
	require.Equal(t, 0, recs[0].Status)
	require.Equal(t, 2, h.srv.CountWrites(), "dropped writes are still write attempts")
	require.Empty(t, h.srv.State().DNSRecords, "dropped requests never reach the API")
}

func TestFaultValidation(t *testing.T) {
	h := newHarness(t)
	for _, f := range []Fault{
		{},
		{Status: 404},
		{Status: 200},
		{Status: 500, Drop: 1},
		{LatencyMS: 10, Status: 500},
		{Status: 500, Count: -1},
		{LatencyMS: -5},
	} {
		require.Error(t, h.srv.InjectFault(f), "%+v", f)
	}
	require.Empty(t, h.srv.Faults())
}

func TestAdminFaultsEndpoint(t *testing.T) {
	h := newHarness(t)
	post := func(body string) int {
		res, err := h.ts.Client().Post(h.ts.URL+"/__admin/faults", "application/json", bytes.NewReader([]byte(body)))
		require.NoError(t, err)
		res.Body.Close()
		return res.StatusCode
	}
	require.Equal(t, http.StatusOK, post(`{"status":500,"count":1,"path_prefix":"/zones"}`))
	require.Equal(t, http.StatusOK, post(`{"latency_ms":1}`))
	require.Equal(t, http.StatusBadRequest, post(`{"status":418}`))
	require.Equal(t, http.StatusBadRequest, post(`{"stauts":500}`), "unknown fields are typos")
	require.Equal(t, http.StatusBadRequest, post(`not json`))

	var pending []Fault
	require.NoError(t, json.Unmarshal(h.do(http.MethodGet, "/__admin/faults", "", nil).Raw, &pending))
	require.Len(t, pending, 2)

	h.api(http.MethodGet, "/zones", nil).fails(http.StatusInternalServerError, 10001)

	req, err := http.NewRequest(http.MethodDelete, h.ts.URL+"/__admin/faults", nil)
	require.NoError(t, err)
	res, err := h.ts.Client().Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Empty(t, h.srv.Faults())

	require.Equal(t, http.StatusOK, post(`{"drop":1}`))
	require.Equal(t, 1, h.srv.Faults()[0].Count)
}

// rawCall sends one API request as tok1 without keep-alives and returns the
// status, Content-Type and body, or the transport error of a dropped
// connection.
func rawCall(t *testing.T, h *harness, method, path string, body any) (int, string, []byte, error) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, h.ts.URL+APIPrefix+path, rd)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok1)
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := client.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, res.Header.Get("Content-Type"), raw, nil
}

// An "apply, then drop" fault commits the request and then closes the
// connection: the client gets no answer, yet the record exists (the lost
// answer that makes a blind retry create a duplicate).
func TestApplyThenDrop(t *testing.T) {
	h := newHarness(t)
	require.NoError(t, h.srv.InjectFault(Fault{Drop: 1, Apply: true, Method: http.MethodPost, PathPrefix: "/zones"}))
	rec := map[string]any{"type": "A", "name": "web.example.com", "content": "192.0.2.1", "ttl": 1}
	_, _, _, err := rawCall(t, h, http.MethodPost, dnsPath, rec)
	require.Error(t, err, "the connection is closed without an answer")
	recs := h.srv.State().DNSRecords
	require.Len(t, recs, 1, "the request was applied before the drop")
	require.Equal(t, "web.example.com", recs[0].Object.Name)

	log := h.srv.Requests()
	require.Len(t, log, 1)
	require.Equal(t, "apply+drop", log[0].Fault)
	require.Equal(t, 0, log[0].Status, "the client saw no status")
	require.Equal(t, http.StatusOK, log[0].AppliedStatus)
	require.Empty(t, h.srv.Faults())

	// The fault is used up: the same POST now gets its real answer (an
	// identical record is refused, as on Cloudflare).
	h.api(http.MethodPost, dnsPath, rec).fails(http.StatusBadRequest, 81057)
}

// An "apply, then 502" fault commits the request and answers a gateway
// error with Cloudflare's error envelope, as a proxy that lost the origin's
// answer would.
func TestApplyThenStatus(t *testing.T) {
	h := newHarness(t)
	require.NoError(t, h.srv.InjectFault(Fault{Status: 502, Apply: true, Method: http.MethodPost}))
	app := map[string]any{"name": "web", "domain": "web.example.com", "type": "self_hosted"}
	e := h.api(http.MethodPost, "/accounts/"+acct1+"/access/apps", app).fails(http.StatusBadGateway, 10001)
	require.Contains(t, e.Message, "injected")
	require.Len(t, h.srv.State().AccessApplications, 1, "the app was created before the 502")
	log := h.srv.Requests()
	require.Equal(t, "apply+status", log[0].Fault)
	require.Equal(t, http.StatusBadGateway, log[0].Status)
	require.Equal(t, http.StatusCreated, log[0].AppliedStatus)

	// Only matching requests are affected, and each fault once.
	h.api(http.MethodPost, "/accounts/"+acct1+"/access/apps",
		map[string]any{"name": "api", "domain": "api.example.com", "type": "self_hosted"}).ok(http.StatusCreated, nil)
	require.Len(t, h.srv.State().AccessApplications, 2)
}

// An apply fault whose request fails still answers with the fault: the
// simulator's refusal is what is thrown away.
func TestApplyOfARefusedRequest(t *testing.T) {
	h := newHarness(t)
	require.NoError(t, h.srv.InjectFault(Fault{Status: 503, Apply: true}))
	h.api(http.MethodDelete, dnsPath+"/00000000000000000000000000000000", nil).fails(http.StatusServiceUnavailable, 10001)
	log := h.srv.Requests()
	require.Equal(t, http.StatusNotFound, log[0].AppliedStatus)
}

// An html_status fault answers with an HTML page instead of the JSON
// envelope; without apply the request never happens, with apply it does.
func TestHTMLAnswers(t *testing.T) {
	h := newHarness(t)
	id := createTunnel(h, "edge")
	cfg := map[string]any{"config": map[string]any{"ingress": []any{
		map[string]any{"hostname": "web.example.com", "service": "http://web:80"},
		map[string]any{"service": "http_status:404"}}}}

	require.NoError(t, h.srv.InjectFault(Fault{HTMLStatus: 200, Count: 2, Method: http.MethodPut}))
	for range 2 {
		status, ctype, body, err := rawCall(t, h, http.MethodPut, configPath(id), cfg)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, status)
		require.True(t, strings.HasPrefix(ctype, "text/html"), ctype)
		require.True(t, strings.HasPrefix(string(body), "<!DOCTYPE html>"), "%s", body)
		require.False(t, json.Valid(body), "the page is not JSON")
	}
	for _, tun := range h.srv.State().Tunnels {
		require.Nil(t, tun.Configuration.Config, "a page in front of the API does not apply the PUT")
	}
	log := h.srv.Requests()
	require.Equal(t, "html", log[len(log)-1].Fault)
	require.Equal(t, http.StatusOK, log[len(log)-1].Status)
	require.Zero(t, log[len(log)-1].AppliedStatus)

	require.NoError(t, h.srv.InjectFault(Fault{HTMLStatus: 200, Apply: true, Method: http.MethodPut}))
	status, _, body, err := rawCall(t, h, http.MethodPut, configPath(id), cfg)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	require.False(t, json.Valid(body))
	var applied int
	for _, tun := range h.srv.State().Tunnels {
		if tun.Configuration.Config != nil {
			applied++
		}
	}
	require.Equal(t, 1, applied, "with apply the PUT happened behind the page")
	require.Equal(t, "apply+html", h.srv.Requests()[len(h.srv.Requests())-1].Fault)
}

func TestNewFaultValidation(t *testing.T) {
	h := newHarness(t)
	for _, f := range []Fault{
		{HTMLStatus: 100},
		{HTMLStatus: 600},
		{HTMLStatus: 200, Status: 500},
		{HTMLStatus: 200, Drop: 1},
		{Apply: true},
		{Apply: true, LatencyMS: 10},
		{Apply: true, Status: 404},
	} {
		require.Error(t, h.srv.InjectFault(f), "%+v", f)
	}
	require.NoError(t, h.srv.InjectFault(Fault{HTMLStatus: 503}))
	require.NoError(t, h.srv.InjectFault(Fault{Drop: 1, Apply: true}))
	require.NoError(t, h.srv.InjectFault(Fault{Status: 504, Apply: true, Count: 3}))

	// Over the admin API too, with the JSON names.
	res, err := h.ts.Client().Post(h.ts.URL+"/__admin/faults", "application/json",
		strings.NewReader(`{"html_status":200,"apply":true,"method":"DELETE","count":2}`))
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	pending := h.srv.Faults()
	require.Equal(t, Fault{HTMLStatus: 200, Apply: true, Method: "DELETE", Count: 2}, pending[len(pending)-1])
}
