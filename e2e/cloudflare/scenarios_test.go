package cloudflare

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
	"github.com/cfzt/cfzt-runner/internal/e2e"
)

func TestPlainTunnelRoute(t *testing.T) {
	e := newEnv(t)
	// Another hostname's rule and a catch-all already exist.
	e.api("PUT", "/accounts/"+e.sim.AccountID+"/cfd_tunnel/"+e.sim.TunnelID+"/configurations", map[string]any{
		"config": map[string]any{"ingress": []any{
			map[string]any{"hostname": "other.example.com", "service": "http://other:80"},
			map[string]any{"service": "http_status:404"},
		}},
	})
	e.createTask("cfzt-apps-web", e.spec("web.example.com", map[string]any{
		"tunnelRoute": map[string]any{"enabled": true, "service": "http://web.apps.svc.cluster.local:80"},
	}))

	out := e.run()
	res := e.requireCompleted("cfzt-apps-web", out)
	require.Equal(t, e.sim.TunnelID, res["hostnameRouteId"])
	require.Equal(t, e.sim.TunnelID, res["tunnelId"])

	require.Equal(t, map[string]any{"hostname": "web.example.com", "service": "http://web.apps.svc.cluster.local:80"}, e.rule("web.example.com"))
	require.NotNil(t, e.rule("other.example.com"), "other hostnames' rules are kept")
	e.requireCatchAllLast()
	require.Empty(t, e.dnsRecords("web.example.com"), "no DNS without cnameDns")
	require.Contains(t, e.status("cfzt-apps-web")["message"], "tunnel route updated")
}

func TestHTTPSOriginWithTLSOptions(t *testing.T) {
	e := newEnv(t)
	e.createTask("cfzt-apps-secure", e.spec("secure.example.com", map[string]any{
		"tunnelRoute": map[string]any{
			"enabled": true,
			"service": "https://secure.apps.svc.cluster.local:8443",
			"originRequest": map[string]any{
				"noTLSVerify":      true,
				"originServerName": "secure.internal",
				"caPool":           "/etc/cloudflared/ca.pem",
				"tlsTimeout":       int64(15),
				"http2Origin":      true,
				"matchSNIToHost":   true,
				"httpHostHeader":   "secure.internal",
			},
		},
	}))
	out := e.run()
	e.requireCompleted("cfzt-apps-secure", out)
	rule := e.rule("secure.example.com")
	require.NotNil(t, rule, "%v", e.ingress())
	require.Equal(t, "https://secure.apps.svc.cluster.local:8443", rule["service"])
	require.Equal(t, map[string]any{
		"noTLSVerify":      true,
		"originServerName": "secure.internal",
		"caPool":           "/etc/cloudflared/ca.pem",
		"tlsTimeout":       float64(15), // a JSON number, not a string
		"http2Origin":      true,
		"matchSNItoHost":   true, // Cloudflare's spelling
		"httpHostHeader":   "secure.internal",
	}, rule["originRequest"])
	e.requireCatchAllLast()
}

func TestTunnelCNAME(t *testing.T) {
	e := newEnv(t)
	e.createTask("cfzt-apps-cname", e.spec("cname.example.co.uk", map[string]any{
		"tunnelRoute": map[string]any{"enabled": true, "service": "http://web:80"},
		"cnameDns":    map[string]any{"enabled": true, "proxied": true},
	}))
	out := e.run()
	res := e.requireCompleted("cfzt-apps-cname", out)

	recs := e.dnsRecords("cname.example.co.uk")
	require.Len(t, recs, 1)
	require.Equal(t, "CNAME", recs[0].Type)
	require.Equal(t, e.sim.TunnelID+".cfargotunnel.com", recs[0].Content)
	require.True(t, recs[0].Proxied)
	require.Equal(t, recs[0].ID, res["cnameRecordId"])
	// The zone is the 3-label apex, not example.com's (PITFALLS 3).
	require.Equal(t, e.sim.Zones["example.co.uk"], res["zoneId"])
	for _, r := range e.sim.State().DNSRecords {
		if r.Object.ID == recs[0].ID {
			require.Equal(t, e.sim.Zones["example.co.uk"], r.ZoneID)
		}
	}
}

func TestDNSOnlyARecord(t *testing.T) {
	e := newEnv(t)
	spec := e.spec("direct.example.com", map[string]any{
		"dnsRecord": map[string]any{"enabled": true, "ipAddress": "203.0.113.10", "proxied": false, "ttl": int64(300)},
	})
	spec["zoneId"] = e.sim.Zones["example.com"] // known to kube_worker: no zone lookup
	e.createTask("cfzt-apps-direct", spec)
	out := e.run()
	res := e.requireCompleted("cfzt-apps-direct", out)

	recs := e.dnsRecords("direct.example.com")
	require.Len(t, recs, 1)
	require.Equal(t, "A", recs[0].Type)
	require.Equal(t, "203.0.113.10", recs[0].Content)
	require.False(t, recs[0].Proxied)
	require.Equal(t, 300, recs[0].TTL)
	require.Equal(t, recs[0].ID, res["dnsRecordId"])
	require.Equal(t, "203.0.113.10", res["dnsRecordIp"])
	require.Nil(t, e.rule("direct.example.com"), "no tunnel rule in DNS-only mode")
	for _, r := range e.sim.Requests() {
		require.NotEqual(t, "/client/v4/zones", r.Path, "zoneId was given; no zone lookup expected")
	}

	// A new address is patched in place.
	require.NoError(t, unstructuredSet(e, "cfzt-apps-direct", "203.0.113.11", "spec", "operations", "dnsRecord", "ipAddress"))
	e.requeue("cfzt-apps-direct")
	e.sim.ResetLog()
	out = e.run()
	res = e.requireCompleted("cfzt-apps-direct", out)
	recs = e.dnsRecords("direct.example.com")
	require.Len(t, recs, 1)
	require.Equal(t, "203.0.113.11", recs[0].Content)
	require.Equal(t, []string{"PATCH /zones/" + e.sim.Zones["example.com"] + "/dns_records/" + recs[0].ID}, e.writes())
	require.Equal(t, "203.0.113.11", res["dnsRecordIp"])
}

func TestAccessAppWithEmailsAndGroups(t *testing.T) {
	e := newEnv(t)
	e.createTask("cfzt-apps-admin", e.spec("admin.example.com", map[string]any{
		"tunnelRoute": map[string]any{"enabled": true, "service": "http://admin:80"},
		"accessApp": map[string]any{
			"enabled":                  true,
			"name":                     "Admin console",
			"sessionDuration":          "8h",
			"autoRedirectToIdentity":   true,
			"skipInterstitial":         true,
			"appLauncherVisible":       false,
			"serviceAuth401Redirect":   true,
			"httpOnlyCookieAttribute":  true,
			"sameSiteCookieAttribute":  "strict",
			"enableBindingCookie":      true,
			"customDenyMessage":        "Ask IT for access",
			"customDenyUrl":            "https://example.com/denied",
			"customNonIdentityDenyUrl": "https://example.com/denied-bot",
			"logoUrl":                  "https://example.com/logo.png",
		},
		"accessPolicy": map[string]any{
			"enabled":           true,
			"name":              "admins",
			"allowEmails":       []any{"alice@example.com", "bob@example.com"},
			"allowEmailDomains": []any{"example.org"},
			"allowGroups":       []any{"Engineering", "Admins"},
		},
	}))
	out := e.run()
	res := e.requireCompleted("cfzt-apps-admin", out)

	app := e.app("admin.example.com")
	require.NotNil(t, app)
	require.Equal(t, app.ID, res["accessAppId"])
	require.Equal(t, "Admin console", app.Name)
	require.Equal(t, "self_hosted", app.Type)
	require.Equal(t, "8h", app.SessionDuration)
	require.True(t, app.AutoRedirectToIdentity)
	require.True(t, app.SkipInterstitial)
	require.False(t, app.AppLauncherVisible)
	require.True(t, app.ServiceAuth401Redirect)
	require.True(t, app.HTTPOnlyCookieAttribute)
	require.Equal(t, "strict", app.SameSiteCookieAttribute)
	require.True(t, app.EnableBindingCookie)
	require.Equal(t, "Ask IT for access", app.CustomDenyMessage)
	require.Equal(t, "https://example.com/denied", app.CustomDenyURL)
	require.Equal(t, "https://example.com/denied-bot", app.CustomNonIdentityDenyURL)
	require.Equal(t, "https://example.com/logo.png", app.LogoURL)

	require.Len(t, app.Policies, 1)
	pol := app.Policies[0]
	require.Equal(t, "admins", pol.Name)
	require.Equal(t, "allow", pol.Decision)
	require.Equal(t, 1, pol.Precedence)
	require.Equal(t, []map[string]any{
		{"email": map[string]any{"email": "alice@example.com"}},
		{"email": map[string]any{"email": "bob@example.com"}},
		{"email_domain": map[string]any{"domain": "example.org"}},
		{"group": map[string]any{"id": e.sim.Groups["Engineering"]}}, // IDs, not names
		{"group": map[string]any{"id": e.sim.Groups["Admins"]}},
	}, pol.Include)
	require.Equal(t, []any{pol.ID}, res["accessPolicyIds"])

	// An unknown group fails the task with a clear message.
	spec := e.spec("nogroup.example.com", map[string]any{
		"accessApp":    map[string]any{"enabled": true},
		"accessPolicy": map[string]any{"enabled": true, "allowGroups": []any{"Nobody"}},
	})
	e.createTask("cfzt-apps-nogroup", spec)
	e.run()
	st := e.status("cfzt-apps-nogroup")
	require.Equal(t, "Failed", st["phase"])
	require.Contains(t, st["message"], "Access groups not found")
	require.Contains(t, st["message"], "Nobody")
}

func TestReusablePoliciesByName(t *testing.T) {
	e := newEnv(t)
	base := "/accounts/" + e.sim.AccountID + "/access/policies"
	staff := e.api("POST", base, map[string]any{"name": "Staff", "decision": "allow", "include": []any{map[string]any{"email_domain": map[string]any{"domain": "example.com"}}}})
	vendors := e.api("POST", base, map[string]any{"name": "Vendors", "decision": "allow", "include": []any{map[string]any{"email": map[string]any{"email": "v@vendor.test"}}}})

	e.createTask("cfzt-apps-wiki", e.spec("wiki.example.com", map[string]any{
		"accessApp": map[string]any{"enabled": true},
		"accessPolicy": map[string]any{
			"enabled":     true,
			"allowEmails": []any{"carol@example.com"},
			"policyNames": []any{"Staff", "Vendors"},
		},
	}))
	out := e.run()
	res := e.requireCompleted("cfzt-apps-wiki", out)

	app := e.app("wiki.example.com")
	require.NotNil(t, app)
	var got [][2]any
	for _, p := range app.Policies {
		got = append(got, [2]any{p.Name, p.Precedence})
	}
	require.Equal(t, [][2]any{{"cfzt wiki.example.com", 1}, {"Staff", 2}, {"Vendors", 3}}, got)
	ids := res["accessPolicyIds"].([]any)
	require.Len(t, ids, 3)
	require.Equal(t, []any{app.Policies[0].ID, staff["id"], vendors["id"]}, ids)

	// Only reusable policies: no app-scoped policy at all.
	e.createTask("cfzt-apps-docs", e.spec("docs.example.com", map[string]any{
		"accessApp":    map[string]any{"enabled": true},
		"accessPolicy": map[string]any{"enabled": true, "policyNames": []any{"Vendors"}},
	}))
	out = e.run()
	res = e.requireCompleted("cfzt-apps-docs", out)
	require.Equal(t, []any{vendors["id"]}, res["accessPolicyIds"])
	docs := e.app("docs.example.com")
	require.Len(t, docs.Policies, 1)
	require.Equal(t, vendors["id"], docs.Policies[0].ID)
	require.True(t, docs.Policies[0].Reusable)

	// An unknown name fails with the name in the message.
	e.createTask("cfzt-apps-bad", e.spec("bad.example.com", map[string]any{
		"accessApp":    map[string]any{"enabled": true},
		"accessPolicy": map[string]any{"enabled": true, "policyNames": []any{"Staff", "Ghosts"}},
	}))
	e.run()
	st := e.status("cfzt-apps-bad")
	require.Equal(t, "Failed", st["phase"])
	require.Contains(t, st["message"], "Ghosts")
	require.NotContains(t, st["message"], "Staff")
}

func TestServiceTokenGoesToASecret(t *testing.T) {
	e := newEnv(t)
	e.createTask("cfzt-apps-api", e.spec("api.example.com", map[string]any{
		"tunnelRoute":  map[string]any{"enabled": true, "service": "http://api:80"},
		"accessApp":    map[string]any{"enabled": true},
		"accessPolicy": map[string]any{"enabled": true, "includeServiceToken": true, "allowEmails": []any{"ops@example.com"}},
		"serviceToken": map[string]any{"enabled": true, "name": "api-robot", "duration": "8760h"},
	}))
	out := e.run("-vvvv")
	res := e.requireCompleted("cfzt-apps-api", out)

	toks := e.sim.State().ServiceTokens
	require.Len(t, toks, 1)
	tok := toks[0].Object
	require.Equal(t, "api-robot", tok.Name)
	require.Equal(t, "8760h", tok.Duration)
	require.Equal(t, tok.ID, res["serviceTokenId"])
	require.Equal(t, tok.ClientID, res["serviceTokenClientId"])
	require.Equal(t, map[string]any{"name": "cfzt-apps-api-service-token", "namespace": h.Namespace}, res["serviceTokenSecretRef"])

	sec, err := h.Kube().CoreV1().Secrets(h.Namespace).Get(e.ctx, "cfzt-apps-api-service-token", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "cfzt-operator", sec.Labels["app.kubernetes.io/managed-by"])
	require.Equal(t, tok.ClientID, string(sec.Data["client_id"]))
	secret := string(sec.Data["client_secret"])
	require.Len(t, secret, 64)

	// The token has its own Service Auth policy, first; the people are in
	// the allow policy, which does not name the token.
	app := e.app("api.example.com")
	require.Len(t, app.Policies, 2)
	require.Equal(t, "non_identity", app.Policies[0].Decision)
	require.Equal(t, []map[string]any{{"service_token": map[string]any{"token_id": tok.ID}}}, app.Policies[0].Include)
	require.Equal(t, "allow", app.Policies[1].Decision)
	require.Equal(t, []map[string]any{{"email": map[string]any{"email": "ops@example.com"}}}, app.Policies[1].Include)
	d, err := e.sim.EvaluateAccess(e.ctx, cfsim.AccessRequest{Hostname: "api.example.com", ClientID: tok.ClientID, ClientSecret: string(sec.Data["client_secret"])})
	require.NoError(t, err)
	require.True(t, d.Allowed, "%+v", d)

	// The secret is only in the Secret: not in the task, not in the output.
	raw, err := e.task("cfzt-apps-api").MarshalJSON()
	require.NoError(t, err)
	require.NotContains(t, string(raw), secret)
	require.NotContains(t, out, secret)
	require.NotContains(t, out, e.sim.Token)

	// A rerun keeps the token (its credentials are stored) and the Secret.
	e.requeue("cfzt-apps-api")
	e.sim.ResetLog()
	out = e.run()
	res = e.requireCompleted("cfzt-apps-api", out)
	require.Empty(t, e.writes())
	require.Equal(t, tok.ID, res["serviceTokenId"])
	sec, err = h.Kube().CoreV1().Secrets(h.Namespace).Get(e.ctx, "cfzt-apps-api-service-token", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, secret, string(sec.Data["client_secret"]))

	// A token whose credentials were lost (no Secret, ID unknown) is
	// rotated: the new token is created and the Service Auth policy names
	// it before the old token is deleted (Cloudflare refuses to delete a
	// token a policy references).
	require.NoError(t, h.Kube().CoreV1().Secrets(h.Namespace).Delete(e.ctx, "cfzt-apps-api-service-token", metav1.DeleteOptions{}))
	e.requeue("cfzt-apps-api")
	e.sim.ResetLog()
	out = e.run()
	res = e.requireCompleted("cfzt-apps-api", out)
	require.NotEqual(t, tok.ID, res["serviceTokenId"])
	require.Len(t, e.sim.State().ServiceTokens, 1)
	require.Equal(t, []string{
		"POST /accounts/" + e.sim.AccountID + "/access/service_tokens",
		"PUT /accounts/" + e.sim.AccountID + "/access/apps/" + app.ID + "/policies/" + app.Policies[0].ID,
		"DELETE /accounts/" + e.sim.AccountID + "/access/service_tokens/" + tok.ID,
	}, e.writes(), "create, repoint, then delete")
	rotated, err := h.Kube().CoreV1().Secrets(h.Namespace).Get(e.ctx, "cfzt-apps-api-service-token", metav1.GetOptions{})
	require.NoError(t, err)
	pass := func(id, secret string) bool {
		d, err := e.sim.EvaluateAccess(e.ctx, cfsim.AccessRequest{Hostname: "api.example.com", ClientID: id, ClientSecret: secret})
		require.NoError(t, err)
		return d.Allowed
	}
	require.True(t, pass(string(rotated.Data["client_id"]), string(rotated.Data["client_secret"])))
	require.False(t, pass(tok.ClientID, secret), "the old token no longer exists")
}

func TestDeleteRemovesEverythingInReverseOrder(t *testing.T) {
	e := newEnv(t)
	full := map[string]any{
		"tunnelRoute":  map[string]any{"enabled": true, "service": "http://gone:80"},
		"cnameDns":     map[string]any{"enabled": true, "proxied": true},
		"accessApp":    map[string]any{"enabled": true},
		"accessPolicy": map[string]any{"enabled": true, "allowEmails": []any{"a@example.com"}},
		"serviceToken": map[string]any{"enabled": true, "name": "gone-token"},
	}
	e.createTask("cfzt-apps-gone", e.spec("gone.example.com", full))
	e.createTask("cfzt-apps-stays", e.spec("stays.example.com", map[string]any{
		"tunnelRoute": map[string]any{"enabled": true, "service": "http://stays:80"},
		"cnameDns":    map[string]any{"enabled": true},
	}))
	out := e.run()
	gone := e.requireCompleted("cfzt-apps-gone", out)
	e.requireCompleted("cfzt-apps-stays", out)
	require.NotNil(t, e.app("gone.example.com"))

	// kube_worker turns the finished task into a delete task with the IDs.
	del := e.spec("gone.example.com", full)
	del["action"] = "delete"
	del["existingIds"] = map[string]any{
		"hostnameRouteId": gone["hostnameRouteId"],
		"cnameRecordId":   gone["cnameRecordId"],
		"accessAppId":     gone["accessAppId"],
		"accessPolicyIds": gone["accessPolicyIds"],
		"serviceTokenId":  gone["serviceTokenId"],
	}
	// The delete task has the route's task name, so it also owns the
	// credentials Secret the reconcile task left in the operator namespace.
	require.NoError(t, h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace).Delete(e.ctx, "cfzt-apps-gone", metav1.DeleteOptions{}))
	e.waitFor(func() bool {
		_, err := h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace).Get(e.ctx, "cfzt-apps-gone", metav1.GetOptions{})
		return notFound(err)
	})
	e.createTask("cfzt-apps-gone", del)
	e.sim.ResetLog()
	out = e.run()
	res := e.requireCompleted("cfzt-apps-gone", out)
	require.Equal(t, true, res["deleted"])

	require.Nil(t, e.rule("gone.example.com"))
	require.NotNil(t, e.rule("stays.example.com"), "other hostnames' rules stay")
	e.requireCatchAllLast()
	require.Empty(t, e.dnsRecords("gone.example.com"))
	require.Len(t, e.dnsRecords("stays.example.com"), 1)
	require.Nil(t, e.app("gone.example.com"))
	require.Empty(t, e.sim.State().ServiceTokens)
	for _, p := range e.sim.State().AccessPolicies {
		require.NotEqual(t, gone["accessAppId"], p.AppID)
	}
	_, err := h.Kube().CoreV1().Secrets(h.Namespace).Get(e.ctx, "cfzt-apps-gone-service-token", metav1.GetOptions{})
	require.True(t, notFound(err), "the undelivered credentials Secret is removed: %v\n%s", err, tail(out))

	// Reverse dependency order: policies, app, token, DNS, tunnel rule.
	acct := "/accounts/" + e.sim.AccountID
	require.Equal(t, []string{
		"DELETE " + acct + "/access/apps/" + gone["accessAppId"].(string) + "/policies/" + gone["accessPolicyIds"].([]any)[0].(string),
		"DELETE " + acct + "/access/apps/" + gone["accessAppId"].(string),
		"DELETE " + acct + "/access/service_tokens/" + gone["serviceTokenId"].(string),
		"DELETE /zones/" + e.sim.Zones["example.com"] + "/dns_records/" + gone["cnameRecordId"].(string),
		"PUT " + acct + "/cfd_tunnel/" + e.sim.TunnelID + "/configurations",
	}, e.writes())

	// Deleting again completes; the known IDs are simply gone (404) and no
	// tunnel configuration is written.
	e.requeue("cfzt-apps-gone")
	e.sim.ResetLog()
	out = e.run()
	e.requireCompleted("cfzt-apps-gone", out)
	for _, r := range e.sim.Requests() {
		if r.IsWrite() {
			require.Equal(t, "DELETE", r.Method, "%s %s", r.Method, r.Path)
			require.Equal(t, 404, r.Status, "%s %s", r.Method, r.Path)
		}
	}
}

func TestDeleteWithoutIDsFindsByName(t *testing.T) {
	e := newEnv(t)
	ops := map[string]any{
		"tunnelRoute":  map[string]any{"enabled": true, "service": "http://x:80"},
		"cnameDns":     map[string]any{"enabled": true},
		"accessApp":    map[string]any{"enabled": true},
		"accessPolicy": map[string]any{"enabled": true, "allowEveryone": true},
	}
	e.createTask("cfzt-apps-x", e.spec("x.example.co.uk", ops))
	e.requireCompleted("cfzt-apps-x", e.run())
	del := e.spec("x.example.co.uk", ops)
	del["action"] = "delete"
	e.createTask("cfzt-apps-x-delete", del)
	e.requireCompleted("cfzt-apps-x-delete", e.run())
	require.Nil(t, e.rule("x.example.co.uk"))
	require.Empty(t, e.dnsRecords("x.example.co.uk"))
	require.Nil(t, e.app("x.example.co.uk"))
	require.Empty(t, e.sim.State().AccessPolicies)
	e.requireCatchAllLast()
}

func TestRerunMakesNoWritesAndNoDuplicates(t *testing.T) {
	e := newEnv(t)
	e.api("POST", "/accounts/"+e.sim.AccountID+"/access/policies", map[string]any{"name": "Staff", "decision": "allow", "include": []any{map[string]any{"everyone": map[string]any{}}}})
	e.createTask("cfzt-apps-all", e.spec("all.example.com", map[string]any{
		"tunnelRoute":  map[string]any{"enabled": true, "service": "https://all:443", "originRequest": map[string]any{"noTLSVerify": true, "tlsTimeout": int64(10)}},
		"cnameDns":     map[string]any{"enabled": true, "proxied": true},
		"accessApp":    map[string]any{"enabled": true, "sessionDuration": "12h", "customDenyMessage": "no"},
		"accessPolicy": map[string]any{"enabled": true, "allowEmails": []any{"a@example.com"}, "allowGroups": []any{"Admins"}, "includeServiceToken": true, "policyNames": []any{"Staff"}},
		"serviceToken": map[string]any{"enabled": true, "duration": "720h"},
	}))
	e.createTask("cfzt-apps-a", e.spec("a.example.co.uk", map[string]any{
		"dnsRecord": map[string]any{"enabled": true, "ipAddress": "198.51.100.7", "ttl": int64(120)},
	}))
	out := e.run()
	first := e.requireCompleted("cfzt-apps-all", out)
	firstA := e.requireCompleted("cfzt-apps-a", out)
	// Each task resolved its own zone in the same run (PITFALLS 3).
	require.Equal(t, e.sim.Zones["example.com"], first["zoneId"])
	require.Equal(t, e.sim.Zones["example.co.uk"], firstA["zoneId"])
	before := e.sim.State()

	for i := 0; i < 2; i++ {
		e.requeue("cfzt-apps-all")
		e.requeue("cfzt-apps-a")
		e.sim.ResetLog()
		out = e.run()
		require.Empty(t, e.writes(), "a converged rerun makes no write call:\n%s", tail(out))
		again, againA := e.requireCompleted("cfzt-apps-all", out), e.requireCompleted("cfzt-apps-a", out)
		require.Empty(t, again["changes"], "a converged rerun changes nothing")
		require.Equal(t, withoutChanges(first), withoutChanges(again))
		require.Equal(t, withoutChanges(firstA), withoutChanges(againA))
	}
	after := e.sim.State()
	require.Len(t, after.DNSRecords, len(before.DNSRecords))
	require.Len(t, after.AccessApplications, 1)
	require.Len(t, after.AccessPolicies, len(before.AccessPolicies))
	require.Len(t, after.ServiceTokens, 1)
	require.Len(t, e.ingress(), 2)
	require.Contains(t, e.status("cfzt-apps-all")["message"], "unchanged")
	require.Equal(t, int64(3), e.status("cfzt-apps-all")["attempts"])
}

func TestSwitchingToDNSOnlyRemovesTheTunnelObjects(t *testing.T) {
	e := newEnv(t)
	e.createTask("cfzt-apps-sw", e.spec("sw.example.com", map[string]any{
		"tunnelRoute": map[string]any{"enabled": true, "service": "http://sw:80"},
		"cnameDns":    map[string]any{"enabled": true},
	}))
	res := e.requireCompleted("cfzt-apps-sw", e.run())

	spec := e.spec("sw.example.com", map[string]any{
		"tunnelRoute": map[string]any{"enabled": false},
		"cnameDns":    map[string]any{"enabled": false},
		"dnsRecord":   map[string]any{"enabled": true, "ipAddress": "192.0.2.1"},
	})
	spec["existingIds"] = map[string]any{"hostnameRouteId": res["hostnameRouteId"], "cnameRecordId": res["cnameRecordId"]}
	e.createTask("cfzt-apps-sw2", spec)
	res = e.requireCompleted("cfzt-apps-sw2", e.run())
	recs := e.dnsRecords("sw.example.com")
	require.Len(t, recs, 1)
	require.Equal(t, "A", recs[0].Type)
	require.Nil(t, e.rule("sw.example.com"))
	require.Equal(t, "", res["hostnameRouteId"])
	require.Equal(t, "", res["cnameRecordId"])
	require.True(t, strings.Contains(e.status("cfzt-apps-sw2")["message"].(string), "removed"))
}

// withoutChanges is a task result without its changes list, which only the
// run that changed something fills.
func withoutChanges(result map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range result {
		if k != "changes" {
			out[k] = v
		}
	}
	return out
}
