package cfsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every list endpoint the roles use pages the same way: result_info counts
// the whole list, pages past the end are empty, and per_page is clamped to
// the endpoint's maximum.
func TestListEndpointsPaginate(t *testing.T) {
	h := newHarness(t)
	app := createApp(h, "app-0", "app0.example.com")
	for i := 1; i < 7; i++ {
		createApp(h, fmt.Sprintf("app-%d", i), fmt.Sprintf("app%d.example.com", i))
		createReusable(h, fmt.Sprintf("pol-%d", i), "allow", everyone())
		newToken(h, fmt.Sprintf("tok-%d", i), "")
		h.api(http.MethodPost, "/zones/"+zone1+"/dns_records", map[string]any{"type": "A", "name": fmt.Sprintf("h%d", i), "content": "192.0.2.1"}).ok(http.StatusOK, nil)
		h.api(http.MethodPost, appsPath+"/"+app+"/policies", policyBody(fmt.Sprintf("own-%d", i), "allow", everyone())).ok(http.StatusCreated, nil)
	}
	tests := []struct {
		path  string
		total int
		max   int
	}{
		{"/zones", 2, pagesZones.max},
		{"/zones/" + zone1 + "/dns_records", 6, pagesDNS.max},
		{appsPath, 7, pagesAccess.max},
		{appsPath + "/" + app + "/policies", 6, pagesAccess.max},
		{acctPath(acct1, "/access/policies"), 6, pagesAccess.max},
		{acctPath(acct1, "/access/groups"), 1, pagesAccess.max},
		{acctPath(acct1, "/access/service_tokens"), 6, pagesAccess.max},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			var items []json.RawMessage
			seen := 0
			for page := 1; ; page++ {
				info := h.api(http.MethodGet, fmt.Sprintf("%s?per_page=4&page=%d", tc.path, page), nil).list(&items)
				require.Equal(t, tc.total, info.TotalCount)
				require.Equal(t, (tc.total+3)/4, info.TotalPages)
				require.Equal(t, len(items), info.Count)
				seen += len(items)
				if page >= info.TotalPages {
					break
				}
			}
			require.Equal(t, tc.total, seen)
			h.api(http.MethodGet, tc.path+"?per_page=4&page=99", nil).list(&items)
			require.Empty(t, items, "a page past the end is empty")
			info := h.api(http.MethodGet, fmt.Sprintf("%s?per_page=%d", tc.path, tc.max+1), nil).list(&items)
			require.Equal(t, tc.max, info.PerPage, "per_page is clamped to the maximum")
		})
	}
}
