package cfsim

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const dnsPath = "/zones/" + zone1 + "/dns_records"

func createDNS(h *harness, typ, name, content string) string {
	h.t.Helper()
	return h.api(http.MethodPost, dnsPath, map[string]any{"type": typ, "name": name, "content": content, "ttl": 1}).
		ok(http.StatusOK, nil).id()
}

func TestCreateDNSRecord(t *testing.T) {
	h := newHarness(t)
	var rec DNSRecord
	h.api(http.MethodPost, dnsPath, map[string]any{
		"type": "CNAME", "name": "App", "content": "00000000-0000-4000-8000-000000000001.cfargotunnel.com.",
		"proxied": true, "ttl": 300, "comment": "managed by cfzt",
	}).ok(http.StatusOK, &rec)

	require.True(t, isHex32(rec.ID), rec.ID)
	require.Equal(t, "app.example.com", rec.Name, "relative names are completed with the zone")
	require.Equal(t, "CNAME", rec.Type)
	require.Equal(t, "00000000-0000-4000-8000-000000000001.cfargotunnel.com", rec.Content)
	require.True(t, rec.Proxied)
	require.True(t, rec.Proxiable)
	require.Equal(t, 1, rec.TTL, "proxied records use the automatic TTL")
	require.Equal(t, "managed by cfzt", *rec.Comment)
	require.Equal(t, "2025-01-02T03:04:05Z", rec.CreatedOn)
	require.NotNil(t, rec.Tags)

	var apex DNSRecord
	h.api(http.MethodPost, dnsPath, map[string]any{"type": "A", "name": "@", "content": "192.0.2.10"}).ok(http.StatusOK, &apex)
	require.Equal(t, "example.com", apex.Name)
	require.Equal(t, 1, apex.TTL, "ttl defaults to automatic")
	require.False(t, apex.Proxied)

	var fqdn DNSRecord
	h.api(http.MethodPost, dnsPath, map[string]any{"type": "TXT", "name": "x.example.com", "content": "v=1", "ttl": 120}).ok(http.StatusOK, &fqdn)
	require.Equal(t, "x.example.com", fqdn.Name)
	require.False(t, fqdn.Proxiable)
	require.Equal(t, 120, fqdn.TTL)
}

func TestDNSRecordValidation(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		name  string
		body  map[string]any
		chain int
	}{
		{"missing type", map[string]any{"name": "a", "content": "192.0.2.1"}, 9020},
		{"unknown type", map[string]any{"type": "BOGUS", "name": "a", "content": "x"}, 9020},
		{"missing name", map[string]any{"type": "A", "content": "192.0.2.1"}, 9000},
		{"bad name", map[string]any{"type": "A", "name": "a b", "content": "192.0.2.1"}, 9000},
		{"wildcard not first", map[string]any{"type": "A", "name": "a.*", "content": "192.0.2.1"}, 9000},
		{"A with IPv6", map[string]any{"type": "A", "name": "a", "content": "2001:db8::1"}, 9005},
		{"A with hostname", map[string]any{"type": "A", "name": "a", "content": "host.example.net"}, 9005},
		{"AAAA with IPv4", map[string]any{"type": "AAAA", "name": "a", "content": "192.0.2.1"}, 9006},
		{"CNAME with spaces", map[string]any{"type": "CNAME", "name": "a", "content": "not a host"}, 9007},
		{"CNAME empty", map[string]any{"type": "CNAME", "name": "a"}, 9007},
		{"TXT empty", map[string]any{"type": "TXT", "name": "a"}, 9009},
		{"proxied TXT", map[string]any{"type": "TXT", "name": "a", "content": "x", "proxied": true}, 9004},
		{"ttl too low", map[string]any{"type": "A", "name": "a", "content": "192.0.2.1", "ttl": 30}, 9021},
		{"ttl too high", map[string]any{"type": "A", "name": "a", "content": "192.0.2.1", "ttl": 90000}, 9021},
		{"proxied wrong type", map[string]any{"type": "A", "name": "a", "content": "192.0.2.1", "proxied": "true"}, 9003},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := h.api(http.MethodPost, dnsPath, tc.body).fails(http.StatusBadRequest, 1004)
			require.Equal(t, "DNS Validation Error", e.Message)
			require.Len(t, e.ErrorChain, 1)
			require.Equal(t, tc.chain, e.ErrorChain[0].Code, e.ErrorChain[0].Message)
		})
	}
	require.Empty(t, h.srv.State().DNSRecords)
}

func TestDNSSameNameConflicts(t *testing.T) {
	cases := []struct {
		name     string
		existing [][3]string // type, name, content
		create   [3]string
		code     int // 0: allowed
	}{
		{"CNAME over CNAME", [][3]string{{"CNAME", "app", "a.example.net"}}, [3]string{"CNAME", "app", "b.example.net"}, 81053},
		{"identical CNAME", [][3]string{{"CNAME", "app", "a.example.net"}}, [3]string{"CNAME", "app", "a.example.net"}, 81053},
		{"CNAME over A", [][3]string{{"A", "app", "192.0.2.1"}}, [3]string{"CNAME", "app", "a.example.net"}, 81053},
		{"CNAME over AAAA", [][3]string{{"AAAA", "app", "2001:db8::1"}}, [3]string{"CNAME", "app", "a.example.net"}, 81053},
		{"A over CNAME", [][3]string{{"CNAME", "app", "a.example.net"}}, [3]string{"A", "app", "192.0.2.1"}, 81054},
		{"AAAA over CNAME", [][3]string{{"CNAME", "app", "a.example.net"}}, [3]string{"AAAA", "app", "2001:db8::1"}, 81054},
		{"identical A", [][3]string{{"A", "app", "192.0.2.1"}}, [3]string{"A", "app", "192.0.2.1"}, 81057},
		{"identical TXT", [][3]string{{"TXT", "app", "v=1"}}, [3]string{"TXT", "app", "v=1"}, 81057},
		{"NS beside A", [][3]string{{"A", "sub", "192.0.2.1"}}, [3]string{"NS", "sub", "ns1.example.net"}, 81056},
		{"second A, other IP", [][3]string{{"A", "app", "192.0.2.1"}}, [3]string{"A", "app", "192.0.2.2"}, 0},
		{"TXT beside CNAME", [][3]string{{"CNAME", "app", "a.example.net"}}, [3]string{"TXT", "app", "v=1"}, 0},
		{"CNAME on another name", [][3]string{{"CNAME", "app", "a.example.net"}}, [3]string{"CNAME", "www", "a.example.net"}, 0},
		{"same name in another zone", nil, [3]string{"CNAME", "app.other.org", "a.example.net"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.do(http.MethodPost, "/zones/"+zone2+"/dns_records", tok2,
				map[string]any{"type": "CNAME", "name": "app", "content": "x.example.net"}).ok(http.StatusOK, nil)
			for _, e := range tc.existing {
				createDNS(h, e[0], e[1], e[2])
			}
			path := dnsPath
			token := tok1
			if tc.name == "same name in another zone" {
				path, token = "/zones/"+zone2+"/dns_records", tok2
				tc.create[1] = "www"
			}
			r := h.do(http.MethodPost, path, token, map[string]any{"type": tc.create[0], "name": tc.create[1], "content": tc.create[2]})
			if tc.code == 0 {
				r.ok(http.StatusOK, nil)
				return
			}
			e := r.fails(http.StatusBadRequest, tc.code)
			require.NotEmpty(t, e.Message)
		})
	}
}

func TestListDNSFilters(t *testing.T) {
	h := newHarness(t)
	createDNS(h, "CNAME", "app", "tunnel-a.cfargotunnel.com")
	createDNS(h, "CNAME", "api", "tunnel-b.cfargotunnel.com")
	createDNS(h, "TXT", "app", "owner=cfzt")
	createDNS(h, "A", "www", "192.0.2.1")

	cases := []struct {
		query string
		want  []string
	}{
		{"", []string{"app.example.com", "api.example.com", "app.example.com", "www.example.com"}},
		{"?name=app.example.com", []string{"app.example.com", "app.example.com"}},
		{"?name=APP.example.com&type=CNAME", []string{"app.example.com"}},
		{"?name.exact=api.example.com", []string{"api.example.com"}},
		{"?name.contains=pp", []string{"app.example.com", "app.example.com"}},
		{"?name.startswith=ap&type=CNAME", []string{"app.example.com", "api.example.com"}},
		{"?name.endswith=w.example.com", []string{"www.example.com"}},
		{"?type=TXT", []string{"app.example.com"}},
		{"?content=tunnel-b.cfargotunnel.com", []string{"api.example.com"}},
		{"?content.exact=192.0.2.1", []string{"www.example.com"}},
		{"?content.contains=cfargotunnel", []string{"app.example.com", "api.example.com"}},
		{"?type=A&name=app.example.com&match=any", []string{"app.example.com", "app.example.com", "www.example.com"}},
		{"?proxied=true", []string{}},
		{"?search=owner", []string{"app.example.com"}},
		{"?name=app", []string{}}, // the name filter wants the full name
		{"?order=name", []string{"api.example.com", "app.example.com", "app.example.com", "www.example.com"}},
		{"?order=type&direction=desc", []string{"app.example.com", "app.example.com", "api.example.com", "www.example.com"}},
		{"?per_page=3&page=2", []string{"www.example.com"}},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			r := h.api(http.MethodGet, dnsPath+tc.query, nil)
			r.list(&[]DNSRecord{})
			require.Equal(t, tc.want, names(t, r.Env.Result))
		})
	}
	info := h.api(http.MethodGet, dnsPath, nil).list(&[]DNSRecord{})
	require.Equal(t, 100, info.PerPage)
}

func TestUpdateDNSRecord(t *testing.T) {
	h := newHarness(t)
	id := createDNS(h, "CNAME", "app", "a.cfargotunnel.com")
	createDNS(h, "A", "www", "192.0.2.1")
	path := dnsPath + "/" + id
	h.clock.Advance(time.Minute)

	var patched DNSRecord
	h.api(http.MethodPatch, path, map[string]any{"proxied": true}).ok(http.StatusOK, &patched)
	require.Equal(t, "a.cfargotunnel.com", patched.Content, "PATCH keeps unsent fields")
	require.True(t, patched.Proxied)
	require.Equal(t, "2025-01-02T03:05:05Z", patched.ModifiedOn)
	require.Equal(t, "2025-01-02T03:04:05Z", patched.CreatedOn)

	var put DNSRecord
	h.api(http.MethodPut, path, map[string]any{"type": "CNAME", "name": "app.example.com", "content": "b.cfargotunnel.com"}).ok(http.StatusOK, &put)
	require.Equal(t, "b.cfargotunnel.com", put.Content)
	require.False(t, put.Proxied, "PUT resets unsent fields")

	h.api(http.MethodPut, path, map[string]any{"type": "CNAME", "content": "b.cfargotunnel.com"}).fails(http.StatusBadRequest, 1004)
	h.api(http.MethodPatch, path, map[string]any{"name": "www"}).fails(http.StatusBadRequest, 81053)
	h.api(http.MethodPatch, path, map[string]any{"content": "b.cfargotunnel.com"}).ok(http.StatusOK, nil)

	var got DNSRecord
	h.api(http.MethodGet, path, nil).ok(http.StatusOK, &got)
	require.Equal(t, put.Content, got.Content)
}

func TestDeleteDNSRecord(t *testing.T) {
	h := newHarness(t)
	id := createDNS(h, "CNAME", "app", "a.cfargotunnel.com")
	var del map[string]string
	h.api(http.MethodDelete, dnsPath+"/"+id, nil).ok(http.StatusOK, &del)
	require.Equal(t, map[string]string{"id": id}, del)

	for _, m := range []string{http.MethodGet, http.MethodDelete, http.MethodPatch} {
		e := h.api(m, dnsPath+"/"+id, map[string]any{}).fails(http.StatusNotFound, 81044)
		require.Equal(t, "Record does not exist.", e.Message)
	}
	createDNS(h, "A", "app", "192.0.2.1") // the name is free again
}

func TestDNSRecordsAreZoneScoped(t *testing.T) {
	h := newHarness(t)
	id := h.do(http.MethodPost, "/zones/"+zone2+"/dns_records", tok2,
		map[string]any{"type": "A", "name": "a", "content": "192.0.2.1"}).ok(http.StatusOK, nil).id()
	h.api(http.MethodGet, "/zones/"+zone2+"/dns_records/"+id, nil).fails(http.StatusForbidden, 10000)
	h.api(http.MethodGet, dnsPath+"/"+id, nil).fails(http.StatusNotFound, 81044)
	h.api(http.MethodPost, "/zones/44444444444444444444444444444444/dns_records", map[string]any{}).fails(http.StatusNotFound, 7003)
}

func TestSeededDNSRecord(t *testing.T) {
	seed := testSeed()
	seed.DNSRecords = []SeedDNSRecord{{Zone: "example.com", Type: "A", Name: "legacy", Content: "192.0.2.9"}}
	h := newHarness(t, WithSeed(seed))
	var recs []DNSRecord
	h.api(http.MethodGet, dnsPath+"?name=legacy.example.com", nil).list(&recs)
	require.Len(t, recs, 1)
	h.api(http.MethodPost, dnsPath, map[string]any{"type": "CNAME", "name": "legacy", "content": "x.example.net"}).fails(http.StatusBadRequest, 81053)

	seed.DNSRecords = append(seed.DNSRecords, SeedDNSRecord{Zone: "example.com", Type: "CNAME", Name: "legacy", Content: "x.example.net"})
	_, err := New(WithSeed(seed))
	require.ErrorContains(t, err, "81053")
}
