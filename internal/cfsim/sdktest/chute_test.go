package sdktest

import (
	"context"
	"net/http"
	"testing"

	"github.com/cloudflare/cloudflare-go/v6"
	"github.com/cloudflare/cloudflare-go/v6/zero_trust"
	"github.com/stretchr/testify/require"
)

// The calls chute's roles make that the other SDK tests do not: Access
// applications restricted to the one-time PIN provider, and the tunnel
// connections endpoints with the delete guard.

func TestAccessAppAllowedIdPsThroughTheSDK(t *testing.T) {
	client, _ := newClient(t)
	ctx := context.Background()
	acct := cloudflare.F(accountID)
	otp, err := client.ZeroTrust.IdentityProviders.New(ctx, zero_trust.IdentityProviderNewParams{
		AccountID: acct,
		IdentityProvider: zero_trust.IdentityProviderAccessOnetimepinParam{
			Name: cloudflare.F("One-time PIN"), Type: cloudflare.F(zero_trust.IdentityProviderTypeOnetimepin),
			Config: cloudflare.F(zero_trust.IdentityProviderAccessOnetimepinConfigParam{}),
		},
	})
	require.NoError(t, err)

	apps := client.ZeroTrust.Access.Applications
	app, err := apps.New(ctx, zero_trust.AccessApplicationNewParams{
		AccountID: acct,
		Body: zero_trust.AccessApplicationNewParamsBodySelfHostedApplication{
			Name: cloudflare.F("chute-web-grafana"), Domain: cloudflare.F("grafana.example.com"),
			Type:                   cloudflare.F(zero_trust.ApplicationTypeSelfHosted),
			AllowedIdPs:            cloudflare.F([]zero_trust.AllowedIdPsParam{otp.ID}),
			AutoRedirectToIdentity: cloudflare.F(true),
		},
	})
	require.NoError(t, err)
	require.True(t, app.AutoRedirectToIdentity)
	got, err := apps.Get(ctx, app.ID, zero_trust.AccessApplicationGetParams{AccountID: acct})
	require.NoError(t, err)
	self, ok := got.AsUnion().(zero_trust.AccessApplicationGetResponseSelfHostedApplication)
	require.True(t, ok, "%T", got.AsUnion())
	require.Equal(t, []zero_trust.AllowedIdPs{otp.ID}, self.AllowedIdPs)
	require.True(t, self.AutoRedirectToIdentity)

	// An identity provider the account does not have is refused.
	_, err = apps.New(ctx, zero_trust.AccessApplicationNewParams{
		AccountID: acct,
		Body: zero_trust.AccessApplicationNewParamsBodySelfHostedApplication{
			Name: cloudflare.F("stray"), Domain: cloudflare.F("stray.example.com"),
			Type:        cloudflare.F(zero_trust.ApplicationTypeSelfHosted),
			AllowedIdPs: cloudflare.F([]zero_trust.AllowedIdPsParam{"0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"}),
		},
	})
	requireAPIError(t, err, http.StatusBadRequest, 12130)
}

func TestTunnelConnectionsAndDeleteGuardThroughTheSDK(t *testing.T) {
	client, sim := newClient(t)
	ctx := context.Background()
	acct := cloudflare.F(accountID)
	tunnels := client.ZeroTrust.Tunnels.Cloudflared
	tun, err := tunnels.New(ctx, zero_trust.TunnelCloudflaredNewParams{
		AccountID: acct, Name: cloudflare.F("chute-web-grafana"),
		ConfigSrc: cloudflare.F(zero_trust.TunnelCloudflaredNewParamsConfigSrcCloudflare),
	})
	require.NoError(t, err)

	conns, err := tunnels.Connections.Get(ctx, tun.ID, zero_trust.TunnelCloudflaredConnectionGetParams{AccountID: acct})
	require.NoError(t, err)
	require.Empty(t, conns.Result)

	// Two cloudflared replicas connect.
	c1, err := sim.ConnectTunnel(tun.ID)
	require.NoError(t, err)
	c2, err := sim.ConnectTunnel(tun.ID)
	require.NoError(t, err)
	conns, err = tunnels.Connections.Get(ctx, tun.ID, zero_trust.TunnelCloudflaredConnectionGetParams{AccountID: acct})
	require.NoError(t, err)
	require.Len(t, conns.Result, 2)
	require.Equal(t, c1, conns.Result[0].ID)
	require.Len(t, conns.Result[0].Conns, 2)
	require.Equal(t, c1, conns.Result[0].Conns[0].ClientID)
	require.False(t, conns.Result[0].RunAt.IsZero())
	got, err := tunnels.Get(ctx, tun.ID, zero_trust.TunnelCloudflaredGetParams{AccountID: acct})
	require.NoError(t, err)
	require.Equal(t, "healthy", string(got.Status))
	require.Len(t, got.Connections, 4)

	// Deleting a connected tunnel is refused.
	_, err = tunnels.Delete(ctx, tun.ID, zero_trust.TunnelCloudflaredDeleteParams{AccountID: acct})
	requireAPIError(t, err, http.StatusBadRequest, 1022)

	// One connector cleaned up by its client_id, then all of them.
	_, err = tunnels.Connections.Delete(ctx, tun.ID, zero_trust.TunnelCloudflaredConnectionDeleteParams{AccountID: acct, ClientID: cloudflare.F(c1)})
	require.NoError(t, err)
	conns, err = tunnels.Connections.Get(ctx, tun.ID, zero_trust.TunnelCloudflaredConnectionGetParams{AccountID: acct})
	require.NoError(t, err)
	require.Len(t, conns.Result, 1)
	require.Equal(t, c2, conns.Result[0].ID)
	_, err = tunnels.Delete(ctx, tun.ID, zero_trust.TunnelCloudflaredDeleteParams{AccountID: acct})
	requireAPIError(t, err, http.StatusBadRequest, 1022)

	_, err = tunnels.Connections.Delete(ctx, tun.ID, zero_trust.TunnelCloudflaredConnectionDeleteParams{AccountID: acct})
	require.NoError(t, err)
	got, err = tunnels.Get(ctx, tun.ID, zero_trust.TunnelCloudflaredGetParams{AccountID: acct})
	require.NoError(t, err)
	require.Equal(t, "down", string(got.Status))
	require.Empty(t, got.Connections)

	deleted, err := tunnels.Delete(ctx, tun.ID, zero_trust.TunnelCloudflaredDeleteParams{AccountID: acct})
	require.NoError(t, err)
	require.False(t, deleted.DeletedAt.IsZero())

	// The connections of a tunnel that is gone, or of another account's.
	_, err = tunnels.Connections.Delete(ctx, tun.ID, zero_trust.TunnelCloudflaredConnectionDeleteParams{AccountID: acct})
	requireAPIError(t, err, http.StatusNotFound, 1003)
	_, err = tunnels.Connections.Get(ctx, tun.ID, zero_trust.TunnelCloudflaredConnectionGetParams{AccountID: cloudflare.F(otherAcct)})
	require.Error(t, err)
}
