package cfsim

import "strconv"

// pageLimit is the default and the largest per_page of one list endpoint.
// A larger per_page is clamped to max; result_info then reports the size
// actually used, so a client that pages by total_pages still sees every
// item.
type pageLimit struct{ def, max int }

// Page sizes of the list endpoints the roles use. Where each comes from is
// in README.md ("Pagination"): Cloudflare documents 20 (max 50) for zones
// and 100 (max 5,000,000) for DNS records; it documents page and per_page
// for tunnels and the Access lists without their limits, so those are the
// simulator's choice.
var (
	pagesZones    = pageLimit{def: 20, max: 50}
	pagesDNS      = pageLimit{def: 100, max: 5_000_000}
	pagesTunnels  = pageLimit{def: 20, max: 1000}
	pagesAccess   = pageLimit{def: 25, max: 1000}
	pagesAccounts = pageLimit{def: 20, max: 50}
)

// paginate slices items according to the page and per_page query parameters
// and records result_info on the call. Out-of-range pages are empty, which is
// how Cloudflare's clients (including the Go SDK's auto-pager) detect the end.
func paginate[T any](c *call, items []T, limit pageLimit) []T {
	page := positiveInt(c.query.Get("page"), 1)
	per := min(positiveInt(c.query.Get("per_page"), limit.def), limit.max)
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
