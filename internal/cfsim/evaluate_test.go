package cfsim

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// newToken creates a service token and returns its ID, client ID and secret.
func newToken(h *harness, name, duration string) (id, clientID, secret string) {
	h.t.Helper()
	var tok serviceTokenCreated
	body := map[string]any{"name": name}
	if duration != "" {
		body["duration"] = duration
	}
	h.api(http.MethodPost, acctPath(acct1, "/access/service_tokens"), body).ok(http.StatusCreated, &tok)
	return tok.ID, tok.ClientID, tok.ClientSecret
}

func rule(kind string, body map[string]any) map[string]any { return map[string]any{kind: body} }

// An application with an Allow policy for a person and a Service Auth
// policy for a token: each client gets through only the documented way.
func TestEvaluateAccessPolicies(t *testing.T) {
	h := newHarness(t)
	app := createApp(h, "api", "api.example.com")
	tokID, clientID, secret := newToken(h, "api-token", "1h")
	_, otherID, otherSecret := newToken(h, "other-token", "")
	base := appsPath + "/" + app + "/policies"
	allow := h.api(http.MethodPost, base, policyBody("people", "allow",
		rule("email", map[string]any{"email": "alice@example.com"}),
		rule("group", map[string]any{"id": group}))).ok(http.StatusCreated, nil).id()
	svc := h.api(http.MethodPost, base, policyBody("machines", "non_identity",
		rule("service_token", map[string]any{"token_id": tokID}))).ok(http.StatusCreated, nil).id()
	block := h.api(http.MethodPost, base, policyBody("no-mallory", "deny",
		rule("email", map[string]any{"email": "mallory@example.com"}))).ok(http.StatusCreated, nil).id()
	// The block policy sits after the allow policy, so the group admits
	// mallory first; move it before.
	h.api(http.MethodPut, base+"/"+block, map[string]any{"name": "no-mallory", "decision": "deny", "precedence": 10,
		"include": []any{rule("email", map[string]any{"email": "mallory@example.com"})}}).ok(http.StatusOK, nil)

	tests := []struct {
		name    string
		req     AccessRequest
		outcome string
		policy  string
		token   string
	}{
		{"service token with its secret", AccessRequest{Hostname: "api.example.com", ClientID: clientID, ClientSecret: secret}, OutcomeAllowed, svc, "valid"},
		{"service token on a path", AccessRequest{Hostname: "API.example.com/v1/items", ClientID: clientID, ClientSecret: secret}, OutcomeAllowed, svc, "valid"},
		{"wrong secret", AccessRequest{Hostname: "api.example.com", ClientID: clientID, ClientSecret: otherSecret}, OutcomeLoginRequired, "", "invalid"},
		{"another account's token shape", AccessRequest{Hostname: "api.example.com", ClientID: "nope.access", ClientSecret: secret}, OutcomeLoginRequired, "", "invalid"},
		{"a valid token no policy names", AccessRequest{Hostname: "api.example.com", ClientID: otherID, ClientSecret: otherSecret}, OutcomeLoginRequired, "", "valid"},
		{"no credentials at all", AccessRequest{Hostname: "api.example.com"}, OutcomeLoginRequired, "", ""},
		{"allowed e-mail", AccessRequest{Hostname: "api.example.com", Email: "Alice@example.com"}, OutcomeAllowed, allow, ""},
		{"group member", AccessRequest{Hostname: "api.example.com", Email: "bob@example.com"}, OutcomeAllowed, allow, ""},
		{"stranger", AccessRequest{Hostname: "api.example.com", Email: "eve@elsewhere.org"}, OutcomeDenied, "", ""},
		{"unprotected hostname", AccessRequest{Hostname: "open.example.com"}, OutcomeUnprotected, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := h.srv.Evaluate(tc.req)
			require.Equal(t, tc.outcome, d.Outcome, "%+v", d)
			require.Equal(t, tc.outcome == OutcomeAllowed || tc.outcome == OutcomeUnprotected, d.Allowed)
			require.Equal(t, tc.policy, d.PolicyID)
			require.Equal(t, tc.token, d.ServiceToken)
		})
	}

	// An expired token no longer passes.
	h.clock.Advance(2 * time.Hour)
	d := h.srv.Evaluate(AccessRequest{Hostname: "api.example.com", ClientID: clientID, ClientSecret: secret})
	require.False(t, d.Allowed)
	require.Equal(t, "invalid", d.ServiceToken)
}

// A service token in an Allow policy does not let a machine client through:
// Access still asks it to log in (the defect the operator once had).
func TestEvaluateServiceTokenInAllowPolicyNeedsLogin(t *testing.T) {
	h := newHarness(t)
	app := createApp(h, "api", "api.example.com")
	tokID, clientID, secret := newToken(h, "t", "")
	h.api(http.MethodPost, appsPath+"/"+app+"/policies", policyBody("allow", "allow",
		rule("service_token", map[string]any{"token_id": tokID}))).ok(http.StatusCreated, nil)
	d := h.srv.Evaluate(AccessRequest{Hostname: "api.example.com", ClientID: clientID, ClientSecret: secret})
	require.Equal(t, OutcomeLoginRequired, d.Outcome)
	require.Equal(t, 302, d.Status)

	// service_auth_401_redirect answers 401 instead of the login page.
	h.api(http.MethodPut, appsPath+"/"+app, appBody("api", "api.example.com", "service_auth_401_redirect", true)).ok(http.StatusOK, nil)
	d = h.srv.Evaluate(AccessRequest{Hostname: "api.example.com", ClientID: clientID, ClientSecret: secret})
	require.Equal(t, OutcomeUnauthorized, d.Outcome)
	require.Equal(t, 401, d.Status)
}

// Bypass policies admit without a login; wildcard applications cover one
// label; block policies decide by precedence.
func TestEvaluateBypassWildcardAndPrecedence(t *testing.T) {
	h := newHarness(t)
	app := createApp(h, "wild", "*.example.com")
	base := appsPath + "/" + app + "/policies"
	h.api(http.MethodPost, base, policyBody("office", "bypass", rule("ip", map[string]any{"ip": "192.0.2.0/24"}))).ok(http.StatusCreated, nil)
	deny := h.api(http.MethodPost, base, policyBody("block", "deny", rule("email_domain", map[string]any{"domain": "example.com"}))).ok(http.StatusCreated, nil).id()
	h.api(http.MethodPost, base, policyBody("all", "allow", everyone())).ok(http.StatusCreated, nil)

	require.True(t, h.srv.Evaluate(AccessRequest{Hostname: "x.example.com", IP: "192.0.2.9"}).Allowed)
	require.Equal(t, OutcomeLoginRequired, h.srv.Evaluate(AccessRequest{Hostname: "x.example.com", IP: "198.51.100.1"}).Outcome)
	d := h.srv.Evaluate(AccessRequest{Hostname: "x.example.com", Email: "a@example.com"})
	require.Equal(t, OutcomeDenied, d.Outcome)
	require.Equal(t, deny, d.PolicyID)
	require.True(t, h.srv.Evaluate(AccessRequest{Hostname: "x.example.com", Email: "a@other.org"}).Allowed)
	require.Equal(t, OutcomeUnprotected, h.srv.Evaluate(AccessRequest{Hostname: "a.b.example.com"}).Outcome)
}

// The admin endpoint answers the same decision as JSON.
func TestEvaluateEndpoint(t *testing.T) {
	h := newHarness(t)
	app := createApp(h, "api", "api.example.com")
	tokID, clientID, secret := newToken(h, "t", "")
	h.api(http.MethodPost, appsPath+"/"+app+"/policies", policyBody("svc", "non_identity",
		rule("service_token", map[string]any{"token_id": tokID}))).ok(http.StatusCreated, nil)

	r := h.do(http.MethodPost, AdminPrefix+"evaluate", "", map[string]any{"hostname": "api.example.com", "client_id": clientID, "client_secret": secret})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	var d AccessDecision
	require.NoError(t, json.Unmarshal(r.Raw, &d))
	require.True(t, d.Allowed)
	require.Equal(t, "non_identity", d.Decision)

	require.Equal(t, http.StatusBadRequest, h.do(http.MethodPost, AdminPrefix+"evaluate", "", map[string]any{}).Status)
	require.Equal(t, http.StatusBadRequest, h.do(http.MethodPost, AdminPrefix+"evaluate", "", map[string]any{"host": "x"}).Status)
}

// A token that a policy references cannot be deleted; once the policy no
// longer names it, it can.
func TestServiceTokenDeleteRefusedWhileReferenced(t *testing.T) {
	h := newHarness(t)
	app := createApp(h, "api", "api.example.com")
	tokID, _, _ := newToken(h, "old", "")
	newID, _, _ := newToken(h, "new", "")
	base := appsPath + "/" + app + "/policies"
	pol := h.api(http.MethodPost, base, policyBody("svc", "non_identity",
		rule("service_token", map[string]any{"token_id": tokID}))).ok(http.StatusCreated, nil).id()
	tokPath := acctPath(acct1, "/access/service_tokens/"+tokID)

	e := h.api(http.MethodDelete, tokPath, nil).fails(http.StatusBadRequest, 12130)
	require.Contains(t, e.Message, "policy "+pol)

	h.api(http.MethodPut, base+"/"+pol, policyBody("svc", "non_identity",
		rule("service_token", map[string]any{"token_id": newID}))).ok(http.StatusOK, nil)
	h.api(http.MethodDelete, tokPath, nil).ok(http.StatusOK, nil)
}

// Service Auth policies cannot hold identity rules.
func TestNonIdentityPolicyRejectsIdentityRules(t *testing.T) {
	h := newHarness(t)
	app := createApp(h, "api", "api.example.com")
	for _, r := range []map[string]any{
		rule("email", map[string]any{"email": "a@example.com"}),
		rule("email_domain", map[string]any{"domain": "example.com"}),
	} {
		e := h.api(http.MethodPost, appsPath+"/"+app+"/policies", policyBody("svc", "non_identity", r)).fails(http.StatusBadRequest, 12130)
		require.Contains(t, e.Message, "non_identity")
	}
	h.api(http.MethodPost, appsPath+"/"+app+"/policies", policyBody("svc", "non_identity", everyone())).ok(http.StatusCreated, nil)
}
