package sdktest

import (
	"context"
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/cloudflare/cloudflare-go/v6"
	"github.com/cloudflare/cloudflare-go/v6/zero_trust"
	"github.com/cloudflare/cloudflare-go/v6/zones"
	"github.com/stretchr/testify/require"
)

func TestZonesListByName(t *testing.T) {
	client, _ := newClient(t)
	ctx := context.Background()

	page, err := client.Zones.List(ctx, zones.ZoneListParams{Name: cloudflare.F("example.com")})
	require.NoError(t, err)
	require.Len(t, page.Result, 1)
	z := page.Result[0]
	require.Equal(t, zoneID, z.ID)
	require.Equal(t, "example.com", z.Name)
	require.Equal(t, accountID, z.Account.ID)
	require.Equal(t, zones.ZoneStatusActive, z.Status)
	require.EqualValues(t, 1, page.ResultInfo.Page)

	page, err = client.Zones.List(ctx, zones.ZoneListParams{Account: cloudflare.F(zones.ZoneListParamsAccount{ID: cloudflare.F(otherAcct)})})
	require.NoError(t, err)
	require.Empty(t, page.Result, "another account's zones are invisible")

	got, err := client.Zones.Get(ctx, zones.ZoneGetParams{ZoneID: cloudflare.F(zoneID)})
	require.NoError(t, err)
	require.Equal(t, "example.com", got.Name)
	require.False(t, got.CreatedOn.IsZero())

	_, err = client.Zones.Get(ctx, zones.ZoneGetParams{ZoneID: cloudflare.F(otherZone)})
	requireAPIError(t, err, http.StatusForbidden, 10000)

	// The auto-pager walks pages until an empty one.
	n := 0
	iter := client.Zones.ListAutoPaging(ctx, zones.ZoneListParams{PerPage: cloudflare.F(5.0)})
	for iter.Next() {
		n++
	}
	require.NoError(t, iter.Err())
	require.Equal(t, 1, n)
}

func TestTunnelLifecycle(t *testing.T) {
	client, _ := newClient(t)
	ctx := context.Background()
	tunnels := client.ZeroTrust.Tunnels.Cloudflared

	created, err := tunnels.New(ctx, zero_trust.TunnelCloudflaredNewParams{
		AccountID: cloudflare.F(accountID),
		Name:      cloudflare.F("cfzt-edge"),
		ConfigSrc: cloudflare.F(zero_trust.TunnelCloudflaredNewParamsConfigSrcCloudflare),
	})
	require.NoError(t, err)
	require.Equal(t, "cfzt-edge", created.Name)
	require.Equal(t, accountID, created.AccountTag)
	require.Len(t, created.ID, 36)
	require.True(t, created.DeletedAt.IsZero())
	require.False(t, created.CreatedAt.IsZero())

	_, err = tunnels.New(ctx, zero_trust.TunnelCloudflaredNewParams{AccountID: cloudflare.F(accountID), Name: cloudflare.F("cfzt-edge")})
	requireAPIError(t, err, http.StatusConflict, 1013)

	list, err := tunnels.List(ctx, zero_trust.TunnelCloudflaredListParams{
		AccountID: cloudflare.F(accountID), Name: cloudflare.F("cfzt-edge"), IsDeleted: cloudflare.F(false),
	})
	require.NoError(t, err)
	require.Len(t, list.Result, 1)
	require.Equal(t, created.ID, list.Result[0].ID)

	got, err := tunnels.Get(ctx, created.ID, zero_trust.TunnelCloudflaredGetParams{AccountID: cloudflare.F(accountID)})
	require.NoError(t, err)
	require.Equal(t, created.ID, got.ID)

	tok, err := tunnels.Token.Get(ctx, created.ID, zero_trust.TunnelCloudflaredTokenGetParams{AccountID: cloudflare.F(accountID)})
	require.NoError(t, err)
	_, err = base64.StdEncoding.DecodeString(*tok)
	require.NoError(t, err, "the token is a base64 string")

	cfg, err := tunnels.Configurations.Get(ctx, created.ID, zero_trust.TunnelCloudflaredConfigurationGetParams{AccountID: cloudflare.F(accountID)})
	require.NoError(t, err)
	require.EqualValues(t, 0, cfg.Version)

	put, err := tunnels.Configurations.Update(ctx, created.ID, zero_trust.TunnelCloudflaredConfigurationUpdateParams{
		AccountID: cloudflare.F(accountID),
		Config: cloudflare.F(zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfig{
			Ingress: cloudflare.F([]zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfigIngress{
				{
					Hostname: cloudflare.F("grafana.example.com"),
					Service:  cloudflare.F("http://grafana.monitoring.svc:3000"),
					OriginRequest: cloudflare.F(zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfigIngressOriginRequest{
						NoTLSVerify: cloudflare.F(true),
					}),
				},
				{Service: cloudflare.F("http_status:404")},
			}),
		}),
	})
	require.NoError(t, err)
	require.EqualValues(t, 1, put.Version)
	require.Equal(t, created.ID, put.TunnelID)

	cfg, err = tunnels.Configurations.Get(ctx, created.ID, zero_trust.TunnelCloudflaredConfigurationGetParams{AccountID: cloudflare.F(accountID)})
	require.NoError(t, err)
	require.Len(t, cfg.Config.Ingress, 2)
	require.Equal(t, "grafana.example.com", cfg.Config.Ingress[0].Hostname)
	require.Equal(t, "http://grafana.monitoring.svc:3000", cfg.Config.Ingress[0].Service)
	require.True(t, cfg.Config.Ingress[0].OriginRequest.NoTLSVerify)
	require.Equal(t, "", cfg.Config.Ingress[1].Hostname)
	require.Equal(t, zero_trust.TunnelCloudflaredConfigurationGetResponseSourceCloudflare, cfg.Source)

	_, err = tunnels.Configurations.Update(ctx, created.ID, zero_trust.TunnelCloudflaredConfigurationUpdateParams{
		AccountID: cloudflare.F(accountID),
		Config: cloudflare.F(zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfig{
			Ingress: cloudflare.F([]zero_trust.TunnelCloudflaredConfigurationUpdateParamsConfigIngress{
				{Hostname: cloudflare.F("grafana.example.com"), Service: cloudflare.F("http://grafana:3000")},
			}),
		}),
	})
	requireAPIError(t, err, http.StatusBadRequest, 1055)

	deleted, err := tunnels.Delete(ctx, created.ID, zero_trust.TunnelCloudflaredDeleteParams{AccountID: cloudflare.F(accountID)})
	require.NoError(t, err)
	require.False(t, deleted.DeletedAt.IsZero())

	list, err = tunnels.List(ctx, zero_trust.TunnelCloudflaredListParams{AccountID: cloudflare.F(accountID), IsDeleted: cloudflare.F(true)})
	require.NoError(t, err)
	require.Len(t, list.Result, 1)

	_, err = tunnels.Token.Get(ctx, created.ID, zero_trust.TunnelCloudflaredTokenGetParams{AccountID: cloudflare.F(accountID)})
	requireAPIError(t, err, http.StatusNotFound, 1003)

	_, err = tunnels.List(ctx, zero_trust.TunnelCloudflaredListParams{AccountID: cloudflare.F(otherAcct)})
	requireAPIError(t, err, http.StatusForbidden, 10000)
}
