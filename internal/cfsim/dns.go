package cfsim

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DNS error codes, as Cloudflare returns them.
const (
	codeDNSRecordNotFound = 81044 // "Record does not exist."
	codeDNSCNAMEConflict  = 81053 // new CNAME where an A/AAAA/CNAME exists
	codeDNSHasCNAME       = 81054 // new A/AAAA where a CNAME exists
	codeDNSNSConflict     = 81056 // NS records cannot share a name (simulator's choice)
	codeDNSDuplicate      = 81057 // "Record already exists."
	codeDNSValidation     = 1004  // "DNS Validation Error", cause in error_chain
)

type dnsRec struct {
	zone string
	r    DNSRecord
}

// DNSRecord is a DNS record as the v4 API returns it.
type DNSRecord struct {
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Content    string         `json:"content"`
	Proxiable  bool           `json:"proxiable"`
	Proxied    bool           `json:"proxied"`
	TTL        int            `json:"ttl"`
	Priority   *int           `json:"priority,omitempty"`
	Settings   map[string]any `json:"settings"`
	Meta       map[string]any `json:"meta"`
	Comment    *string        `json:"comment"`
	Tags       []string       `json:"tags"`
	CreatedOn  string         `json:"created_on"`
	ModifiedOn string         `json:"modified_on"`
}

// dnsInput is a create/update body; nil fields were absent, which matters
// for PATCH.
type dnsInput struct {
	Type     *string   `json:"type"`
	Name     *string   `json:"name"`
	Content  *string   `json:"content"`
	Proxied  *bool     `json:"proxied"`
	TTL      *int      `json:"ttl"`
	Priority *int      `json:"priority"`
	Comment  *string   `json:"comment"`
	Tags     *[]string `json:"tags"`
}

func (s *Server) registerDNSRoutes() {
	base := "/zones/{zone}/dns_records"
	s.api.add(http.MethodGet, base, s.listDNS)
	s.api.add(http.MethodPost, base, s.createDNS)
	s.api.add(http.MethodGet, base+"/{record}", s.getDNS)
	s.api.add(http.MethodPut, base+"/{record}", s.updateDNS(false))
	s.api.add(http.MethodPatch, base+"/{record}", s.updateDNS(true))
	s.api.add(http.MethodDelete, base+"/{record}", s.deleteDNS)
}

func (c *call) dnsRecord() (*dnsRec, *zoneRec, error) {
	z, err := c.zone()
	if err != nil {
		return nil, nil, err
	}
	id := c.param("record")
	r := find(c.s.st.dns, func(r *dnsRec) bool { return r.zone == z.id && r.r.ID == id })
	if r == nil {
		return nil, nil, newAPIError(http.StatusNotFound, codeDNSRecordNotFound, "Record does not exist.")
	}
	return r, z, nil
}

// listDNS answers GET /zones/{z}/dns_records with the type, name, content,
// proxied and search filters (name and content also in their .exact,
// .contains, .startswith and .endswith forms), match=all|any, order and
// direction.
func (s *Server) listDNS(c *call) (any, error) {
	z, err := c.zone()
	if err != nil {
		return nil, err
	}
	preds := dnsFilters(c, z)
	matchAny := c.query.Get("match") == "any"
	var out []DNSRecord
	for _, r := range s.st.dns {
		if r.zone != z.id {
			continue
		}
		if len(preds) == 0 || matchPreds(preds, r.r, matchAny) {
			out = append(out, r.r)
		}
	}
	sortDNS(out, c.query.Get("order"), c.query.Get("direction") == "desc")
	return paginate(c, out, pagesDNS), nil
}

type dnsPred func(DNSRecord) bool

func matchPreds(preds []dnsPred, r DNSRecord, any bool) bool {
	for _, p := range preds {
		if p(r) == any {
			return any
		}
	}
	return !any
}

func dnsFilters(c *call, z *zoneRec) []dnsPred {
	q := c.query
	var preds []dnsPred
	if v := q.Get("type"); v != "" {
		preds = append(preds, func(r DNSRecord) bool { return strings.EqualFold(r.Type, v) })
	}
	str := func(field string, get func(DNSRecord) string, fold bool) {
		norm := func(s string) string {
			if fold {
				return strings.ToLower(s)
			}
			return s
		}
		ops := map[string]func(have, want string) bool{
			"":            func(h, w string) bool { return h == w },
			".exact":      func(h, w string) bool { return h == w },
			".contains":   strings.Contains,
			".startswith": strings.HasPrefix,
			".endswith":   strings.HasSuffix,
		}
		for suffix, op := range ops {
			if v, ok := q[field+suffix]; ok && len(v) > 0 && v[0] != "" {
				want, op := norm(v[0]), op
				preds = append(preds, func(r DNSRecord) bool { return op(norm(get(r)), want) })
			}
		}
	}
	str("name", func(r DNSRecord) string { return r.Name }, true)
	str("content", func(r DNSRecord) string { return r.Content }, false)
	if v, ok := c.queryBool("proxied"); ok {
		preds = append(preds, func(r DNSRecord) bool { return r.Proxied == v })
	}
	if v := strings.ToLower(q.Get("search")); v != "" {
		preds = append(preds, func(r DNSRecord) bool {
			return strings.Contains(r.Name, v) || strings.Contains(strings.ToLower(r.Content), v)
		})
	}
	return preds
}

func sortDNS(out []DNSRecord, order string, desc bool) {
	var key func(DNSRecord) string
	switch order {
	case "type":
		key = func(r DNSRecord) string { return r.Type }
	case "name":
		key = func(r DNSRecord) string { return r.Name }
	case "content":
		key = func(r DNSRecord) string { return r.Content }
	case "ttl":
		key = func(r DNSRecord) string { return strconv.Itoa(1e9 + r.TTL) }
	case "proxied":
		key = func(r DNSRecord) string { return strconv.FormatBool(r.Proxied) }
	default:
		return // creation order
	}
	sort.SliceStable(out, func(i, j int) bool {
		if desc {
			return key(out[i]) > key(out[j])
		}
		return key(out[i]) < key(out[j])
	})
}

func (s *Server) getDNS(c *call) (any, error) {
	r, _, err := c.dnsRecord()
	if err != nil {
		return nil, err
	}
	return r.r, nil
}

func (s *Server) createDNS(c *call) (any, error) {
	z, err := c.zone()
	if err != nil {
		return nil, err
	}
	var in dnsInput
	if err := c.decode(&in, dnsBodyInvalid); err != nil {
		return nil, err
	}
	rec, apiErr := newDNSRecord(s.st, z, in, s.ids.Hex32(), s.now())
	if apiErr != nil {
		return nil, apiErr
	}
	s.st.dns = append(s.st.dns, rec)
	return rec.r, nil
}

// newDNSRecord validates a full create body and conflict-checks it against
// the zone's records.
func newDNSRecord(st *store, z *zoneRec, in dnsInput, id string, now time.Time) (*dnsRec, *apiError) {
	ts := stamp(now)
	r := DNSRecord{ID: id, TTL: 1, Settings: map[string]any{}, Meta: map[string]any{}, Tags: []string{}, CreatedOn: ts, ModifiedOn: ts}
	r, err := applyDNSInput(r, in, z)
	if err != nil {
		return nil, err
	}
	if err := checkDNSConflicts(st, z, r); err != nil {
		return nil, err
	}
	return &dnsRec{zone: z.id, r: r}, nil
}

// updateDNS answers PUT (full overwrite: type, name and content required)
// and PATCH (only the fields sent change).
func (s *Server) updateDNS(patch bool) handlerFunc {
	return func(c *call) (any, error) {
		rec, z, err := c.dnsRecord()
		if err != nil {
			return nil, err
		}
		var in dnsInput
		if err := c.decode(&in, dnsBodyInvalid); err != nil {
			return nil, err
		}
		base := rec.r
		if !patch {
			base = DNSRecord{ID: rec.r.ID, TTL: 1, Settings: map[string]any{}, Meta: map[string]any{}, Tags: []string{}, CreatedOn: rec.r.CreatedOn}
		}
		next, apiErr := applyDNSInput(base, in, z)
		if apiErr != nil {
			return nil, apiErr
		}
		if apiErr := checkDNSConflicts(s.st, z, next); apiErr != nil {
			return nil, apiErr
		}
		next.ModifiedOn = s.stampNow()
		rec.r = next
		return rec.r, nil
	}
}

func (s *Server) deleteDNS(c *call) (any, error) {
	r, _, err := c.dnsRecord()
	if err != nil {
		return nil, err
	}
	s.st.dns = remove(s.st.dns, r)
	return map[string]string{"id": r.r.ID}, nil
}
