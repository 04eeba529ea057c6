package cfsim

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Fixture identities shared by the tests.
const (
	acct1 = "0123456789abcdef0123456789abcdef"
	acct2 = "fedcba9876543210fedcba9876543210"
	zone1 = "11111111111111111111111111111111" // example.com, acct1
	zone2 = "22222222222222222222222222222222" // other.org, acct2
	zone3 = "33333333333333333333333333333333" // pending.net, acct1, pending
	tok1  = "token-one"
	tok2  = "token-two"
	group = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
)

func testSeed() Seed {
	return Seed{
		Accounts: []SeedAccount{
			{ID: acct1, Name: "Acme", Tokens: []string{tok1}},
			{ID: acct2, Name: "Other", Tokens: []string{tok2}},
		},
		Zones: []SeedZone{
			{ID: zone1, Name: "example.com", Account: acct1},
			{ID: zone2, Name: "other.org", Account: "Other"},
			{ID: zone3, Name: "pending.net", Account: acct1, Status: "pending"},
		},
		AccessGroups: []SeedAccessGroup{
			{ID: group, Name: "Engineering", Account: acct1,
				Include: []map[string]any{{"email_domain": map[string]any{"domain": "example.com"}}}},
		},
	}
}

// clock is a settable time source for deterministic timestamps and rate
// limit windows.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type harness struct {
	t     *testing.T
	srv   *Server
	ts    *httptest.Server
	clock *clock
}

// newHarness starts the simulator on a loopback httptest server with the
// test seed, sequential IDs and a fixed clock; opts override those.
func newHarness(t *testing.T, opts ...Option) *harness {
	t.Helper()
	clk := &clock{now: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	base := []Option{WithSeed(testSeed()), WithIDGenerator(SequentialIDs()), WithClock(clk.Now)}
	srv, err := New(append(base, opts...)...)
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return &harness{t: t, srv: srv, ts: ts, clock: clk}
}

type envelopeJSON struct {
	Success    bool            `json:"success"`
	Errors     []ErrorDetail   `json:"errors"`
	Messages   []any           `json:"messages"`
	Result     json.RawMessage `json:"result"`
	ResultInfo *ResultInfo     `json:"result_info"`
}

type resp struct {
	t      *testing.T
	Status int
	Header http.Header
	Raw    []byte
	Env    envelopeJSON
}

// do sends a request with token (none when empty). body may be a string
// (sent verbatim) or any value (sent as JSON).
func (h *harness) do(method, path, token string, body any) resp {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		require.NoError(h.t, err)
		rd = bytes.NewReader(raw)
	}
	url := h.ts.URL + path
	if !strings.HasPrefix(path, AdminPrefix) {
		url = h.ts.URL + APIPrefix + path
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(h.t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := h.ts.Client().Do(req)
	require.NoError(h.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(h.t, err)
	r := resp{t: h.t, Status: res.StatusCode, Header: res.Header, Raw: raw}
	if !strings.HasPrefix(path, AdminPrefix) {
		require.NoError(h.t, json.Unmarshal(raw, &r.Env), "body: %s", raw)
	}
	return r
}

// api sends a request as tok1, the owner of acct1.
func (h *harness) api(method, path string, body any) resp {
	h.t.Helper()
	return h.do(method, path, tok1, body)
}

// ok asserts a successful envelope with the given status and decodes the
// result into v (when v is non-nil).
func (r resp) ok(status int, v any) resp {
	r.t.Helper()
	require.Equal(r.t, status, r.Status, "body: %s", r.Raw)
	require.True(r.t, r.Env.Success, "body: %s", r.Raw)
	require.Empty(r.t, r.Env.Errors)
	require.NotNil(r.t, r.Env.Messages)
	if v != nil {
		require.NoError(r.t, json.Unmarshal(r.Env.Result, v), "result: %s", r.Env.Result)
	}
	return r
}

// fails asserts a failed envelope: HTTP status, first error code, null
// result.
func (r resp) fails(status, code int) ErrorDetail {
	r.t.Helper()
	require.Equal(r.t, status, r.Status, "body: %s", r.Raw)
	require.False(r.t, r.Env.Success, "body: %s", r.Raw)
	require.NotEmpty(r.t, r.Env.Errors, "body: %s", r.Raw)
	require.Equal(r.t, code, r.Env.Errors[0].Code, "body: %s", r.Raw)
	require.Equal(r.t, "null", string(r.Env.Result))
	return r.Env.Errors[0]
}

// id extracts result.id.
func (r resp) id() string {
	r.t.Helper()
	var v struct {
		ID string `json:"id"`
	}
	require.NoError(r.t, json.Unmarshal(r.Env.Result, &v))
	require.NotEmpty(r.t, v.ID, "result: %s", r.Env.Result)
	return v.ID
}

// list decodes a list result into v and returns its result_info.
func (r resp) list(v any) ResultInfo {
	r.t.Helper()
	r.ok(http.StatusOK, v)
	require.NotNil(r.t, r.Env.ResultInfo, "list without result_info: %s", r.Raw)
	return *r.Env.ResultInfo
}

func acctPath(acct, rest string) string { return "/accounts/" + acct + rest }

// names maps objects with a "name" field to their names, in order.
func names(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var items []struct {
		Name string `json:"name"`
	}
	require.NoError(t, json.Unmarshal(raw, &items))
	out := []string{}
	for _, it := range items {
		out = append(out, it.Name)
	}
	return out
}
