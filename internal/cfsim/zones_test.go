package cfsim

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestListZonesFilters(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		query string
		want  []string
	}{
		{"", []string{"example.com", "pending.net"}},
		{"?name=example.com", []string{"example.com"}},
		{"?name=EXAMPLE.com", []string{"example.com"}},
		{"?name=other.org", []string{}}, // another account's zone is invisible
		{"?name=contains:end", []string{"pending.net"}},
		{"?name=starts_with:ex", []string{"example.com"}},
		{"?name=ends_with:.net", []string{"pending.net"}},
		{"?name=not_equal:example.com", []string{"pending.net"}},
		{"?status=pending", []string{"pending.net"}},
		{"?account.id=" + acct1, []string{"example.com", "pending.net"}},
		{"?account.id=" + acct2, []string{}},
		{"?account.name=Acme&name=example.com", []string{"example.com"}},
		{"?order=name&direction=desc", []string{"pending.net", "example.com"}},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			r := h.api(http.MethodGet, "/zones"+tc.query, nil)
			r.list(&[]Zone{})
			require.Equal(t, tc.want, names(t, r.Env.Result))
		})
	}
}

func TestZoneShape(t *testing.T) {
	h := newHarness(t)
	var z Zone
	h.api(http.MethodGet, "/zones/"+zone1, nil).ok(http.StatusOK, &z)
	require.Equal(t, zone1, z.ID)
	require.Equal(t, "example.com", z.Name)
	require.Equal(t, "active", z.Status)
	require.Equal(t, ZoneAccount{ID: acct1, Name: "Acme"}, z.Account)
	require.NotEmpty(t, z.NameServers)
	require.Equal(t, "2025-01-02T03:04:05Z", z.CreatedOn)
	require.NotNil(t, z.ActivatedOn)

	var pending Zone
	h.api(http.MethodGet, "/zones/"+zone3, nil).ok(http.StatusOK, &pending)
	require.Nil(t, pending.ActivatedOn)
}

func TestGetZoneErrors(t *testing.T) {
	h := newHarness(t)
	e := h.api(http.MethodGet, "/zones/"+"44444444444444444444444444444444", nil).fails(http.StatusNotFound, 7003)
	require.Contains(t, e.Message, "perhaps your object identifier is invalid?")
	h.api(http.MethodGet, "/zones/not-a-zone", nil).fails(http.StatusNotFound, 7003)
	h.api(http.MethodGet, "/zones/"+zone2, nil).fails(http.StatusForbidden, 10000)
	h.do(http.MethodGet, "/zones/"+zone2, tok2, nil).ok(http.StatusOK, nil)
}

func TestZonesPagination(t *testing.T) {
	seed := testSeed()
	for i := range 7 {
		seed.Zones = append(seed.Zones, SeedZone{Name: fmt.Sprintf("z%d.test", i), Account: acct1})
	}
	h := newHarness(t, WithSeed(seed))

	info := h.api(http.MethodGet, "/zones?per_page=5&page=2", nil).list(&[]Zone{})
	require.Equal(t, ResultInfo{Page: 2, PerPage: 5, Count: 4, TotalCount: 9, TotalPages: 2}, info)

	info = h.api(http.MethodGet, "/zones?per_page=5&page=3", nil).list(&[]Zone{})
	require.Equal(t, 0, info.Count, "past the last page is empty, which ends auto-pagers")

	info = h.api(http.MethodGet, "/zones?per_page=500", nil).list(&[]Zone{})
	require.Equal(t, 50, info.PerPage, "per_page is capped")

	info = h.api(http.MethodGet, "/zones?page=1.0&per_page=bogus", nil).list(&[]Zone{})
	require.Equal(t, ResultInfo{Page: 1, PerPage: 20, Count: 9, TotalCount: 9, TotalPages: 1}, info)
}
