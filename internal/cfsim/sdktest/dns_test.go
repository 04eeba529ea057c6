package sdktest

import (
	"context"
	"net/http"
	"testing"

	"github.com/cloudflare/cloudflare-go/v6"
	"github.com/cloudflare/cloudflare-go/v6/dns"
	"github.com/stretchr/testify/require"
)

func TestDNSRecordsCRUDWithFilters(t *testing.T) {
	client, sim := newClient(t)
	ctx := context.Background()
	records := client.DNS.Records

	cname, err := records.New(ctx, dns.RecordNewParams{
		ZoneID: cloudflare.F(zoneID),
		Body: dns.CNAMERecordParam{
			Name:    cloudflare.F("grafana.example.com"),
			Type:    cloudflare.F(dns.CNAMERecordTypeCNAME),
			Content: cloudflare.F("5f3c1a52-0000-4000-8000-000000000001.cfargotunnel.com"),
			Proxied: cloudflare.F(true),
			TTL:     cloudflare.F(dns.TTL1),
			Comment: cloudflare.F("managed by cfzt"),
		},
	})
	require.NoError(t, err)
	require.Len(t, cname.ID, 32)
	require.Equal(t, "grafana.example.com", cname.Name)
	require.Equal(t, dns.RecordResponseTypeCNAME, cname.Type)
	require.True(t, cname.Proxied)
	require.EqualValues(t, 1, cname.TTL)
	require.Equal(t, "managed by cfzt", cname.Comment)

	_, err = records.New(ctx, dns.RecordNewParams{
		ZoneID: cloudflare.F(zoneID),
		Body: dns.ARecordParam{
			Name: cloudflare.F("grafana.example.com"), Type: cloudflare.F(dns.ARecordTypeA),
			Content: cloudflare.F("192.0.2.1"), TTL: cloudflare.F(dns.TTL1),
		},
	})
	requireAPIError(t, err, http.StatusBadRequest, 81054)

	_, err = records.New(ctx, dns.RecordNewParams{
		ZoneID: cloudflare.F(zoneID),
		Body: dns.CNAMERecordParam{
			Name: cloudflare.F("grafana.example.com"), Type: cloudflare.F(dns.CNAMERecordTypeCNAME),
			Content: cloudflare.F("elsewhere.example.net"), TTL: cloudflare.F(dns.TTL1),
		},
	})
	requireAPIError(t, err, http.StatusBadRequest, 81053)

	a, err := records.New(ctx, dns.RecordNewParams{
		ZoneID: cloudflare.F(zoneID),
		Body: dns.ARecordParam{
			Name: cloudflare.F("www.example.com"), Type: cloudflare.F(dns.ARecordTypeA),
			Content: cloudflare.F("192.0.2.10"), TTL: cloudflare.F(dns.TTL(300)),
		},
	})
	require.NoError(t, err)

	// The SDK sends name.exact=..., type=... and content.exact=....
	page, err := records.List(ctx, dns.RecordListParams{
		ZoneID: cloudflare.F(zoneID),
		Name:   cloudflare.F(dns.RecordListParamsName{Exact: cloudflare.F("grafana.example.com")}),
		Type:   cloudflare.F(dns.RecordListParamsTypeCNAME),
	})
	require.NoError(t, err)
	require.Len(t, page.Result, 1)
	require.Equal(t, cname.ID, page.Result[0].ID)

	page, err = records.List(ctx, dns.RecordListParams{
		ZoneID:  cloudflare.F(zoneID),
		Content: cloudflare.F(dns.RecordListParamsContent{Exact: cloudflare.F("192.0.2.10")}),
	})
	require.NoError(t, err)
	require.Len(t, page.Result, 1)
	require.Equal(t, a.ID, page.Result[0].ID)

	page, err = records.List(ctx, dns.RecordListParams{
		ZoneID: cloudflare.F(zoneID),
		Name:   cloudflare.F(dns.RecordListParamsName{Contains: cloudflare.F("graf")}),
	})
	require.NoError(t, err)
	require.Len(t, page.Result, 1)

	all := 0
	iter := records.ListAutoPaging(ctx, dns.RecordListParams{ZoneID: cloudflare.F(zoneID), PerPage: cloudflare.F(1.0)})
	for iter.Next() {
		all++
	}
	require.NoError(t, iter.Err())
	require.Equal(t, 2, all)

	updated, err := records.Update(ctx, cname.ID, dns.RecordUpdateParams{
		ZoneID: cloudflare.F(zoneID),
		Body: dns.CNAMERecordParam{
			Name: cloudflare.F("grafana.example.com"), Type: cloudflare.F(dns.CNAMERecordTypeCNAME),
			Content: cloudflare.F("5f3c1a52-0000-4000-8000-000000000002.cfargotunnel.com"), TTL: cloudflare.F(dns.TTL1),
		},
	})
	require.NoError(t, err)
	require.Equal(t, "5f3c1a52-0000-4000-8000-000000000002.cfargotunnel.com", updated.Content)
	require.False(t, updated.Proxied, "PUT overwrites")

	edited, err := records.Edit(ctx, cname.ID, dns.RecordEditParams{
		ZoneID: cloudflare.F(zoneID),
		Body:   dns.CNAMERecordParam{Proxied: cloudflare.F(true)},
	})
	require.NoError(t, err)
	require.True(t, edited.Proxied)
	require.Equal(t, updated.Content, edited.Content, "PATCH keeps unsent fields")

	got, err := records.Get(ctx, cname.ID, dns.RecordGetParams{ZoneID: cloudflare.F(zoneID)})
	require.NoError(t, err)
	require.Equal(t, edited.Content, got.Content)

	del, err := records.Delete(ctx, cname.ID, dns.RecordDeleteParams{ZoneID: cloudflare.F(zoneID)})
	require.NoError(t, err)
	require.Equal(t, cname.ID, del.ID)

	_, err = records.Get(ctx, cname.ID, dns.RecordGetParams{ZoneID: cloudflare.F(zoneID)})
	requireAPIError(t, err, http.StatusNotFound, 81044)
	require.Len(t, sim.State().DNSRecords, 1)
}
