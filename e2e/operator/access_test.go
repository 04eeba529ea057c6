package operator

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
)

// A token-enabled route's service token gets through Cloudflare Access: the
// credentials the operator wrote to the route's Secret, sent to the
// simulator's evaluation endpoint as CF-Access-Client-Id/Secret, are let in
// by the route's own Service Auth policy; a wrong secret is not. People are
// still decided by the allow policy.
func TestServiceTokenPassesAccess(t *testing.T) {
	w := newWorld(t, "svcauth")
	w.apply(route(w.ns, "api", map[string]string{
		"enabled": "true", "hostname": "api.example.com", "accessApp": "true",
		"allowEmails": "ops@example.com", "serviceToken": "true",
	}), route(w.ns, "bot", map[string]string{
		"enabled": "true", "hostname": "bot.example.com", "access.enabled": "true", "serviceToken.enabled": "true",
	}))
	w.converge()

	sec, err := h.Kube().CoreV1().Secrets(w.ns).Get(w.ctx, "api-cfzt-service-token", metav1.GetOptions{})
	require.NoError(t, err)
	id, secret := string(sec.Data["client_id"]), string(sec.Data["client_secret"])
	wrong := "0" + secret[1:]
	if secret[0] == '0' {
		wrong = "1" + secret[1:]
	}

	apps := w.apps("api.example.com")
	require.Len(t, apps, 1)
	decisions := map[string]string{}
	for _, p := range w.appPolicies(apps[0].ID) {
		decisions[p.Name] = p.Decision
	}
	require.Equal(t, map[string]string{"api-allow": "allow", "api-service-auth": "non_identity"}, decisions)

	tests := []struct {
		name    string
		req     cfsim.AccessRequest
		outcome string
	}{
		{"the route's service token", cfsim.AccessRequest{Hostname: "api.example.com", ClientID: id, ClientSecret: secret}, cfsim.OutcomeAllowed},
		{"a wrong secret", cfsim.AccessRequest{Hostname: "api.example.com", ClientID: id, ClientSecret: wrong}, cfsim.OutcomeLoginRequired},
		{"no credentials", cfsim.AccessRequest{Hostname: "api.example.com"}, cfsim.OutcomeLoginRequired},
		{"the allowed person", cfsim.AccessRequest{Hostname: "api.example.com", Email: "ops@example.com"}, cfsim.OutcomeAllowed},
		{"another person", cfsim.AccessRequest{Hostname: "api.example.com", Email: "eve@example.org"}, cfsim.OutcomeDenied},
		{"the token on another route", cfsim.AccessRequest{Hostname: "bot.example.com", ClientID: id, ClientSecret: secret}, cfsim.OutcomeLoginRequired},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := w.sim.EvaluateAccess(w.ctx, tc.req)
			require.NoError(t, err)
			require.Equal(t, tc.outcome, d.Outcome, "%+v", d)
		})
	}

	// A machine-only route (a token and no people) has only the Service
	// Auth policy: its token gets in, nobody is admitted by login.
	botSec, err := h.Kube().CoreV1().Secrets(w.ns).Get(w.ctx, "bot-cfzt-service-token", metav1.GetOptions{})
	require.NoError(t, err)
	d, err := w.sim.EvaluateAccess(w.ctx, cfsim.AccessRequest{Hostname: "bot.example.com",
		ClientID: string(botSec.Data["client_id"]), ClientSecret: string(botSec.Data["client_secret"])})
	require.NoError(t, err)
	require.True(t, d.Allowed, "%+v", d)
	d, err = w.sim.EvaluateAccess(w.ctx, cfsim.AccessRequest{Hostname: "bot.example.com", Email: "ops@example.com"})
	require.NoError(t, err)
	require.Equal(t, cfsim.OutcomeDenied, d.Outcome)

	// Turning the token off removes the Service Auth policy before the
	// token (Cloudflare refuses to delete a token a policy references).
	w.patchAnnotations(w.ns, "api", map[string]any{"serviceToken": "false"})
	w.converge()
	require.Empty(t, w.serviceTokens("api-service-token"))
	require.Len(t, w.appPolicies(apps[0].ID), 1)
	d, err = w.sim.EvaluateAccess(w.ctx, cfsim.AccessRequest{Hostname: "api.example.com", ClientID: id, ClientSecret: secret})
	require.NoError(t, err)
	require.False(t, d.Allowed)
}
