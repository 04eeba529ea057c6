package cfsim

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

var appsPath = acctPath(acct1, "/access/apps")

func appBody(name, domain string, extra ...any) map[string]any {
	b := map[string]any{"name": name, "domain": domain, "type": "self_hosted"}
	for i := 0; i < len(extra); i += 2 {
		b[extra[i].(string)] = extra[i+1]
	}
	return b
}

func createApp(h *harness, name, domain string, extra ...any) string {
	h.t.Helper()
	return h.api(http.MethodPost, appsPath, appBody(name, domain, extra...)).ok(http.StatusCreated, nil).id()
}

func TestCreateAccessApplication(t *testing.T) {
	h := newHarness(t)
	var app AccessApplication
	h.api(http.MethodPost, appsPath, appBody("grafana", "grafana.example.com",
		"session_duration", "8h",
		"auto_redirect_to_identity", true,
		"skip_interstitial", true,
		"app_launcher_visible", false,
		"service_auth_401_redirect", true,
		"http_only_cookie_attribute", false,
		"same_site_cookie_attribute", "Lax",
		"enable_binding_cookie", true,
		"custom_deny_message", "ask #ops",
		"custom_deny_url", "https://deny.example.com",
		"logo_url", "https://example.com/logo.png",
		"tags", []string{"cfzt"},
	)).ok(http.StatusCreated, &app)

	require.True(t, isUUID(app.ID), app.ID)
	require.Len(t, app.AUD, 64)
	require.Equal(t, "grafana", app.Name)
	require.Equal(t, "grafana.example.com", app.Domain)
	require.Equal(t, "self_hosted", app.Type)
	require.Equal(t, "8h", app.SessionDuration)
	require.True(t, app.AutoRedirectToIdentity)
	require.True(t, app.SkipInterstitial)
	require.False(t, app.AppLauncherVisible)
	require.True(t, app.ServiceAuth401Redirect)
	require.False(t, app.HTTPOnlyCookieAttribute)
	require.Equal(t, "lax", app.SameSiteCookieAttribute)
	require.True(t, app.EnableBindingCookie)
	require.Equal(t, "ask #ops", app.CustomDenyMessage)
	require.Equal(t, "https://deny.example.com", app.CustomDenyURL)
	require.Equal(t, "https://example.com/logo.png", app.LogoURL)
	require.Equal(t, []string{"cfzt"}, app.Tags)
	require.Equal(t, []string{"grafana.example.com"}, app.SelfHostedDomains)
	require.Equal(t, []map[string]any{{"type": "public", "uri": "grafana.example.com"}}, app.Destinations)
	require.Empty(t, app.Policies)
	require.NotNil(t, app.Policies)
	require.Equal(t, "2025-01-02T03:04:05Z", app.CreatedAt)

	var defaults AccessApplication
	h.api(http.MethodPost, appsPath, appBody("min", "min.example.com/admin")).ok(http.StatusCreated, &defaults)
	require.Equal(t, "24h", defaults.SessionDuration)
	require.True(t, defaults.AppLauncherVisible)
	require.True(t, defaults.HTTPOnlyCookieAttribute)
	require.False(t, defaults.AutoRedirectToIdentity)
	require.Equal(t, "min.example.com/admin", defaults.Domain)

	var fromDest AccessApplication
	h.api(http.MethodPost, appsPath, map[string]any{"name": "d", "type": "self_hosted",
		"destinations": []any{map[string]any{"type": "public", "uri": "d.example.com"}}}).ok(http.StatusCreated, &fromDest)
	require.Equal(t, "d.example.com", fromDest.Domain)
}

func TestAccessApplicationValidation(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		name string
		body map[string]any
		msg  string
	}{
		{"missing type", map[string]any{"name": "a", "domain": "a.example.com"}, "app type is missing or invalid"},
		{"unknown type", appBody("a", "a.example.com", "type", "website"), "app type is missing or invalid"},
		{"unsimulated type", appBody("a", "a.example.com", "type", "saas"), "not supported by the cfsim simulator"},
		{"missing name", appBody("", "a.example.com"), "name is required"},
		{"missing domain", appBody("a", ""), "domain is required"},
		{"foreign domain", appBody("a", "a.other.org"), "domain does not belong to zone"},
		{"lookalike domain", appBody("a", "a.notexample.com"), "domain does not belong to zone"},
		{"pending zone", appBody("a", "a.pending.net"), "domain does not belong to zone"},
		{"domain with port", appBody("a", "a.example.com:8443"), "domain is invalid"},
		{"bad session", appBody("a", "a.example.com", "session_duration", "1 day"), "session_duration"},
		{"bad same-site", appBody("a", "a.example.com", "same_site_cookie_attribute", "sometimes"), "same_site_cookie_attribute"},
		{"relative deny url", appBody("a", "a.example.com", "custom_deny_url", "/denied"), "custom_deny_url"},
		{"bad logo url", appBody("a", "a.example.com", "logo_url", "logo.png"), "logo_url"},
		{"unknown idp", appBody("a", "a.example.com", "allowed_idps", []string{"00000000-0000-4000-8000-00000000dead"}), "identity provider"},
		{"unknown policy", appBody("a", "a.example.com", "policies", []any{"00000000-0000-4000-8000-00000000dead"}), "not found"},
		{"bad policy entry", appBody("a", "a.example.com", "policies", []any{7}), "policies[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := h.api(http.MethodPost, appsPath, tc.body).fails(http.StatusBadRequest, 12130)
			require.Contains(t, e.Message, "access.api.error.invalid_request: ")
			require.Contains(t, e.Message, tc.msg)
		})
	}
	require.Empty(t, h.srv.State().AccessApplications)

	createApp(h, "wild", "*.example.com")
	createApp(h, "apex", "example.com")
}

func TestGetListAndDeleteAccessApplication(t *testing.T) {
	h := newHarness(t)
	a := createApp(h, "alpha", "alpha.example.com")
	createApp(h, "beta", "beta.example.com")
	h.do(http.MethodPost, acctPath(acct2, "/access/apps"), tok2, appBody("gamma", "gamma.other.org")).ok(http.StatusCreated, nil)

	var got AccessApplication
	h.api(http.MethodGet, appsPath+"/"+a, nil).ok(http.StatusOK, &got)
	require.Equal(t, "alpha", got.Name)

	cases := []struct {
		query string
		want  []string
	}{
		{"", []string{"alpha", "beta"}},
		{"?name=beta", []string{"beta"}},
		{"?domain=alpha.example.com", []string{"alpha"}},
		{"?domain=example.com", []string{"alpha", "beta"}},
		{"?domain=example.com&exact=true", []string{}},
		{"?domain=Beta.Example.com&exact=true", []string{"beta"}},
		{"?name=alp", []string{"alpha"}},
		{"?name=alp&exact=true", []string{}},
		{"?aud=" + got.AUD, []string{"alpha"}},
		{"?search=BET", []string{"beta"}},
		{"?per_page=1&page=2", []string{"beta"}},
	}
	for _, tc := range cases {
		r := h.api(http.MethodGet, appsPath+tc.query, nil)
		r.list(&[]AccessApplication{})
		require.Equal(t, tc.want, names(t, r.Env.Result), tc.query)
	}

	var del map[string]string
	h.api(http.MethodDelete, appsPath+"/"+a, nil).ok(http.StatusOK, &del)
	require.Equal(t, a, del["id"])
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
		e := h.api(m, appsPath+"/"+a, appBody("alpha", "alpha.example.com")).fails(http.StatusNotFound, 12135)
		require.Equal(t, "access.api.error.not_found", e.Message)
	}
	h.do(http.MethodGet, acctPath(acct2, "/access/apps/"+a), tok2, nil).fails(http.StatusNotFound, 12135)
}

func TestUpdateAccessApplicationReplacesSettings(t *testing.T) {
	h := newHarness(t)
	id := createApp(h, "grafana", "grafana.example.com", "session_duration", "8h", "auto_redirect_to_identity", true)
	own := h.api(http.MethodPost, appsPath+"/"+id+"/policies", policyBody("own", "allow", everyone())).ok(http.StatusCreated, nil).id()
	h.clock.Advance(60e9)

	var app AccessApplication
	h.api(http.MethodPut, appsPath+"/"+id, appBody("grafana-2", "grafana2.example.com")).ok(http.StatusOK, &app)
	require.Equal(t, id, app.ID)
	require.Equal(t, "grafana-2", app.Name)
	require.Equal(t, "grafana2.example.com", app.Domain)
	require.Equal(t, "24h", app.SessionDuration, "PUT replaces: unsent settings return to defaults")
	require.False(t, app.AutoRedirectToIdentity)
	require.Equal(t, "2025-01-02T03:04:05Z", app.CreatedAt)
	require.Equal(t, "2025-01-02T03:05:05Z", app.UpdatedAt)
	require.Len(t, app.Policies, 1, "app-scoped policies survive a PUT without policies")
	require.Equal(t, own, app.Policies[0].ID)

	h.api(http.MethodPut, appsPath+"/"+id, appBody("x", "x.other.org")).fails(http.StatusBadRequest, 12130)
	h.api(http.MethodGet, appsPath+"/"+id, nil).ok(http.StatusOK, &app)
	require.Equal(t, "grafana-2", app.Name, "a rejected PUT changes nothing")
}

func TestApplicationLinksReusablePolicies(t *testing.T) {
	h := newHarness(t)
	p1 := createReusable(h, "allow-eng", "allow", map[string]any{"group": map[string]any{"id": group}})
	p2 := createReusable(h, "bypass-health", "bypass", everyone())

	var app AccessApplication
	h.api(http.MethodPost, appsPath, appBody("grafana", "grafana.example.com",
		"policies", []any{map[string]any{"id": p2, "precedence": 2}, map[string]any{"id": p1, "precedence": 1}},
	)).ok(http.StatusCreated, &app)
	require.Len(t, app.Policies, 2)
	require.Equal(t, []string{p1, p2}, []string{app.Policies[0].ID, app.Policies[1].ID}, "ordered by precedence")
	require.Equal(t, 1, app.Policies[0].Precedence)
	require.True(t, app.Policies[0].Reusable)
	require.Equal(t, "allow-eng", app.Policies[0].Name)

	var reusable AccessPolicy
	h.api(http.MethodGet, acctPath(acct1, "/access/policies/"+p1), nil).ok(http.StatusOK, &reusable)
	require.Equal(t, 1, *reusable.AppCount)

	// Plain IDs take their position as precedence.
	h.api(http.MethodPut, appsPath+"/"+app.ID, appBody("grafana", "grafana.example.com", "policies", []any{p2})).ok(http.StatusOK, &app)
	require.Len(t, app.Policies, 1)
	require.Equal(t, p2, app.Policies[0].ID)
	require.Equal(t, 1, app.Policies[0].Precedence)

	// Omitting policies keeps the links.
	h.api(http.MethodPut, appsPath+"/"+app.ID, appBody("grafana", "grafana.example.com")).ok(http.StatusOK, &app)
	require.Len(t, app.Policies, 1)

	h.api(http.MethodPut, appsPath+"/"+app.ID, appBody("grafana", "grafana.example.com", "policies", []any{
		map[string]any{"id": p1, "precedence": 1}, map[string]any{"id": p2, "precedence": 1},
	})).fails(http.StatusBadRequest, 12130)
	h.api(http.MethodPut, appsPath+"/"+app.ID, appBody("grafana", "grafana.example.com", "policies", []any{p1, p1})).fails(http.StatusBadRequest, 12130)
	h.api(http.MethodPut, appsPath+"/"+app.ID, appBody("grafana", "grafana.example.com", "policies", []any{})).ok(http.StatusOK, &app)
	require.Empty(t, app.Policies)
}

func TestApplicationPoliciesArrayReordersOwnPolicies(t *testing.T) {
	h := newHarness(t)
	id := createApp(h, "grafana", "grafana.example.com")
	own := h.api(http.MethodPost, appsPath+"/"+id+"/policies", policyBody("own", "allow", everyone())).ok(http.StatusCreated, nil).id()
	shared := createReusable(h, "shared", "allow", everyone())

	var app AccessApplication
	h.api(http.MethodPut, appsPath+"/"+id, appBody("grafana", "grafana.example.com", "policies", []any{
		map[string]any{"id": shared, "precedence": 1}, map[string]any{"id": own, "precedence": 2},
	})).ok(http.StatusOK, &app)
	require.Equal(t, []string{shared, own}, []string{app.Policies[0].ID, app.Policies[1].ID})
	require.False(t, app.Policies[1].Reusable)

	// An unlisted app-scoped policy keeps its precedence, which may clash.
	h.api(http.MethodPut, appsPath+"/"+id, appBody("grafana", "grafana.example.com", "policies", []any{
		map[string]any{"id": shared, "precedence": 2},
	})).fails(http.StatusBadRequest, 12130)

	// Another application's app-scoped policy cannot be linked.
	other := createApp(h, "other", "other.example.com")
	h.api(http.MethodPut, appsPath+"/"+other, appBody("other", "other.example.com", "policies", []any{own})).fails(http.StatusBadRequest, 12130)
}

func TestDeleteApplicationRemovesItsPolicies(t *testing.T) {
	h := newHarness(t)
	shared := createReusable(h, "shared", "allow", everyone())
	id := createApp(h, "grafana", "grafana.example.com", "policies", []any{shared})
	h.api(http.MethodPost, appsPath+"/"+id+"/policies", policyBody("own", "allow", everyone())).ok(http.StatusCreated, nil)
	require.Len(t, h.srv.State().AccessPolicies, 2)

	h.api(http.MethodDelete, appsPath+"/"+id, nil).ok(http.StatusOK, nil)
	st := h.srv.State()
	require.Len(t, st.AccessPolicies, 1)
	require.Equal(t, shared, st.AccessPolicies[0].Policy.ID)
	require.Equal(t, 0, *st.AccessPolicies[0].Policy.AppCount)
}

func TestApplicationAllowedIdPs(t *testing.T) {
	h := newHarness(t)
	otp := h.api(http.MethodPost, acctPath(acct1, "/access/identity_providers"),
		map[string]any{"name": "OTP", "type": "onetimepin", "config": map[string]any{}}).ok(http.StatusCreated, nil).id()
	var app AccessApplication
	h.api(http.MethodPost, appsPath, appBody("g", "g.example.com", "allowed_idps", []string{otp})).ok(http.StatusCreated, &app)
	require.Equal(t, []string{otp}, app.AllowedIdPs)

	h.api(http.MethodDelete, acctPath(acct1, "/access/identity_providers/"+otp), nil).ok(http.StatusOK, nil)
	h.api(http.MethodGet, appsPath+"/"+app.ID, nil).ok(http.StatusOK, &app)
	require.Empty(t, app.AllowedIdPs)
}
