package cfsim

import (
	"bytes"
	"encoding/json"
	"net/http"
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
