package cfsim

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func everyone() map[string]any { return map[string]any{"everyone": map[string]any{}} }

func policyBody(name, decision string, include ...map[string]any) map[string]any {
	rules := []any{}
	for _, r := range include {
		rules = append(rules, r)
	}
	return map[string]any{"name": name, "decision": decision, "include": rules}
}

func createReusable(h *harness, name, decision string, include ...map[string]any) string {
	h.t.Helper()
	return h.api(http.MethodPost, acctPath(acct1, "/access/policies"), policyBody(name, decision, include...)).
		ok(http.StatusCreated, nil).id()
}

func TestAppScopedPolicyCRUD(t *testing.T) {
	h := newHarness(t)
	app := createApp(h, "grafana", "grafana.example.com")
	base := appsPath + "/" + app + "/policies"

	var p AccessPolicy
	body := policyBody("grafana-allow", "allow",
		map[string]any{"group": map[string]any{"id": group}},
		map[string]any{"email": map[string]any{"email": "alice@example.com"}})
	body["exclude"] = []any{map[string]any{"email_domain": map[string]any{"domain": "contractor.example"}}}
	body["session_duration"] = "4h"
	h.api(http.MethodPost, base, body).ok(http.StatusCreated, &p)
	require.True(t, isUUID(p.ID))
	require.Equal(t, "grafana-allow", p.Name)
	require.Equal(t, "allow", p.Decision)
	require.Equal(t, 1, p.Precedence, "precedence defaults to after the app's last policy")
	require.False(t, p.Reusable)
	require.Nil(t, p.AppCount)
	require.Len(t, p.Include, 2)
	require.Equal(t, map[string]any{"email": map[string]any{"email": "alice@example.com"}}, p.Include[1])
	require.Len(t, p.Exclude, 1)
	require.NotNil(t, p.Require)
	require.Equal(t, "4h", p.SessionDuration)

	second := h.api(http.MethodPost, base, policyBody("deny-all", "deny", everyone())).ok(http.StatusCreated, nil)
	var p2 AccessPolicy
	second.ok(http.StatusCreated, &p2)
	require.Equal(t, 2, p2.Precedence)

	var list []AccessPolicy
	info := h.api(http.MethodGet, base, nil).list(&list)
	require.Equal(t, 2, info.TotalCount)
	require.Equal(t, []string{p.ID, p2.ID}, []string{list[0].ID, list[1].ID})

	var got AccessPolicy
	h.api(http.MethodGet, base+"/"+p.ID, nil).ok(http.StatusOK, &got)
	require.Equal(t, p.Name, got.Name)

	upd := policyBody("grafana-allow", "allow", everyone())
	upd["precedence"] = 5
	var replaced AccessPolicy
	h.api(http.MethodPut, base+"/"+p.ID, upd).ok(http.StatusOK, &replaced)
	require.Equal(t, 5, replaced.Precedence)
	require.Equal(t, []map[string]any{everyone()}, replaced.Include)
	require.Empty(t, replaced.Exclude, "PUT replaces the whole policy")

	upd["precedence"] = 2
	h.api(http.MethodPut, base+"/"+p.ID, upd).fails(http.StatusBadRequest, 12130)
	dup := policyBody("x", "allow", everyone())
	dup["precedence"] = 5
	h.api(http.MethodPost, base, dup).fails(http.StatusBadRequest, 12130)

	var app1 AccessApplication
	h.api(http.MethodGet, appsPath+"/"+app, nil).ok(http.StatusOK, &app1)
	require.Equal(t, []string{p2.ID, p.ID}, []string{app1.Policies[0].ID, app1.Policies[1].ID})

	var del map[string]string
	h.api(http.MethodDelete, base+"/"+p.ID, nil).ok(http.StatusOK, &del)
	require.Equal(t, p.ID, del["id"])
	h.api(http.MethodGet, base+"/"+p.ID, nil).fails(http.StatusNotFound, 12135)
	h.api(http.MethodDelete, base+"/"+p.ID, nil).fails(http.StatusNotFound, 12135)

	// The policy belongs to its application only.
	other := createApp(h, "other", "other.example.com")
	h.api(http.MethodGet, appsPath+"/"+other+"/policies/"+p2.ID, nil).fails(http.StatusNotFound, 12135)
	h.api(http.MethodGet, appsPath+"/00000000-0000-4000-8000-00000000dead/policies", nil).fails(http.StatusNotFound, 12135)
	// App-scoped policies are not reusable ones.
	h.api(http.MethodGet, acctPath(acct1, "/access/policies/"+p2.ID), nil).fails(http.StatusNotFound, 12135)
}

func TestPolicyRuleValidation(t *testing.T) {
	h := newHarness(t)
	app := createApp(h, "grafana", "grafana.example.com")
	base := appsPath + "/" + app + "/policies"
	token := h.api(http.MethodPost, acctPath(acct1, "/access/service_tokens"), map[string]any{"name": "ci"}).ok(http.StatusCreated, nil).id()

	valid := []map[string]any{
		{"email": map[string]any{"email": "a@example.com"}},
		{"email_domain": map[string]any{"domain": "example.com"}},
		{"group": map[string]any{"id": group}},
		{"everyone": map[string]any{}},
		{"service_token": map[string]any{"token_id": token}},
		{"any_valid_service_token": map[string]any{}},
		{"ip": map[string]any{"ip": "192.0.2.0/24"}},
		{"ip": map[string]any{"ip": "2001:db8::1"}},
		{"geo": map[string]any{"country_code": "US"}},
	}
	for _, rule := range valid {
		h.api(http.MethodPost, base, policyBody("ok", "allow", rule)).ok(http.StatusCreated, nil)
	}

	invalid := []struct {
		name string
		body map[string]any
		msg  string
	}{
		{"no include", map[string]any{"name": "x", "decision": "allow"}, "include must contain at least one rule"},
		{"empty include", policyBody("x", "allow"), "include must contain at least one rule"},
		{"missing name", policyBody("", "allow", everyone()), "name is required"},
		{"missing decision", map[string]any{"name": "x", "include": []any{everyone()}}, "decision must be one of"},
		{"bad decision", policyBody("x", "permit", everyone()), "decision must be one of"},
		{"unknown rule", policyBody("x", "allow", map[string]any{"emails": map[string]any{"email": "a@b.c"}}), "unknown rule type"},
		{"two kinds in one rule", policyBody("x", "allow", map[string]any{"everyone": map[string]any{}, "email": map[string]any{"email": "a@b.c"}}), "exactly one rule type"},
		{"email missing", policyBody("x", "allow", map[string]any{"email": map[string]any{}}), "email.email is required"},
		{"email not address", policyBody("x", "allow", map[string]any{"email": map[string]any{"email": "alice"}}), "not an email address"},
		{"domain is address", policyBody("x", "allow", map[string]any{"email_domain": map[string]any{"domain": "a@example.com"}}), "must be a domain"},
		{"group by name", policyBody("x", "allow", map[string]any{"group": map[string]any{"id": "Engineering"}}), "access group \"Engineering\" not found"},
		{"unknown service token", policyBody("x", "allow", map[string]any{"service_token": map[string]any{"token_id": "00000000-0000-4000-8000-00000000dead"}}), "service token"},
		{"bad ip", policyBody("x", "allow", map[string]any{"ip": map[string]any{"ip": "10.0.0.300"}}), "not an IP address"},
		{"rule body not object", policyBody("x", "allow", map[string]any{"everyone": true}), "must be an object"},
		{"bad exclude", map[string]any{"name": "x", "decision": "allow", "include": []any{everyone()}, "exclude": []any{"x"}}, "exclude[0]"},
		{"bad session", map[string]any{"name": "x", "decision": "allow", "include": []any{everyone()}, "session_duration": "forever"}, "session_duration"},
		{"zero precedence", map[string]any{"name": "x", "decision": "allow", "include": []any{everyone()}, "precedence": 0}, "precedence"},
	}
	for _, tc := range invalid {
		t.Run(tc.name, func(t *testing.T) {
			e := h.api(http.MethodPost, base, tc.body).fails(http.StatusBadRequest, 12130)
			require.Contains(t, e.Message, tc.msg)
			r := h.api(http.MethodPost, acctPath(acct1, "/access/policies"), tc.body)
			if tc.name != "zero precedence" { // reusable policies have no precedence
				r.fails(http.StatusBadRequest, 12130)
			}
		})
	}

	// Groups and service tokens of another account are not visible.
	h.do(http.MethodPost, acctPath(acct2, "/access/policies"), tok2,
		policyBody("x", "allow", map[string]any{"group": map[string]any{"id": group}})).fails(http.StatusBadRequest, 12130)
}

func TestAppPolicyListIncludesLinkedReusablePolicies(t *testing.T) {
	h := newHarness(t)
	shared := createReusable(h, "shared", "allow", everyone())
	app := createApp(h, "grafana", "grafana.example.com", "policies", []any{map[string]any{"id": shared, "precedence": 1}})
	base := appsPath + "/" + app + "/policies"
	own := h.api(http.MethodPost, base, policyBody("own", "deny", everyone())).ok(http.StatusCreated, nil).id()

	var list []AccessPolicy
	h.api(http.MethodGet, base, nil).list(&list)
	require.Len(t, list, 2)
	require.Equal(t, shared, list[0].ID)
	require.True(t, list[0].Reusable)
	require.Equal(t, own, list[1].ID)
	require.Equal(t, 2, list[1].Precedence)

	var got AccessPolicy
	h.api(http.MethodGet, base+"/"+shared, nil).ok(http.StatusOK, &got)
	require.Equal(t, 1, got.Precedence)
	h.api(http.MethodPut, base+"/"+shared, policyBody("shared", "allow", everyone())).fails(http.StatusBadRequest, 12130)
	h.api(http.MethodDelete, base+"/"+shared, nil).fails(http.StatusBadRequest, 12130)
}

func TestReusablePolicyCRUD(t *testing.T) {
	h := newHarness(t)
	base := acctPath(acct1, "/access/policies")
	var p AccessPolicy
	h.api(http.MethodPost, base, policyBody("allow-eng", "allow", map[string]any{"group": map[string]any{"id": group}})).ok(http.StatusCreated, &p)
	require.True(t, p.Reusable)
	require.Equal(t, 0, *p.AppCount)
	require.Equal(t, 0, p.Precedence)

	var list []AccessPolicy
	h.api(http.MethodGet, base, nil).list(&list)
	require.Len(t, list, 1)
	h.do(http.MethodGet, acctPath(acct2, "/access/policies"), tok2, nil).list(&list)
	require.Empty(t, list)

	h.api(http.MethodPut, base+"/"+p.ID, policyBody("allow-all", "allow", everyone())).ok(http.StatusOK, &p)
	require.Equal(t, "allow-all", p.Name)

	app := createApp(h, "g", "g.example.com", "policies", []any{p.ID})
	var viaApp AccessApplication
	h.api(http.MethodGet, appsPath+"/"+app, nil).ok(http.StatusOK, &viaApp)
	require.Equal(t, "allow-all", viaApp.Policies[0].Name, "apps see reusable policy updates")

	e := h.api(http.MethodDelete, base+"/"+p.ID, nil).fails(http.StatusBadRequest, 12130)
	require.Contains(t, e.Message, "still used")
	h.api(http.MethodPut, appsPath+"/"+app, appBody("g", "g.example.com", "policies", []any{})).ok(http.StatusOK, nil)
	h.api(http.MethodDelete, base+"/"+p.ID, nil).ok(http.StatusOK, nil)
	h.api(http.MethodGet, base+"/"+p.ID, nil).fails(http.StatusNotFound, 12135)
	h.api(http.MethodPut, base+"/"+p.ID, policyBody("x", "allow", everyone())).fails(http.StatusNotFound, 12135)
}
