package sdktest

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
	"github.com/cloudflare/cloudflare-go/v6"
	"github.com/cloudflare/cloudflare-go/v6/dns"
	"github.com/cloudflare/cloudflare-go/v6/option"
	"github.com/cloudflare/cloudflare-go/v6/packages/pagination"
	"github.com/cloudflare/cloudflare-go/v6/zero_trust"
	"github.com/cloudflare/cloudflare-go/v6/zones"
	"github.com/stretchr/testify/require"
)

// collect drains an SDK auto-pager and returns the IDs it yielded.
func collect[T any](t *testing.T, iter *pagination.V4PagePaginationArrayAutoPager[T], id func(T) string) []string {
	t.Helper()
	var ids []string
	for iter.Next() {
		ids = append(ids, id(iter.Current()))
	}
	require.NoError(t, iter.Err())
	return ids
}

func requireUnique(t *testing.T, ids []string, want int) {
	t.Helper()
	seen := map[string]bool{}
	for _, id := range ids {
		require.False(t, seen[id], "the pager returned %s twice", id)
		seen[id] = true
	}
	require.Len(t, ids, want)
}

// Every list endpoint the roles call pages through the SDK's auto-pager
// with the roles' filters, yielding each object exactly once.
func TestRoleListCallsPageThroughTheSDK(t *testing.T) {
	s := seed()
	for i := 0; i < 23; i++ {
		s.AccessGroups = append(s.AccessGroups, cfsim.SeedAccessGroup{Name: fmt.Sprintf("group-%02d", i), Account: accountID})
		s.DNSRecords = append(s.DNSRecords, cfsim.SeedDNSRecord{Zone: zoneID, Type: "A", Name: "multi", Content: fmt.Sprintf("192.0.2.%d", i+1)})
	}
	client, _ := newClient(t, cfsim.WithSeed(s))
	ctx := context.Background()
	acct := cloudflare.F(accountID)

	app, err := client.ZeroTrust.Access.Applications.New(ctx, zero_trust.AccessApplicationNewParams{AccountID: acct,
		Body: zero_trust.AccessApplicationNewParamsBodySelfHostedApplication{
			Name: cloudflare.F("multi"), Domain: cloudflare.F("multi.example.com"), Type: cloudflare.F(zero_trust.ApplicationTypeSelfHosted)}})
	require.NoError(t, err)
	for i := 0; i < 11; i++ {
		_, err := client.ZeroTrust.Access.Applications.New(ctx, zero_trust.AccessApplicationNewParams{AccountID: acct,
			Body: zero_trust.AccessApplicationNewParamsBodySelfHostedApplication{
				Name: cloudflare.F(fmt.Sprintf("app-%d", i)), Domain: cloudflare.F(fmt.Sprintf("app%d.example.com", i)), Type: cloudflare.F(zero_trust.ApplicationTypeSelfHosted)}})
		require.NoError(t, err)
		_, err = client.ZeroTrust.Access.Policies.New(ctx, zero_trust.AccessPolicyNewParams{AccountID: acct,
			Name: cloudflare.F(fmt.Sprintf("reusable-%d", i)), Decision: cloudflare.F(zero_trust.DecisionAllow),
			Include: cloudflare.F([]zero_trust.AccessRuleUnionParam{zero_trust.EveryoneRuleParam{Everyone: cloudflare.F(zero_trust.EveryoneRuleEveryoneParam{})}})})
		require.NoError(t, err)
		_, err = client.ZeroTrust.Access.Applications.Policies.New(ctx, app.ID, zero_trust.AccessApplicationPolicyNewParams{AccountID: acct},
			option.WithJSONSet("name", fmt.Sprintf("own-%d", i)), option.WithJSONSet("decision", "allow"),
			option.WithJSONSet("include", []map[string]any{{"everyone": map[string]any{}}}))
		require.NoError(t, err)
		_, err = client.ZeroTrust.Access.ServiceTokens.New(ctx, zero_trust.AccessServiceTokenNewParams{AccountID: acct, Name: cloudflare.F("same-name")})
		require.NoError(t, err)
	}

	requireUnique(t, collect(t, client.Zones.ListAutoPaging(ctx, zones.ZoneListParams{
		Name: cloudflare.F("example.com"), Account: cloudflare.F(zones.ZoneListParamsAccount{ID: acct}), PerPage: cloudflare.F(1.0)}),
		func(z zones.Zone) string { return z.ID }), 1)
	requireUnique(t, collect(t, client.DNS.Records.ListAutoPaging(ctx, dns.RecordListParams{ZoneID: cloudflare.F(zoneID),
		Type: cloudflare.F(dns.RecordListParamsTypeA), Name: cloudflare.F(dns.RecordListParamsName{Exact: cloudflare.F("multi.example.com")}), PerPage: cloudflare.F(5.0)}),
		func(r dns.RecordResponse) string { return r.ID }), 23)
	requireUnique(t, collect(t, client.ZeroTrust.Access.Applications.ListAutoPaging(ctx, zero_trust.AccessApplicationListParams{
		AccountID: acct, PerPage: cloudflare.F(int64(5))}),
		func(a zero_trust.AccessApplicationListResponse) string { return a.ID }), 12)
	requireUnique(t, collect(t, client.ZeroTrust.Access.Applications.ListAutoPaging(ctx, zero_trust.AccessApplicationListParams{
		AccountID: acct, Domain: cloudflare.F("multi.example.com"), Exact: cloudflare.F(true), PerPage: cloudflare.F(int64(5))}),
		func(a zero_trust.AccessApplicationListResponse) string { return a.ID }), 1)
	requireUnique(t, collect(t, client.ZeroTrust.Access.Applications.Policies.ListAutoPaging(ctx, app.ID, zero_trust.AccessApplicationPolicyListParams{
		AccountID: acct, PerPage: cloudflare.F(int64(4))}),
		func(p zero_trust.AccessApplicationPolicyListResponse) string { return p.ID }), 11)
	requireUnique(t, collect(t, client.ZeroTrust.Access.Policies.ListAutoPaging(ctx, zero_trust.AccessPolicyListParams{
		AccountID: acct, PerPage: cloudflare.F(int64(4))}),
		func(p zero_trust.AccessPolicyListResponse) string { return p.ID }), 11)
	requireUnique(t, collect(t, client.ZeroTrust.Access.Groups.ListAutoPaging(ctx, zero_trust.AccessGroupListParams{
		AccountID: acct, PerPage: cloudflare.F(int64(5))}),
		func(g zero_trust.AccessGroupListResponse) string { return g.ID }), 24)
	requireUnique(t, collect(t, client.ZeroTrust.Access.ServiceTokens.ListAutoPaging(ctx, zero_trust.AccessServiceTokenListParams{
		AccountID: acct, Name: cloudflare.F("same-name"), PerPage: cloudflare.F(int64(3))}),
		func(s zero_trust.ServiceToken) string { return s.ID }), 11)
}

// The roles' Service Auth flow through the SDK: a token, a non_identity
// policy naming it, the token's credentials let a request through; a
// rotation creates the new token and repoints the policy before the old
// token can be deleted.
func TestServiceAuthPolicyAndRotationThroughTheSDK(t *testing.T) {
	client, sim := newClient(t)
	ctx := context.Background()
	acct := cloudflare.F(accountID)
	tokens := client.ZeroTrust.Access.ServiceTokens
	policies := client.ZeroTrust.Access.Applications.Policies

	app, err := client.ZeroTrust.Access.Applications.New(ctx, zero_trust.AccessApplicationNewParams{AccountID: acct,
		Body: zero_trust.AccessApplicationNewParamsBodySelfHostedApplication{
			Name: cloudflare.F("api"), Domain: cloudflare.F("api.example.com"), Type: cloudflare.F(zero_trust.ApplicationTypeSelfHosted)}})
	require.NoError(t, err)
	old, err := tokens.New(ctx, zero_trust.AccessServiceTokenNewParams{AccountID: acct, Name: cloudflare.F("api-service-token"), Duration: cloudflare.F("8760h")})
	require.NoError(t, err)
	require.NotEmpty(t, old.ClientSecret)
	tokenRule := func(id string) []zero_trust.AccessRuleUnionParam {
		return []zero_trust.AccessRuleUnionParam{zero_trust.ServiceTokenRuleParam{
			ServiceToken: cloudflare.F(zero_trust.ServiceTokenRuleServiceTokenParam{TokenID: cloudflare.F(id)})}}
	}
	pol, err := policies.New(ctx, app.ID, zero_trust.AccessApplicationPolicyNewParams{AccountID: acct, Precedence: cloudflare.F(int64(1))},
		option.WithJSONSet("name", "api-service-auth"), option.WithJSONSet("decision", "non_identity"),
		option.WithJSONSet("include", tokenRule(old.ID)))
	require.NoError(t, err)
	require.Equal(t, zero_trust.DecisionNonIdentity, pol.Decision)

	pass := func(clientID, secret string) bool {
		return sim.Evaluate(cfsim.AccessRequest{Hostname: "api.example.com", ClientID: clientID, ClientSecret: secret}).Allowed
	}
	require.True(t, pass(old.ClientID, old.ClientSecret))
	require.False(t, pass(old.ClientID, "not-the-secret"))

	fresh, err := tokens.New(ctx, zero_trust.AccessServiceTokenNewParams{AccountID: acct, Name: cloudflare.F("api-service-token")})
	require.NoError(t, err)
	_, err = tokens.Delete(ctx, old.ID, zero_trust.AccessServiceTokenDeleteParams{AccountID: acct})
	requireAPIError(t, err, http.StatusBadRequest, 12130)

	_, err = policies.Update(ctx, app.ID, pol.ID, zero_trust.AccessApplicationPolicyUpdateParams{AccountID: acct, Precedence: cloudflare.F(int64(1))},
		option.WithJSONSet("name", "api-service-auth"), option.WithJSONSet("decision", "non_identity"),
		option.WithJSONSet("include", tokenRule(fresh.ID)))
	require.NoError(t, err)
	_, err = tokens.Delete(ctx, old.ID, zero_trust.AccessServiceTokenDeleteParams{AccountID: acct})
	require.NoError(t, err)
	require.False(t, pass(old.ClientID, old.ClientSecret))
	require.True(t, pass(fresh.ClientID, fresh.ClientSecret))

	_, err = policies.New(ctx, app.ID, zero_trust.AccessApplicationPolicyNewParams{AccountID: acct},
		option.WithJSONSet("name", "mixed"), option.WithJSONSet("decision", "non_identity"),
		option.WithJSONSet("include", []map[string]any{{"email": map[string]any{"email": "a@example.com"}}}))
	requireAPIError(t, err, http.StatusBadRequest, 12130)
}
