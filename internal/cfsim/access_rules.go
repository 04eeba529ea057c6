package cfsim

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"time"
)

// ruleFields lists the Access rule selectors the simulator understands and
// the string fields each one must carry, e.g. {"email": {"email": "x@y"}}.
var ruleFields = map[string][]string{
	"email":                   {"email"},
	"email_domain":            {"domain"},
	"email_list":              {"id"},
	"everyone":                nil,
	"group":                   {"id"},
	"service_token":           {"token_id"},
	"any_valid_service_token": nil,
	"ip":                      {"ip"},
	"ip_list":                 {"id"},
	"geo":                     {"country_code"},
	"login_method":            {"id"},
	"certificate":             nil,
	"common_name":             {"common_name"},
	"auth_method":             {"auth_method"},
	"device_posture":          {"integration_uid"},
	"external_evaluation":     {"evaluate_url", "keys_url"},
	"github-organization":     {"name", "identity_provider_id"},
	"gsuite":                  {"email", "identity_provider_id"},
	"okta":                    {"name", "identity_provider_id"},
	"saml":                    {"attribute_name", "attribute_value", "identity_provider_id"},
	"azureAD":                 {"id", "identity_provider_id"},
}

// validateRules checks an include/exclude/require list. References to
// groups and service tokens must exist in the account, because Cloudflare
// stores IDs, not names: a role that passes a group name is a bug.
func validateRules(st *store, account, field string, raw *[]any, required bool) ([]map[string]any, *apiError) {
	if raw == nil || len(*raw) == 0 {
		if required {
			return nil, accessInvalid(field + " must contain at least one rule")
		}
		return []map[string]any{}, nil
	}
	out := make([]map[string]any, 0, len(*raw))
	for i, item := range *raw {
		rule, ok := item.(map[string]any)
		if !ok || len(rule) != 1 {
			return nil, accessInvalid(fmt.Sprintf("%s[%d] must be an object with exactly one rule type", field, i))
		}
		for kind, body := range rule {
			if err := validateRule(st, account, fmt.Sprintf("%s[%d].%s", field, i, kind), kind, body); err != nil {
				return nil, err
			}
		}
		out = append(out, rule)
	}
	return out, nil
}

func validateRule(st *store, account, where, kind string, body any) *apiError {
	fields, known := ruleFields[kind]
	if !known {
		return accessInvalid(fmt.Sprintf("%s: unknown rule type %q", where, kind))
	}
	obj, ok := body.(map[string]any)
	if !ok {
		return accessInvalid(where + " must be an object")
	}
	vals := map[string]string{}
	for _, f := range fields {
		s, ok := obj[f].(string)
		if !ok || strings.TrimSpace(s) == "" {
			return accessInvalid(fmt.Sprintf("%s.%s is required", where, f))
		}
		vals[f] = s
	}
	switch kind {
	case "email":
		if at := strings.Index(vals["email"], "@"); at < 1 || at == len(vals["email"])-1 {
			return accessInvalid(fmt.Sprintf("%s.email %q is not an email address", where, vals["email"]))
		}
	case "email_domain":
		if strings.Contains(vals["domain"], "@") {
			return accessInvalid(fmt.Sprintf("%s.domain %q must be a domain, not an address", where, vals["domain"]))
		}
	case "group":
		if find(st.groups, func(g *groupRec) bool { return g.account == account && g.g.ID == vals["id"] }) == nil {
			return accessInvalid(fmt.Sprintf("%s.id: access group %q not found", where, vals["id"]))
		}
	case "service_token":
		if find(st.serviceTokens, func(t *serviceTokenRec) bool { return t.account == account && t.t.ID == vals["token_id"] }) == nil {
			return accessInvalid(fmt.Sprintf("%s.token_id: service token %q not found", where, vals["token_id"]))
		}
	case "ip":
		if _, err := netip.ParsePrefix(vals["ip"]); err != nil {
			if _, err := netip.ParseAddr(vals["ip"]); err != nil {
				return accessInvalid(fmt.Sprintf("%s.ip %q is not an IP address or CIDR", where, vals["ip"]))
			}
		}
	}
	return nil
}

// identitySelectors need a login through an identity provider, which a
// Service Auth (non_identity) policy never has.
var identitySelectors = map[string]bool{
	"email": true, "email_domain": true, "email_list": true, "login_method": true, "auth_method": true,
	"github-organization": true, "gsuite": true, "okta": true, "saml": true, "azureAD": true,
}

// rejectIdentityRules refuses identity selectors in a non_identity policy:
// Cloudflare evaluates Service Auth policies before any login, so such a
// rule could never match (the simulator's stricter reading, see README).
func rejectIdentityRules(lists ...[]map[string]any) *apiError {
	for _, rules := range lists {
		for _, r := range rules {
			for kind := range r {
				if identitySelectors[kind] {
					return accessInvalid(fmt.Sprintf("%s rules need an identity and cannot be used in a non_identity (Service Auth) policy", kind))
				}
			}
		}
	}
	return nil
}

// policyDecisions are the actions an Access policy can take.
var policyDecisions = map[string]bool{"allow": true, "deny": true, "non_identity": true, "bypass": true}

// validDuration checks Access's Go-style durations ("24h", "30m", "0s").
func validDuration(d string) bool {
	v, err := time.ParseDuration(d)
	return err == nil && v >= 0
}

// sortPolicies orders an application's policies by precedence.
func sortPolicies(ps []AccessPolicy) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Precedence < ps[j].Precedence })
}
