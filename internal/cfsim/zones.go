package cfsim

import (
	"net/http"
	"sort"
	"strings"
)

type zoneRec struct {
	id, name, account, status string
	createdOn                 string
}

// Zone is a zone as the v4 API returns it.
type Zone struct {
	ID                  string         `json:"id"`
	Name                string         `json:"name"`
	Status              string         `json:"status"`
	Paused              bool           `json:"paused"`
	Type                string         `json:"type"`
	DevelopmentMode     int            `json:"development_mode"`
	NameServers         []string       `json:"name_servers"`
	OriginalNameServers []string       `json:"original_name_servers"`
	OriginalRegistrar   *string        `json:"original_registrar"`
	OriginalDNSHost     *string        `json:"original_dnshost"`
	CreatedOn           string         `json:"created_on"`
	ModifiedOn          string         `json:"modified_on"`
	ActivatedOn         *string        `json:"activated_on"`
	Meta                map[string]any `json:"meta"`
	Owner               map[string]any `json:"owner"`
	Account             ZoneAccount    `json:"account"`
	Permissions         []string       `json:"permissions"`
	Plan                map[string]any `json:"plan"`
}

// ZoneAccount is the owning account embedded in a Zone.
type ZoneAccount struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

func (s *Server) registerZoneRoutes() {
	s.api.add(http.MethodGet, "/zones", s.listZones)
	s.api.add(http.MethodGet, "/zones/{zone}", s.getZone)
}

func (s *Server) zoneView(z *zoneRec) Zone {
	acct := find(s.st.accounts, func(a *accountRec) bool { return a.id == z.account })
	v := Zone{
		ID: z.id, Name: z.name, Status: z.status, Type: "full",
		NameServers:         []string{"ada.ns.cloudflare.com", "bob.ns.cloudflare.com"},
		OriginalNameServers: nil,
		CreatedOn:           z.createdOn, ModifiedOn: z.createdOn,
		Meta:        map[string]any{"step": 2, "custom_certificate_quota": 0, "page_rule_quota": 3, "phishing_detected": false},
		Owner:       map[string]any{"id": nil, "type": "user", "email": nil},
		Account:     ZoneAccount{ID: z.account, Name: acct.name},
		Permissions: []string{"#dns_records:edit", "#dns_records:read", "#zone:read"},
		Plan: map[string]any{
			"id": "0feeeeeeeeeeeeeeeeeeeeeeeeeeeeee", "name": "Free Website", "price": 0, "currency": "USD",
			"frequency": "", "is_subscribed": false, "can_subscribe": false, "legacy_id": "free",
			"legacy_discount": false, "externally_managed": false,
		},
	}
	if z.status == "active" {
		v.ActivatedOn = &z.createdOn
	}
	return v
}

// listZones answers GET /zones: the zones of the token's accounts, filtered
// by name (with Cloudflare's "op:value" operators), status, account.id and
// account.name.
func (s *Server) listZones(c *call) (any, error) {
	q := c.query
	zones := filter(s.st.zones, func(z *zoneRec) bool {
		if !c.allowed(z.account) {
			return false
		}
		if v := q.Get("name"); v != "" && !matchOperator(z.name, strings.ToLower(v)) {
			return false
		}
		if v := q.Get("status"); v != "" && z.status != v {
			return false
		}
		if v := q.Get("account.id"); v != "" && z.account != v {
			return false
		}
		if v := q.Get("account.name"); v != "" {
			acct := find(s.st.accounts, func(a *accountRec) bool { return a.id == z.account })
			if !matchOperator(acct.name, v) {
				return false
			}
		}
		return true
	})
	views := make([]Zone, 0, len(zones))
	for _, z := range zones {
		views = append(views, s.zoneView(z))
	}
	key := func(z Zone) string { return z.Name }
	switch q.Get("order") {
	case "status":
		key = func(z Zone) string { return z.Status }
	case "account.id":
		key = func(z Zone) string { return z.Account.ID }
	case "account.name":
		key = func(z Zone) string { return z.Account.Name }
	}
	desc := q.Get("direction") == "desc"
	sort.SliceStable(views, func(i, j int) bool {
		if desc {
			return key(views[i]) > key(views[j])
		}
		return key(views[i]) < key(views[j])
	})
	return paginate(c, views, pagesZones), nil
}

func (s *Server) getZone(c *call) (any, error) {
	z, err := c.zone()
	if err != nil {
		return nil, err
	}
	return s.zoneView(z), nil
}

// matchOperator applies a Cloudflare list filter value such as "example.com",
// "contains:exam" or "starts_with:www.". Without an operator it is equality.
func matchOperator(have, filter string) bool {
	op, val, ok := strings.Cut(filter, ":")
	if !ok {
		return have == filter
	}
	switch op {
	case "equal":
		return have == val
	case "not_equal":
		return have != val
	case "starts_with":
		return strings.HasPrefix(have, val)
	case "ends_with":
		return strings.HasSuffix(have, val)
	case "contains":
		return strings.Contains(have, val)
	default:
		return have == filter
	}
}
