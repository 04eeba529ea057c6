package sdktest

import (
	"context"
	"net/http"
	"regexp"
	"testing"

	"github.com/cloudflare/cloudflare-go/v6"
	"github.com/cloudflare/cloudflare-go/v6/option"
	"github.com/cloudflare/cloudflare-go/v6/zero_trust"
	"github.com/stretchr/testify/require"
)

func TestAccessApplicationsCRUD(t *testing.T) {
	client, _ := newClient(t)
	ctx := context.Background()
	apps := client.ZeroTrust.Access.Applications

	app, err := apps.New(ctx, zero_trust.AccessApplicationNewParams{
		AccountID: cloudflare.F(accountID),
		Body: zero_trust.AccessApplicationNewParamsBodySelfHostedApplication{
			Name:                    cloudflare.F("grafana"),
			Domain:                  cloudflare.F("grafana.example.com"),
			Type:                    cloudflare.F(zero_trust.ApplicationTypeSelfHosted),
			SessionDuration:         cloudflare.F("8h"),
			AutoRedirectToIdentity:  cloudflare.F(true),
			SkipInterstitial:        cloudflare.F(true),
			AppLauncherVisible:      cloudflare.F(false),
			ServiceAuth401Redirect:  cloudflare.F(true),
			HTTPOnlyCookieAttribute: cloudflare.F(true),
			SameSiteCookieAttribute: cloudflare.F("lax"),
			CustomDenyMessage:       cloudflare.F("ask #ops"),
			CustomDenyURL:           cloudflare.F("https://deny.example.com"),
			LogoURL:                 cloudflare.F("https://example.com/logo.png"),
		},
	})
	require.NoError(t, err)
	require.Len(t, app.ID, 36)
	require.Equal(t, "grafana", app.Name)
	require.Equal(t, "grafana.example.com", app.Domain)
	require.Equal(t, "8h", app.SessionDuration)
	require.True(t, app.AutoRedirectToIdentity)
	require.True(t, app.SkipInterstitial)
	require.False(t, app.AppLauncherVisible)
	require.True(t, app.ServiceAuth401Redirect)
	require.Equal(t, "lax", app.SameSiteCookieAttribute)
	require.Equal(t, "ask #ops", app.CustomDenyMessage)
	require.Equal(t, "https://deny.example.com", app.CustomDenyURL)
	require.Equal(t, "https://example.com/logo.png", app.LogoURL)
	require.Len(t, app.AUD, 64)

	_, err = apps.New(ctx, zero_trust.AccessApplicationNewParams{
		AccountID: cloudflare.F(accountID),
		Body: zero_trust.AccessApplicationNewParamsBodySelfHostedApplication{
			Name: cloudflare.F("stray"), Domain: cloudflare.F("stray.other.org"), Type: cloudflare.F(zero_trust.ApplicationTypeSelfHosted),
		},
	})
	requireAPIError(t, err, http.StatusBadRequest, 12130)

	list, err := apps.List(ctx, zero_trust.AccessApplicationListParams{AccountID: cloudflare.F(accountID), Domain: cloudflare.F("grafana.example.com")})
	require.NoError(t, err)
	require.Len(t, list.Result, 1)
	require.Equal(t, app.ID, list.Result[0].ID)

	got, err := apps.Get(ctx, app.ID, zero_trust.AccessApplicationGetParams{AccountID: cloudflare.F(accountID)})
	require.NoError(t, err)
	require.Equal(t, "grafana", got.Name)

	upd, err := apps.Update(ctx, app.ID, zero_trust.AccessApplicationUpdateParams{
		AccountID: cloudflare.F(accountID),
		Body: zero_trust.AccessApplicationUpdateParamsBodySelfHostedApplication{
			Name: cloudflare.F("grafana-v2"), Domain: cloudflare.F("grafana.example.com"),
			Type: cloudflare.F(zero_trust.ApplicationTypeSelfHosted), SessionDuration: cloudflare.F("24h"),
		},
	})
	require.NoError(t, err)
	require.Equal(t, "grafana-v2", upd.Name)
	require.Equal(t, app.ID, upd.ID)

	del, err := apps.Delete(ctx, app.ID, zero_trust.AccessApplicationDeleteParams{AccountID: cloudflare.F(accountID)})
	require.NoError(t, err)
	require.Equal(t, app.ID, del.ID)

	_, err = apps.Get(ctx, app.ID, zero_trust.AccessApplicationGetParams{AccountID: cloudflare.F(accountID)})
	requireAPIError(t, err, http.StatusNotFound, 12135)
}

func TestAccessPolicies(t *testing.T) {
	client, _ := newClient(t)
	ctx := context.Background()
	acct := cloudflare.F(accountID)

	// Reusable policy, then an application that links it.
	reusable, err := client.ZeroTrust.Access.Policies.New(ctx, zero_trust.AccessPolicyNewParams{
		AccountID: acct,
		Name:      cloudflare.F("allow-engineering"),
		Decision:  cloudflare.F(zero_trust.DecisionAllow),
		Include: cloudflare.F([]zero_trust.AccessRuleUnionParam{
			zero_trust.GroupRuleParam{Group: cloudflare.F(zero_trust.GroupRuleGroupParam{ID: cloudflare.F(groupID)})},
			zero_trust.EmailRuleParam{Email: cloudflare.F(zero_trust.EmailRuleEmailParam{Email: cloudflare.F("alice@example.com")})},
		}),
		Exclude: cloudflare.F([]zero_trust.AccessRuleUnionParam{
			zero_trust.DomainRuleParam{EmailDomain: cloudflare.F(zero_trust.DomainRuleEmailDomainParam{Domain: cloudflare.F("contractor.example")})},
		}),
	})
	require.NoError(t, err)
	require.Len(t, reusable.ID, 36)
	require.Equal(t, zero_trust.DecisionAllow, reusable.Decision)
	require.Len(t, reusable.Include, 2)
	require.EqualValues(t, 0, reusable.AppCount)

	_, err = client.ZeroTrust.Access.Policies.New(ctx, zero_trust.AccessPolicyNewParams{
		AccountID: acct, Name: cloudflare.F("by-name"), Decision: cloudflare.F(zero_trust.DecisionAllow),
		Include: cloudflare.F([]zero_trust.AccessRuleUnionParam{
			zero_trust.GroupRuleParam{Group: cloudflare.F(zero_trust.GroupRuleGroupParam{ID: cloudflare.F("Engineering")})},
		}),
	})
	requireAPIError(t, err, http.StatusBadRequest, 12130)

	app, err := client.ZeroTrust.Access.Applications.New(ctx, zero_trust.AccessApplicationNewParams{
		AccountID: acct,
		Body: zero_trust.AccessApplicationNewParamsBodySelfHostedApplication{
			Name: cloudflare.F("grafana"), Domain: cloudflare.F("grafana.example.com"), Type: cloudflare.F(zero_trust.ApplicationTypeSelfHosted),
			Policies: cloudflare.F([]zero_trust.AccessApplicationNewParamsBodySelfHostedApplicationPolicyUnion{
				zero_trust.AccessApplicationNewParamsBodySelfHostedApplicationPoliciesAccessAppPolicyLink{
					ID: cloudflare.F(reusable.ID), Precedence: cloudflare.F(int64(1)),
				},
			}),
		},
	})
	require.NoError(t, err)

	rp, err := client.ZeroTrust.Access.Policies.Get(ctx, reusable.ID, zero_trust.AccessPolicyGetParams{AccountID: acct})
	require.NoError(t, err)
	require.EqualValues(t, 1, rp.AppCount)

	// App-scoped policy: the SDK's typed params lack name/decision/include,
	// so they are added as raw JSON, as SDK users must.
	appPolicies := client.ZeroTrust.Access.Applications.Policies
	scoped, err := appPolicies.New(ctx, app.ID, zero_trust.AccessApplicationPolicyNewParams{
		AccountID:  acct,
		Precedence: cloudflare.F(int64(2)),
	},
		option.WithJSONSet("name", "ci-bypass"),
		option.WithJSONSet("decision", "non_identity"),
		option.WithJSONSet("include", []map[string]any{{"any_valid_service_token": map[string]any{}}}),
	)
	require.NoError(t, err)
	require.EqualValues(t, 2, scoped.Precedence)
	require.Equal(t, zero_trust.DecisionNonIdentity, scoped.Decision)

	listed, err := appPolicies.List(ctx, app.ID, zero_trust.AccessApplicationPolicyListParams{AccountID: acct})
	require.NoError(t, err)
	require.Len(t, listed.Result, 2, "app policy listings include linked reusable policies")
	require.Equal(t, reusable.ID, listed.Result[0].ID)
	require.Equal(t, scoped.ID, listed.Result[1].ID)

	upd, err := appPolicies.Update(ctx, app.ID, scoped.ID, zero_trust.AccessApplicationPolicyUpdateParams{
		AccountID:  acct,
		Precedence: cloudflare.F(int64(3)),
	},
		option.WithJSONSet("name", "ci-bypass"),
		option.WithJSONSet("decision", "non_identity"),
		option.WithJSONSet("include", []map[string]any{{"everyone": map[string]any{}}}),
	)
	require.NoError(t, err)
	require.EqualValues(t, 3, upd.Precedence)

	gotScoped, err := appPolicies.Get(ctx, app.ID, scoped.ID, zero_trust.AccessApplicationPolicyGetParams{AccountID: acct})
	require.NoError(t, err)
	require.Equal(t, "ci-bypass", gotScoped.Name)

	_, err = client.ZeroTrust.Access.Policies.Delete(ctx, reusable.ID, zero_trust.AccessPolicyDeleteParams{AccountID: acct})
	requireAPIError(t, err, http.StatusBadRequest, 12130)

	delScoped, err := appPolicies.Delete(ctx, app.ID, scoped.ID, zero_trust.AccessApplicationPolicyDeleteParams{AccountID: acct})
	require.NoError(t, err)
	require.Equal(t, scoped.ID, delScoped.ID)

	reusableList, err := client.ZeroTrust.Access.Policies.List(ctx, zero_trust.AccessPolicyListParams{AccountID: acct})
	require.NoError(t, err)
	require.Len(t, reusableList.Result, 1)

	updReusable, err := client.ZeroTrust.Access.Policies.Update(ctx, reusable.ID, zero_trust.AccessPolicyUpdateParams{
		AccountID: acct,
		Name:      cloudflare.F("allow-everyone"),
		Decision:  cloudflare.F(zero_trust.DecisionAllow),
		Include:   cloudflare.F([]zero_trust.AccessRuleUnionParam{zero_trust.EveryoneRuleParam{Everyone: cloudflare.F(zero_trust.EveryoneRuleEveryoneParam{})}}),
	})
	require.NoError(t, err)
	require.Equal(t, "allow-everyone", updReusable.Name)

	_, err = client.ZeroTrust.Access.Applications.Delete(ctx, app.ID, zero_trust.AccessApplicationDeleteParams{AccountID: acct})
	require.NoError(t, err)
	_, err = client.ZeroTrust.Access.Policies.Delete(ctx, reusable.ID, zero_trust.AccessPolicyDeleteParams{AccountID: acct})
	require.NoError(t, err)
}

func TestAccessGroupsList(t *testing.T) {
	client, _ := newClient(t)
	page, err := client.ZeroTrust.Access.Groups.List(context.Background(), zero_trust.AccessGroupListParams{AccountID: cloudflare.F(accountID)})
	require.NoError(t, err)
	require.Len(t, page.Result, 1)
	require.Equal(t, groupID, page.Result[0].ID)
	require.Equal(t, "Engineering", page.Result[0].Name)
	require.Len(t, page.Result[0].Include, 1)
}

func TestServiceTokensCRUD(t *testing.T) {
	client, sim := newClient(t)
	ctx := context.Background()
	tokens := client.ZeroTrust.Access.ServiceTokens
	acct := cloudflare.F(accountID)

	created, err := tokens.New(ctx, zero_trust.AccessServiceTokenNewParams{AccountID: acct, Name: cloudflare.F("ci"), Duration: cloudflare.F("8760h")})
	require.NoError(t, err)
	require.Regexp(t, regexp.MustCompile(`^[0-9a-f]{32}\.access$`), created.ClientID)
	require.Regexp(t, regexp.MustCompile(`^[0-9a-f]{64}$`), created.ClientSecret)
	require.Equal(t, "8760h", created.Duration)

	list, err := tokens.List(ctx, zero_trust.AccessServiceTokenListParams{AccountID: acct, Name: cloudflare.F("ci")})
	require.NoError(t, err)
	require.Len(t, list.Result, 1)
	require.Equal(t, created.ClientID, list.Result[0].ClientID)
	require.False(t, list.Result[0].ExpiresAt.IsZero())
	require.NotContains(t, list.JSON.RawJSON(), created.ClientSecret)

	upd, err := tokens.Update(ctx, created.ID, zero_trust.AccessServiceTokenUpdateParams{AccountID: acct, Name: cloudflare.F("ci-renamed"), Duration: cloudflare.F("720h")})
	require.NoError(t, err)
	require.Equal(t, "ci-renamed", upd.Name)
	require.Equal(t, "720h", upd.Duration)

	got, err := tokens.Get(ctx, created.ID, zero_trust.AccessServiceTokenGetParams{AccountID: acct})
	require.NoError(t, err)
	require.Equal(t, "ci-renamed", got.Name)

	del, err := tokens.Delete(ctx, created.ID, zero_trust.AccessServiceTokenDeleteParams{AccountID: acct})
	require.NoError(t, err)
	require.Equal(t, created.ID, del.ID)
	_, err = tokens.Get(ctx, created.ID, zero_trust.AccessServiceTokenGetParams{AccountID: acct})
	requireAPIError(t, err, http.StatusNotFound, 12135)
	require.Empty(t, sim.State().ServiceTokens)
}

func TestIdentityProviders(t *testing.T) {
	client, _ := newClient(t)
	ctx := context.Background()
	idps := client.ZeroTrust.IdentityProviders
	acct := cloudflare.F(accountID)

	otp, err := idps.New(ctx, zero_trust.IdentityProviderNewParams{
		AccountID: acct,
		IdentityProvider: zero_trust.IdentityProviderAccessOnetimepinParam{
			Name:   cloudflare.F("One-time PIN"),
			Type:   cloudflare.F(zero_trust.IdentityProviderTypeOnetimepin),
			Config: cloudflare.F(zero_trust.IdentityProviderAccessOnetimepinConfigParam{}),
		},
	})
	require.NoError(t, err)
	require.Len(t, otp.ID, 36)
	require.Equal(t, zero_trust.IdentityProviderTypeOnetimepin, otp.Type)

	_, err = idps.New(ctx, zero_trust.IdentityProviderNewParams{
		AccountID: acct,
		IdentityProvider: zero_trust.IdentityProviderAccessOnetimepinParam{
			Name: cloudflare.F("again"), Type: cloudflare.F(zero_trust.IdentityProviderTypeOnetimepin),
			Config: cloudflare.F(zero_trust.IdentityProviderAccessOnetimepinConfigParam{}),
		},
	})
	requireAPIError(t, err, http.StatusBadRequest, 12130)

	list, err := idps.List(ctx, zero_trust.IdentityProviderListParams{AccountID: acct})
	require.NoError(t, err)
	require.Len(t, list.Result, 1)
	require.Equal(t, otp.ID, list.Result[0].ID)
	require.Equal(t, "One-time PIN", list.Result[0].Name)

	got, err := idps.Get(ctx, otp.ID, zero_trust.IdentityProviderGetParams{AccountID: acct})
	require.NoError(t, err)
	require.Equal(t, otp.ID, got.ID)
}

func TestRetriesOnInjectedFaults(t *testing.T) {
	// The SDK's own retry loop honours the simulator's 429/5xx answers and
	// Retry-After, as it would Cloudflare's.
	noRetries, sim := newClient(t)
	client := cloudflare.NewClient(append(noRetries.Options, option.WithMaxRetries(2))...)
	require.NoError(t, sim.InjectFault(faultStatus(429, 1)))
	require.NoError(t, sim.InjectFault(faultStatus(503, 1)))
	page, err := client.ZeroTrust.Access.Groups.List(context.Background(), zero_trust.AccessGroupListParams{AccountID: cloudflare.F(accountID)})
	require.NoError(t, err)
	require.Len(t, page.Result, 1)
	statuses := []int{}
	for _, r := range sim.Requests() {
		statuses = append(statuses, r.Status)
	}
	require.Equal(t, []int{429, 503, 200}, statuses)
}
