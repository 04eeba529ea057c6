package cfsim

import "strconv"

// Per-resource page sizes. Cloudflare documents 20 (max 50) for zones and
// 100 for DNS records; the others are the simulator's choice (see README).
const (
	perPageZones    = 20
	maxPerPageZones = 50
	perPageDNS      = 100
	maxPerPageDNS   = 5000
	perPageTunnels  = 20
	maxPerPageTun   = 1000
	perPageAccess   = 25
	maxPerPageAcc   = 1000
)

// paginate slices items according to the page and per_page query parameters
// and records result_info on the call. Out-of-range pages are empty, which is
// how Cloudflare's clients (including the Go SDK's auto-pager) detect the end.
func paginate[T any](c *call, items []T, defaultPerPage, maxPerPage int) []T {
	page := positiveInt(c.query.Get("page"), 1)
	per := positiveInt(c.query.Get("per_page"), defaultPerPage)
	if per > maxPerPage {
		per = maxPerPage
	}
	total := len(items)
	start := min((page-1)*per, total)
	end := min(start+per, total)
	out := make([]T, 0, end-start)
	out = append(out, items[start:end]...)
	pages := (total + per - 1) / per
	c.info = &ResultInfo{Page: page, PerPage: per, Count: len(out), TotalCount: total, TotalPages: pages}
	return out
}

func positiveInt(raw string, def int) int {
	// The Go SDK types page numbers as floats, so accept "2" and "2.0".
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || f < 1 || f > 1e9 {
		return def
	}
	return int(f)
}
