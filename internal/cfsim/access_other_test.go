package cfsim

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAccessGroups(t *testing.T) {
	seed := testSeed()
	seed.AccessGroups = append(seed.AccessGroups, SeedAccessGroup{Name: "Everyone", Account: acct1})
	h := newHarness(t, WithSeed(seed))
	base := acctPath(acct1, "/access/groups")

	var groups []AccessGroup
	info := h.api(http.MethodGet, base, nil).list(&groups)
	require.Equal(t, 2, info.TotalCount)
	require.Equal(t, group, groups[0].ID)
	require.Equal(t, "Engineering", groups[0].Name)
	require.Equal(t, []map[string]any{{"email_domain": map[string]any{"domain": "example.com"}}}, groups[0].Include)
	require.Equal(t, []map[string]any{everyone()}, groups[1].Include, "include defaults to everyone")
	require.True(t, isUUID(groups[1].ID))

	h.api(http.MethodGet, base+"?name=Everyone", nil).list(&groups)
	require.Len(t, groups, 1)
	h.api(http.MethodGet, base+"?search=engin", nil).list(&groups)
	require.Len(t, groups, 1)

	var g AccessGroup
	h.api(http.MethodGet, base+"/"+group, nil).ok(http.StatusOK, &g)
	require.Equal(t, "Engineering", g.Name)
	h.api(http.MethodGet, base+"/00000000-0000-4000-8000-00000000dead", nil).fails(http.StatusNotFound, 12135)
	h.do(http.MethodGet, acctPath(acct2, "/access/groups"), tok2, nil).list(&groups)
	require.Empty(t, groups)
}

func TestServiceTokens(t *testing.T) {
	h := newHarness(t)
	base := acctPath(acct1, "/access/service_tokens")

	var created struct {
		ServiceToken
		ClientSecret string `json:"client_secret"`
	}
	h.api(http.MethodPost, base, map[string]any{"name": "ci", "duration": "720h"}).ok(http.StatusCreated, &created)
	require.True(t, isUUID(created.ID))
	require.Regexp(t, regexp.MustCompile(`^[0-9a-f]{32}\.access$`), created.ClientID)
	require.Regexp(t, regexp.MustCompile(`^[0-9a-f]{64}$`), created.ClientSecret)
	require.Equal(t, "720h", created.Duration)
	require.Equal(t, "2025-02-01T03:04:05Z", *created.ExpiresAt)

	// The secret is never shown again.
	for _, path := range []string{base, base + "/" + created.ID} {
		r := h.api(http.MethodGet, path, nil).ok(http.StatusOK, nil)
		require.NotContains(t, string(r.Raw), "client_secret")
		require.NotContains(t, string(r.Raw), created.ClientSecret)
	}
	var list []ServiceToken
	h.api(http.MethodGet, base+"?name=ci", nil).list(&list)
	require.Len(t, list, 1)
	require.Equal(t, created.ClientID, list[0].ClientID)
	h.api(http.MethodGet, base+"?search=nothing", nil).list(&list)
	require.Empty(t, list)

	var def ServiceToken
	h.api(http.MethodPost, base, map[string]any{"name": "default"}).ok(http.StatusCreated, &def)
	require.Equal(t, "8760h", def.Duration)
	var forever ServiceToken
	h.api(http.MethodPost, base, map[string]any{"name": "forever", "duration": "forever"}).ok(http.StatusCreated, &forever)
	require.Nil(t, forever.ExpiresAt)

	h.clock.Advance(3600e9)
	var upd ServiceToken
	h.api(http.MethodPut, base+"/"+created.ID, map[string]any{"name": "ci-2"}).ok(http.StatusOK, &upd)
	require.Equal(t, "ci-2", upd.Name)
	require.Equal(t, "720h", upd.Duration, "duration is kept when not sent")
	require.Equal(t, *created.ExpiresAt, *upd.ExpiresAt)
	h.api(http.MethodPut, base+"/"+created.ID, map[string]any{"duration": "24h"}).ok(http.StatusOK, &upd)
	require.Equal(t, "ci-2", upd.Name, "name is kept when not sent")
	require.Equal(t, "2025-01-03T04:04:05Z", *upd.ExpiresAt)

	for _, bad := range []map[string]any{{}, {"name": " "}, {"name": "x", "duration": "1y"}, {"name": "x", "duration": "-1h"}} {
		h.api(http.MethodPost, base, bad).fails(http.StatusBadRequest, 12130)
	}
	h.api(http.MethodPut, base+"/"+created.ID, map[string]any{"duration": "soon"}).fails(http.StatusBadRequest, 12130)

	var del ServiceToken
	h.api(http.MethodDelete, base+"/"+created.ID, nil).ok(http.StatusOK, &del)
	require.Equal(t, created.ID, del.ID)
	h.api(http.MethodGet, base+"/"+created.ID, nil).fails(http.StatusNotFound, 12135)
	h.api(http.MethodPut, base+"/"+created.ID, map[string]any{"name": "x"}).fails(http.StatusNotFound, 12135)
	h.api(http.MethodDelete, base+"/"+created.ID, nil).fails(http.StatusNotFound, 12135)
}

func TestServiceTokenSecretNeverLeaks(t *testing.T) {
	h := newHarness(t)
	var created struct {
		ClientSecret string `json:"client_secret"`
	}
	h.api(http.MethodPost, acctPath(acct1, "/access/service_tokens"), map[string]any{"name": "ci"}).ok(http.StatusCreated, &created)
	require.NotEmpty(t, created.ClientSecret)

	state := string(h.do(http.MethodGet, "/__admin/state", "", nil).Raw)
	logs := string(h.do(http.MethodGet, "/__admin/requests", "", nil).Raw)
	dump, err := json.Marshal(h.srv.State())
	require.NoError(t, err)
	for _, s := range []string{state, logs, string(dump)} {
		require.NotContains(t, s, created.ClientSecret)
		require.NotContains(t, s, tok1)
	}
}

func TestIdentityProviders(t *testing.T) {
	h := newHarness(t)
	base := acctPath(acct1, "/access/identity_providers")

	var otp IdentityProvider
	h.api(http.MethodPost, base, map[string]any{"name": "One-time PIN", "type": "onetimepin", "config": map[string]any{}}).ok(http.StatusCreated, &otp)
	require.True(t, isUUID(otp.ID))
	require.Equal(t, "onetimepin", otp.Type)
	require.NotNil(t, otp.Config)

	e := h.api(http.MethodPost, base, map[string]any{"name": "again", "type": "onetimepin"}).fails(http.StatusBadRequest, 12130)
	require.Contains(t, e.Message, "already exists")

	var gh IdentityProvider
	h.api(http.MethodPost, base, map[string]any{"name": "GitHub", "type": "github",
		"config": map[string]any{"client_id": "abc", "client_secret": "s3cr3t"}}).ok(http.StatusCreated, &gh)

	var list []IdentityProvider
	h.api(http.MethodGet, base, nil).list(&list)
	require.Len(t, list, 2)
	var got IdentityProvider
	h.api(http.MethodGet, base+"/"+otp.ID, nil).ok(http.StatusOK, &got)
	require.Equal(t, otp, got)

	h.api(http.MethodPut, base+"/"+otp.ID, map[string]any{"name": "PIN", "type": "onetimepin"}).ok(http.StatusOK, &got)
	require.Equal(t, "PIN", got.Name, "replacing the only OTP provider is not a duplicate")

	for _, bad := range []map[string]any{{"name": "x"}, {"name": "x", "type": "myspace"}, {"type": "github"}} {
		h.api(http.MethodPost, base, bad).fails(http.StatusBadRequest, 12130)
	}

	state := string(h.do(http.MethodGet, "/__admin/state", "", nil).Raw)
	require.NotContains(t, state, "s3cr3t", "identity provider secrets are redacted")
	require.True(t, strings.Contains(state, redacted))

	h.api(http.MethodDelete, base+"/"+otp.ID, nil).ok(http.StatusOK, nil)
	h.api(http.MethodGet, base+"/"+otp.ID, nil).fails(http.StatusNotFound, 12135)
	h.api(http.MethodPost, base, map[string]any{"name": "OTP", "type": "onetimepin"}).ok(http.StatusCreated, nil)
	h.do(http.MethodGet, acctPath(acct2, "/access/identity_providers"), tok2, nil).list(&list)
	require.Empty(t, list)
}

func TestSeededIdentityProvider(t *testing.T) {
	seed := testSeed()
	seed.IdentityProviders = []SeedIdentityProvider{{Name: "OTP", Type: "onetimepin", Account: acct1}}
	h := newHarness(t, WithSeed(seed))
	var list []IdentityProvider
	h.api(http.MethodGet, acctPath(acct1, "/access/identity_providers"), nil).list(&list)
	require.Len(t, list, 1)
	require.Equal(t, map[string]any{}, list[0].Config)
}
