package cfsim

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAdminState(t *testing.T) {
	h := newHarness(t)
	tun := createTunnel(h, "edge")
	h.api(http.MethodPut, configPath(tun), map[string]any{"config": map[string]any{
		"ingress": []any{map[string]any{"hostname": "a.example.com", "service": "http://a"}, map[string]any{"service": "http_status:404"}}}}).ok(http.StatusOK, nil)
	createDNS(h, "CNAME", "a", tun+".cfargotunnel.com")
	app := createApp(h, "a", "a.example.com")
	h.api(http.MethodPost, appsPath+"/"+app+"/policies", policyBody("p", "allow", everyone())).ok(http.StatusCreated, nil)
	createReusable(h, "shared", "allow", everyone())

	r := h.do(http.MethodGet, "/__admin/state", "", nil)
	require.Equal(t, http.StatusOK, r.Status)
	var st StateDump
	require.NoError(t, json.Unmarshal(r.Raw, &st))
	require.Equal(t, h.srv.State(), st, "the HTTP dump and State() agree")

	require.Len(t, st.Accounts, 2)
	require.Equal(t, AccountState{ID: acct1, Name: "Acme", Tokens: 1}, st.Accounts[0])
	require.Len(t, st.Zones, 3)
	require.Len(t, st.Tunnels, 1)
	require.Equal(t, acct1, st.Tunnels[0].AccountID)
	require.Equal(t, redacted, st.Tunnels[0].TunnelSecret)
	require.Equal(t, 1, st.Tunnels[0].Configuration.Version)
	require.Equal(t, zone1, st.DNSRecords[0].ZoneID)
	require.Equal(t, "a.example.com", st.DNSRecords[0].Object.Name)
	require.Equal(t, acct1, st.AccessApplications[0].AccountID)
	require.Len(t, st.AccessApplications[0].Object.Policies, 1)
	require.Len(t, st.AccessPolicies, 2)
	require.Equal(t, app, st.AccessPolicies[0].AppID)
	require.Equal(t, 1, st.AccessPolicies[0].Precedence)
	require.Empty(t, st.AccessPolicies[1].AppID)
	require.Len(t, st.AccessGroups, 1)
	require.NotContains(t, string(r.Raw), tok1)
	require.NotContains(t, string(r.Raw), tok2)

	// State() is a copy.
	st.Zones[0].Name = "mutated"
	require.Equal(t, "example.com", h.srv.State().Zones[0].Name)
}

func TestAdminRequestLog(t *testing.T) {
	h := newHarness(t)
	h.api(http.MethodGet, "/zones?name=example.com", nil).ok(http.StatusOK, nil)
	createTunnel(h, "edge")
	h.do(http.MethodGet, "/zones", "bad", nil)
	h.do(http.MethodGet, "/__admin/state", "", nil) // admin calls are not logged

	var recs []RequestRecord
	require.NoError(t, json.Unmarshal(h.do(http.MethodGet, "/__admin/requests", "", nil).Raw, &recs))
	require.Len(t, recs, 3)
	require.Equal(t, http.MethodGet, recs[0].Method)
	require.Equal(t, APIPrefix+"/zones", recs[0].Path)
	require.Equal(t, "name=example.com", recs[0].Query)
	require.Equal(t, 200, recs[0].Status)
	require.Equal(t, h.clock.Now(), recs[0].Time)
	require.Equal(t, http.MethodPost, recs[1].Method)
	require.Equal(t, 403, recs[2].Status)
	require.Equal(t, h.srv.Requests(), recs)

	filtered := func(q string) int {
		var out []RequestRecord
		require.NoError(t, json.Unmarshal(h.do(http.MethodGet, "/__admin/requests"+q, "", nil).Raw, &out))
		return len(out)
	}
	require.Equal(t, 1, filtered("?method=post"))
	require.Equal(t, 1, filtered("?writes=true"))
	require.Equal(t, 1, filtered("?path_prefix=/accounts"))
	require.Equal(t, 2, filtered("?path_prefix="+APIPrefix+"/zones"))

	var writes map[string]int
	require.NoError(t, json.Unmarshal(h.do(http.MethodGet, "/__admin/writes", "", nil).Raw, &writes))
	require.Equal(t, map[string]int{"count": 1}, writes)
	require.Equal(t, 1, h.srv.CountWrites())

	require.Equal(t, http.StatusOK, h.do(http.MethodPost, "/__admin/reset-log", "", nil).Status)
	require.Empty(t, h.srv.Requests())
	require.Len(t, h.srv.State().Tunnels, 1, "reset-log keeps state")
}

func TestAdminReset(t *testing.T) {
	h := newHarness(t)
	createTunnel(h, "edge")
	require.NoError(t, h.srv.InjectFault(Fault{Status: 500, PathPrefix: "/nothing"}))
	require.Equal(t, http.StatusOK, h.do(http.MethodPost, "/__admin/reset", "", nil).Status)
	require.Empty(t, h.srv.State().Tunnels)
	require.Empty(t, h.srv.Faults())
	require.Empty(t, h.srv.Requests())
}

func TestAdminUnknownEndpoint(t *testing.T) {
	h := newHarness(t)
	require.Equal(t, http.StatusNotFound, h.do(http.MethodGet, "/__admin/nope", "", nil).Status)
	require.Equal(t, http.StatusNotFound, h.do(http.MethodPost, "/__admin/state", "", nil).Status)
	require.Equal(t, http.StatusOK, h.do(http.MethodGet, "/__admin/health", "", nil).Status)
}
