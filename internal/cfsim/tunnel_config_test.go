package cfsim

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func configPath(id string) string { return acctPath(acct1, "/cfd_tunnel/"+id+"/configurations") }

func TestTunnelConfigurationRoundTrip(t *testing.T) {
	h := newHarness(t)
	id := createTunnel(h, "edge")

	var before TunnelConfiguration
	h.api(http.MethodGet, configPath(id), nil).ok(http.StatusOK, &before)
	require.Equal(t, id, before.TunnelID)
	require.Equal(t, acct1, before.AccountID)
	require.Equal(t, 0, before.Version)
	require.Nil(t, before.Config, "a tunnel never configured has a null config")

	cfg := map[string]any{"config": map[string]any{
		"ingress": []any{
			map[string]any{"hostname": "app.example.com", "service": "http://app.ns.svc:8080",
				"originRequest": map[string]any{"noTLSVerify": true, "httpHostHeader": "app"}},
			map[string]any{"hostname": "*.example.com", "path": "^/api", "service": "https://api.ns.svc"},
			map[string]any{"service": "http_status:404"},
		},
		"originRequest": map[string]any{"connectTimeout": 10},
	}}
	var put TunnelConfiguration
	h.api(http.MethodPut, configPath(id), cfg).ok(http.StatusOK, &put)
	require.Equal(t, 1, put.Version)
	require.Equal(t, "cloudflare", put.Source)

	var got TunnelConfiguration
	h.api(http.MethodGet, configPath(id), nil).ok(http.StatusOK, &got)
	require.Equal(t, put, got)
	ingress := got.Config["ingress"].([]any)
	require.Len(t, ingress, 3)
	require.Equal(t, "app.example.com", ingress[0].(map[string]any)["hostname"])
	require.Equal(t, true, ingress[0].(map[string]any)["originRequest"].(map[string]any)["noTLSVerify"])

	h.api(http.MethodPut, configPath(id), cfg).ok(http.StatusOK, &put)
	require.Equal(t, 2, put.Version, "every PUT is a new version")
}

func TestTunnelConfigurationMakesLocalTunnelRemote(t *testing.T) {
	h := newHarness(t)
	id := h.api(http.MethodPost, acctPath(acct1, "/cfd_tunnel"), map[string]string{"name": "local"}).ok(http.StatusOK, nil).id()
	h.api(http.MethodPut, configPath(id), map[string]any{"config": map[string]any{
		"ingress": []any{map[string]any{"service": "http_status:404"}}}}).ok(http.StatusOK, nil)
	var tun Tunnel
	h.api(http.MethodGet, acctPath(acct1, "/cfd_tunnel/"+id), nil).ok(http.StatusOK, &tun)
	require.Equal(t, "cloudflare", tun.ConfigSrc)
	require.True(t, tun.RemoteConfig)
}

func TestTunnelConfigurationValidation(t *testing.T) {
	h := newHarness(t)
	id := createTunnel(h, "edge")
	catchAll := map[string]any{"service": "http_status:404"}
	rule := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		name string
		body any
		msg  string
	}{
		{"no config", map[string]any{}, "config is required"},
		{"no ingress", map[string]any{"config": map[string]any{}}, "non-empty list"},
		{"empty ingress", map[string]any{"config": map[string]any{"ingress": []any{}}}, "non-empty list"},
		{"last rule has hostname", map[string]any{"config": map[string]any{"ingress": []any{
			rule("hostname", "a.example.com", "service", "http://a")}}}, "The last ingress rule must match all URLs"},
		{"last rule has path", map[string]any{"config": map[string]any{"ingress": []any{
			rule("path", "/x", "service", "http://a")}}}, "The last ingress rule must match all URLs"},
		{"catch-all not last", map[string]any{"config": map[string]any{"ingress": []any{
			catchAll, rule("hostname", "a.example.com", "service", "http://a"), catchAll}}}, "Rule #1 matches all URLs"},
		{"missing service", map[string]any{"config": map[string]any{"ingress": []any{
			rule("hostname", "a.example.com"), catchAll}}}, "service is required"},
		{"bad service scheme", map[string]any{"config": map[string]any{"ingress": []any{
			rule("hostname", "a.example.com", "service", "ftp://a"), catchAll}}}, "not a supported origin"},
		{"service without host", map[string]any{"config": map[string]any{"ingress": []any{
			rule("hostname", "a.example.com", "service", "http://"), catchAll}}}, "has no host"},
		{"bad http_status", map[string]any{"config": map[string]any{"ingress": []any{
			rule("service", "http_status:999")}}}, "http_status"},
		{"hostname with port", map[string]any{"config": map[string]any{"ingress": []any{
			rule("hostname", "a.example.com:8443", "service", "http://a"), catchAll}}}, "cannot contain a port"},
		{"wildcard in the middle", map[string]any{"config": map[string]any{"ingress": []any{
			rule("hostname", "a.*.example.com", "service", "http://a"), catchAll}}}, "wildcard"},
		{"hostname not a string", map[string]any{"config": map[string]any{"ingress": []any{
			rule("hostname", 7, "service", "http://a"), catchAll}}}, "hostname must be a string"},
		{"rule not an object", map[string]any{"config": map[string]any{"ingress": []any{"x", catchAll}}}, "not an object"},
		{"originRequest wrong type", map[string]any{"config": map[string]any{"ingress": []any{
			rule("hostname", "a.example.com", "service", "http://a", "originRequest", map[string]any{"noTLSVerify": "yes"}), catchAll}}}, "noTLSVerify must be a bool"},
		{"top-level originRequest not object", map[string]any{"config": map[string]any{
			"ingress": []any{catchAll}, "originRequest": "x"}}, "must be an object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := h.api(http.MethodPut, configPath(id), tc.body).fails(http.StatusBadRequest, 1055)
			require.Contains(t, e.Message, "Bad Configuration: ")
			require.Contains(t, e.Message, tc.msg)
		})
	}
	var cfg TunnelConfiguration
	h.api(http.MethodGet, configPath(id), nil).ok(http.StatusOK, &cfg)
	require.Equal(t, 0, cfg.Version, "rejected configurations are not stored")

	for _, svc := range []string{"http://a:80", "https://a", "tcp://db:5432", "ssh://host:22", "unix:/run/sock", "hello_world", "http_status:503"} {
		h.api(http.MethodPut, configPath(id), map[string]any{"config": map[string]any{"ingress": []any{
			rule("hostname", "a.example.com", "service", svc), catchAll}}}).ok(http.StatusOK, nil)
	}
}
