package cfsim

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEnvelopeOnSuccessHasEveryField(t *testing.T) {
	h := newHarness(t)
	r := h.api(http.MethodGet, "/zones/"+zone1, nil).ok(http.StatusOK, nil)

	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(r.Raw, &raw))
	require.ElementsMatch(t, []string{"success", "errors", "messages", "result"}, keys(raw),
		"single-object results carry no result_info")
	require.JSONEq(t, `[]`, string(raw["errors"]))
	require.JSONEq(t, `[]`, string(raw["messages"]))
}

func TestEnvelopeOnListHasResultInfo(t *testing.T) {
	h := newHarness(t)
	info := h.api(http.MethodGet, "/zones", nil).list(&[]Zone{})
	require.Equal(t, ResultInfo{Page: 1, PerPage: 20, Count: 2, TotalCount: 2, TotalPages: 1}, info)
}

func TestEnvelopeOnFailureHasNullResult(t *testing.T) {
	h := newHarness(t)
	r := h.do(http.MethodGet, "/zones", "", nil)
	r.fails(http.StatusForbidden, 10000)
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(r.Raw, &raw))
	require.JSONEq(t, `null`, string(raw["result"]))
	require.JSONEq(t, `false`, string(raw["success"]))
	require.JSONEq(t, `[{"code":10000,"message":"Authentication error"}]`, string(raw["errors"]))
}

func TestAuthentication(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		name   string
		header string
		path   string
		status int
		code   int
	}{
		{"missing header", "", "/zones", http.StatusForbidden, 10000},
		{"wrong scheme", "Basic dG9rZW4tb25lOg==", "/zones", http.StatusForbidden, 10000},
		{"unknown token", "Bearer nope", "/zones", http.StatusForbidden, 10000},
		{"empty bearer", "Bearer ", "/zones", http.StatusForbidden, 10000},
		{"scheme is case-insensitive", "bearer " + tok1, "/zones", http.StatusOK, 0},
		{"foreign account", "Bearer " + tok1, acctPath(acct2, "/cfd_tunnel"), http.StatusForbidden, 10000},
		{"unknown well-formed account", "Bearer " + tok1, acctPath(strings.Repeat("9", 32), "/cfd_tunnel"), http.StatusForbidden, 10000},
		{"malformed account", "Bearer " + tok1, acctPath("acme", "/cfd_tunnel"), http.StatusNotFound, 7003},
		{"foreign zone", "Bearer " + tok1, "/zones/" + zone2 + "/dns_records", http.StatusForbidden, 10000},
		{"own account", "Bearer " + tok2, acctPath(acct2, "/cfd_tunnel"), http.StatusOK, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, h.ts.URL+APIPrefix+tc.path, nil)
			require.NoError(t, err)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			res, err := h.ts.Client().Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			var env envelopeJSON
			require.NoError(t, json.NewDecoder(res.Body).Decode(&env))
			require.Equal(t, tc.status, res.StatusCode)
			if tc.code != 0 {
				require.Equal(t, tc.code, env.Errors[0].Code)
			}
		})
	}
}

func TestRouting(t *testing.T) {
	h := newHarness(t)
	h.api(http.MethodGet, "/nope", nil).fails(http.StatusBadRequest, 7000)
	h.api(http.MethodDelete, "/zones", nil).fails(http.StatusMethodNotAllowed, 10405)
	h.api(http.MethodPost, "/zones", map[string]string{"name": "new.com"}).fails(http.StatusMethodNotAllowed, 10405)

	// Paths outside /client/v4 are not the API.
	res, err := h.ts.Client().Get(h.ts.URL + "/zones")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusBadRequest, res.StatusCode)
}

func TestMalformedJSONBody(t *testing.T) {
	h := newHarness(t)
	for _, body := range []string{`{"name":`, `[1,2`, `{"name":"a"} {"name":"b"}`} {
		h.api(http.MethodPost, acctPath(acct1, "/cfd_tunnel"), body).fails(http.StatusBadRequest, 6007)
	}
}

func TestWrongFieldTypeIsAValidationError(t *testing.T) {
	h := newHarness(t)
	h.api(http.MethodPost, acctPath(acct1, "/cfd_tunnel"), `{"name": 5}`).fails(http.StatusBadRequest, 1001)
	e := h.api(http.MethodPost, "/zones/"+zone1+"/dns_records", `{"type":"A","name":"a","content":"192.0.2.1","proxied":"yes"}`).
		fails(http.StatusBadRequest, 1004)
	require.Equal(t, 9003, e.ErrorChain[0].Code)
	h.api(http.MethodPost, acctPath(acct1, "/access/apps"), `{"name": ["x"]}`).fails(http.StatusBadRequest, 12130)
}

func TestAccountsAndTokenVerify(t *testing.T) {
	h := newHarness(t)
	var accounts []Account
	h.api(http.MethodGet, "/accounts", nil).list(&accounts)
	require.Len(t, accounts, 1, "a token only sees its own accounts")
	require.Equal(t, acct1, accounts[0].ID)
	require.Equal(t, "Acme", accounts[0].Name)

	var one Account
	h.api(http.MethodGet, acctPath(acct1, ""), nil).ok(http.StatusOK, &one)
	require.Equal(t, acct1, one.ID)
	h.api(http.MethodGet, acctPath(acct2, ""), nil).fails(http.StatusForbidden, 10000)

	var st TokenStatus
	h.api(http.MethodGet, "/user/tokens/verify", nil).ok(http.StatusOK, &st)
	require.Equal(t, "active", st.Status)
	require.Len(t, st.ID, 32)
	require.NotContains(t, st.ID, tok1)
	h.do(http.MethodGet, "/user/tokens/verify", "bad", nil).fails(http.StatusForbidden, 10000)
}

func TestTokenValidForSeveralAccounts(t *testing.T) {
	seed := testSeed()
	seed.Accounts[1].Tokens = append(seed.Accounts[1].Tokens, tok1)
	h := newHarness(t, WithSeed(seed))
	var zones []Zone
	h.api(http.MethodGet, "/zones", nil).list(&zones)
	require.Len(t, zones, 3)
	h.api(http.MethodGet, acctPath(acct2, "/cfd_tunnel"), nil).list(&[]Tunnel{})
}

func TestReset(t *testing.T) {
	h := newHarness(t)
	h.api(http.MethodPost, acctPath(acct1, "/cfd_tunnel"), map[string]string{"name": "t"}).ok(http.StatusOK, nil)
	zonesBefore := h.srv.State().Zones
	require.Len(t, h.srv.State().Tunnels, 1)

	h.srv.Reset()
	st := h.srv.State()
	require.Empty(t, st.Tunnels)
	require.Equal(t, zonesBefore[0].ID, st.Zones[0].ID, "seeded IDs survive a reset")
	require.Empty(t, h.srv.Requests())
}

func TestConcurrentRequestsAreSafe(t *testing.T) {
	h := newHarness(t)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "t" + string(rune('a'+i))
			h.api(http.MethodPost, acctPath(acct1, "/cfd_tunnel"), map[string]string{"name": name}).ok(http.StatusOK, nil)
			h.api(http.MethodGet, acctPath(acct1, "/cfd_tunnel"), nil).list(&[]Tunnel{})
			_ = h.srv.State()
		}()
	}
	wg.Wait()
	require.Len(t, h.srv.State().Tunnels, 20)
	require.Equal(t, 20, h.srv.CountWrites())
}

func TestNewRejectsInvalidSeed(t *testing.T) {
	_, err := New(WithSeed(Seed{Accounts: []SeedAccount{{ID: "not-hex"}}}))
	require.Error(t, err)
	require.Panics(t, func() { MustNew(WithSeed(Seed{Zones: []SeedZone{{Name: "x.com", Account: "ghost"}}})) })
}

func keys(m map[string]json.RawMessage) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	return out
}
