package cfsim

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func createTunnel(h *harness, name string) string {
	h.t.Helper()
	return h.api(http.MethodPost, acctPath(acct1, "/cfd_tunnel"),
		map[string]string{"name": name, "config_src": "cloudflare"}).ok(http.StatusOK, nil).id()
}

func TestCreateTunnel(t *testing.T) {
	h := newHarness(t)
	var created struct {
		Tunnel
		Token           string          `json:"token"`
		CredentialsFile tunnelCredsFile `json:"credentials_file"`
	}
	h.api(http.MethodPost, acctPath(acct1, "/cfd_tunnel"),
		map[string]string{"name": "edge", "config_src": "cloudflare"}).ok(http.StatusOK, &created)

	require.True(t, isUUID(created.ID), created.ID)
	require.Equal(t, "edge", created.Name)
	require.Equal(t, acct1, created.AccountTag)
	require.Equal(t, "cfd_tunnel", created.TunType)
	require.Equal(t, "inactive", created.Status)
	require.Equal(t, "cloudflare", created.ConfigSrc)
	require.True(t, created.RemoteConfig)
	require.Nil(t, created.DeletedAt)
	require.NotNil(t, created.Connections)
	require.Equal(t, "2025-01-02T03:04:05Z", created.CreatedAt)
	require.Equal(t, created.ID, created.CredentialsFile.TunnelID)

	// The token is what cloudflared --token takes.
	raw, err := base64.StdEncoding.DecodeString(created.Token)
	require.NoError(t, err)
	var tok struct {
		A string `json:"a"`
		T string `json:"t"`
		S []byte `json:"s"`
	}
	require.NoError(t, json.Unmarshal(raw, &tok))
	require.Equal(t, acct1, tok.A)
	require.Equal(t, created.ID, tok.T)
	require.Len(t, tok.S, 32)

	// GET .../token returns the same string as the create response.
	var token string
	h.api(http.MethodGet, acctPath(acct1, "/cfd_tunnel/"+created.ID+"/token"), nil).ok(http.StatusOK, &token)
	require.Equal(t, created.Token, token)

	var local Tunnel
	h.api(http.MethodPost, acctPath(acct1, "/cfd_tunnel"), map[string]string{"name": "local"}).ok(http.StatusOK, &local)
	require.Equal(t, "local", local.ConfigSrc, "config_src defaults to local")
	require.False(t, local.RemoteConfig)
}

func TestCreateTunnelValidation(t *testing.T) {
	h := newHarness(t)
	secret31 := base64.StdEncoding.EncodeToString(make([]byte, 31))
	secret32 := base64.StdEncoding.EncodeToString(make([]byte, 32))
	cases := []struct {
		name   string
		body   any
		status int
		code   int
	}{
		{"missing name", map[string]any{}, http.StatusBadRequest, 1001},
		{"blank name", map[string]any{"name": "  "}, http.StatusBadRequest, 1001},
		{"bad config_src", map[string]any{"name": "a", "config_src": "remote"}, http.StatusBadRequest, 1001},
		{"secret not base64", map[string]any{"name": "a", "tunnel_secret": "***"}, http.StatusBadRequest, 1001},
		{"secret too short", map[string]any{"name": "a", "tunnel_secret": secret31}, http.StatusBadRequest, 1001},
		{"secret ok", map[string]any{"name": "a", "tunnel_secret": secret32}, http.StatusOK, 0},
		{"duplicate name", map[string]any{"name": "a"}, http.StatusConflict, 1013},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := h.api(http.MethodPost, acctPath(acct1, "/cfd_tunnel"), tc.body)
			if tc.code == 0 {
				r.ok(tc.status, nil)
				return
			}
			r.fails(tc.status, tc.code)
		})
	}
}

func TestListTunnelsFilters(t *testing.T) {
	h := newHarness(t)
	createTunnel(h, "alpha")
	beta := createTunnel(h, "beta")
	createTunnel(h, "alpine")
	h.clock.Advance(time.Hour)
	h.api(http.MethodDelete, acctPath(acct1, "/cfd_tunnel/"+beta), nil).ok(http.StatusOK, nil)
	h.do(http.MethodPost, acctPath(acct2, "/cfd_tunnel"), tok2, map[string]string{"name": "alpha"}).ok(http.StatusOK, nil)

	cases := []struct {
		query string
		want  []string
	}{
		{"", []string{"alpha", "beta", "alpine"}},
		{"?name=alpha", []string{"alpha"}},
		{"?is_deleted=false", []string{"alpha", "alpine"}},
		{"?is_deleted=true", []string{"beta"}},
		{"?name=beta&is_deleted=false", []string{}},
		{"?include_prefix=alp", []string{"alpha", "alpine"}},
		{"?exclude_prefix=alp", []string{"beta"}},
		{"?uuid=" + beta, []string{"beta"}},
		{"?status=inactive&is_deleted=false", []string{"alpha", "alpine"}},
		{"?existed_at=2025-01-02T03:04:05Z", []string{"alpha", "beta", "alpine"}},
		{"?existed_at=2024-01-01T00:00:00Z", []string{}},
		{"?existed_at=2025-01-02T05:00:00Z", []string{"alpha", "alpine"}},
		{"?per_page=2&page=2", []string{"alpine"}},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			r := h.api(http.MethodGet, acctPath(acct1, "/cfd_tunnel"+tc.query), nil)
			r.list(&[]Tunnel{})
			require.Equal(t, tc.want, names(t, r.Env.Result))
		})
	}
	h.api(http.MethodGet, acctPath(acct1, "/cfd_tunnel?existed_at=yesterday"), nil).fails(http.StatusBadRequest, 1001)
}

func TestGetAndDeleteTunnel(t *testing.T) {
	h := newHarness(t)
	id := createTunnel(h, "edge")

	var got Tunnel
	h.api(http.MethodGet, acctPath(acct1, "/cfd_tunnel/"+id), nil).ok(http.StatusOK, &got)
	require.Equal(t, "edge", got.Name)
	h.api(http.MethodGet, acctPath(acct1, "/cfd_tunnel/"+strings.ToUpper(id)), nil).ok(http.StatusOK, nil)

	h.clock.Advance(time.Hour)
	var deleted Tunnel
	h.api(http.MethodDelete, acctPath(acct1, "/cfd_tunnel/"+id), nil).ok(http.StatusOK, &deleted)
	require.NotNil(t, deleted.DeletedAt)
	require.Equal(t, "2025-01-02T04:04:05Z", *deleted.DeletedAt)

	// Deleted tunnels stay readable but are otherwise gone.
	h.api(http.MethodGet, acctPath(acct1, "/cfd_tunnel/"+id), nil).ok(http.StatusOK, &got)
	require.NotNil(t, got.DeletedAt)
	h.api(http.MethodDelete, acctPath(acct1, "/cfd_tunnel/"+id), nil).fails(http.StatusNotFound, 1003)
	h.api(http.MethodGet, acctPath(acct1, "/cfd_tunnel/"+id+"/token"), nil).fails(http.StatusNotFound, 1003)
	h.api(http.MethodGet, acctPath(acct1, "/cfd_tunnel/"+id+"/configurations"), nil).fails(http.StatusNotFound, 1003)

	// The name is free again.
	createTunnel(h, "edge")

	h.api(http.MethodGet, acctPath(acct1, "/cfd_tunnel/00000000-0000-4000-8000-00000000ffff"), nil).fails(http.StatusNotFound, 1003)
	h.do(http.MethodGet, acctPath(acct2, "/cfd_tunnel/"+id), tok2, nil).fails(http.StatusNotFound, 1003)
}

func TestEditTunnel(t *testing.T) {
	h := newHarness(t)
	id := createTunnel(h, "edge")
	createTunnel(h, "taken")
	var got Tunnel
	h.api(http.MethodPatch, acctPath(acct1, "/cfd_tunnel/"+id), map[string]string{"name": "renamed"}).ok(http.StatusOK, &got)
	require.Equal(t, "renamed", got.Name)
	h.api(http.MethodPatch, acctPath(acct1, "/cfd_tunnel/"+id), map[string]string{"name": "taken"}).fails(http.StatusConflict, 1013)
	h.api(http.MethodPatch, acctPath(acct1, "/cfd_tunnel/"+id), map[string]string{"name": ""}).fails(http.StatusBadRequest, 1001)
}

func TestSeededTunnel(t *testing.T) {
	seed := testSeed()
	id := "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
	seed.Tunnels = []SeedTunnel{{ID: id, Name: "seeded", Account: acct1}}
	h := newHarness(t, WithSeed(seed))
	var got Tunnel
	h.api(http.MethodGet, acctPath(acct1, "/cfd_tunnel/"+id), nil).ok(http.StatusOK, &got)
	require.Equal(t, "seeded", got.Name)
	require.Equal(t, "cloudflare", got.ConfigSrc)

	var before, after string
	h.api(http.MethodGet, acctPath(acct1, "/cfd_tunnel/"+id+"/token"), nil).ok(http.StatusOK, &before)
	h.srv.Reset()
	h.api(http.MethodGet, acctPath(acct1, "/cfd_tunnel/"+id+"/token"), nil).ok(http.StatusOK, &after)
	require.Equal(t, before, after, "seeded tunnel tokens survive a reset")
}
