package cfsim

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/netip"
	"sort"
	"strings"
	"time"
)

// AccessRequest is one request to a hostname behind Cloudflare Access, as
// the test-only evaluation endpoint (POST /__admin/evaluate, Server.Evaluate)
// receives it. Email is the identity a login established (empty: the client
// has not logged in); ClientID and ClientSecret are the CF-Access-Client-Id
// and CF-Access-Client-Secret headers a machine client sends.
type AccessRequest struct {
	// Hostname is the request's host (a path after it is ignored). AppID,
	// when set, names the application directly instead.
	Hostname string `json:"hostname,omitempty"`
	AppID    string `json:"app_id,omitempty"`
	// AccountID limits the application lookup to one account.
	AccountID    string `json:"account_id,omitempty"`
	Email        string `json:"email,omitempty"`
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	IP           string `json:"ip,omitempty"`
	Country      string `json:"country,omitempty"`
}

// Access outcomes of an evaluation.
const (
	OutcomeAllowed       = "allowed"        // the request reaches the origin
	OutcomeDenied        = "denied"         // 403: an identity that no Allow policy admits, or a Block policy
	OutcomeLoginRequired = "login_required" // 302 to the login page: no identity, no Bypass/Service Auth match
	OutcomeUnauthorized  = "unauthorized"   // 401: service_auth_401_redirect answers instead of the login page
	OutcomeUnprotected   = "unprotected"    // no Access application covers the hostname
)

// AccessDecision is what Access does with an AccessRequest: the outcome,
// the HTTP status the client sees, and the policy that decided (none when
// Access denied by default or asked for a login).
type AccessDecision struct {
	Allowed    bool   `json:"allowed"`
	Outcome    string `json:"outcome"`
	Status     int    `json:"status"`
	AppID      string `json:"app_id,omitempty"`
	PolicyID   string `json:"policy_id,omitempty"`
	PolicyName string `json:"policy_name,omitempty"`
	Decision   string `json:"decision,omitempty"`
	// ServiceToken is "valid", "invalid" (headers sent but unknown, wrong
	// secret or expired) or "" (no headers).
	ServiceToken string `json:"service_token,omitempty"`
	Reason       string `json:"reason"`
}

// Evaluate decides an AccessRequest the way Cloudflare documents Access
// policy enforcement: Bypass and Service Auth (non_identity) policies are
// evaluated first, in precedence order, and need no login; then, for a
// client with an identity, Allow and Block (deny) policies in precedence
// order, the first match deciding. Access denies by default. A service
// token counts only in Service Auth policies: in an Allow policy it still
// sends the client to the login page.
func (s *Server) Evaluate(req AccessRequest) AccessDecision {
	s.mu.Lock()
	defer s.mu.Unlock()
	app := s.findAccessApp(req)
	if app == nil {
		return AccessDecision{Allowed: true, Outcome: OutcomeUnprotected, Status: 200, Reason: "no Access application covers the hostname"}
	}
	ev := evaluation{s: s, app: app, req: req, email: strings.ToLower(strings.TrimSpace(req.Email))}
	ev.token, ev.tokenState = s.validServiceToken(app.account, req.ClientID, req.ClientSecret)
	out := AccessDecision{AppID: app.a.ID, ServiceToken: ev.tokenState}

	policies := s.appPolicies(app)
	sort.SliceStable(policies, func(i, j int) bool { return policies[i].Precedence < policies[j].Precedence })
	for _, p := range policies {
		if (p.Decision == "bypass" || p.Decision == "non_identity") && ev.matches(p, false) {
			return out.decided(p, OutcomeAllowed, 200, p.Decision+" policy matched")
		}
	}
	if ev.email == "" {
		if ev.tokenState != "" && app.a.ServiceAuth401Redirect {
			return out.decided(AccessPolicy{}, OutcomeUnauthorized, 401, "service token not admitted by any Service Auth policy")
		}
		return out.decided(AccessPolicy{}, OutcomeLoginRequired, 302, "no Bypass or Service Auth policy matched and the client has not logged in")
	}
	for _, p := range policies {
		if (p.Decision == "allow" || p.Decision == "deny") && ev.matches(p, true) {
			if p.Decision == "allow" {
				return out.decided(p, OutcomeAllowed, 200, "allow policy matched")
			}
			return out.decided(p, OutcomeDenied, 403, "block policy matched")
		}
	}
	return out.decided(AccessPolicy{}, OutcomeDenied, 403, "no policy admits this identity (Access denies by default)")
}

func (d AccessDecision) decided(p AccessPolicy, outcome string, status int, reason string) AccessDecision {
	d.Allowed = outcome == OutcomeAllowed
	d.Outcome, d.Status, d.Reason = outcome, status, reason
	d.PolicyID, d.PolicyName, d.Decision = p.ID, p.Name, p.Decision
	return d
}

// findAccessApp picks the application for the request: by ID, else the
// self-hosted application whose domain is the hostname, else one whose
// "*." domain covers it (one label deep, as Access wildcards do).
func (s *Server) findAccessApp(req AccessRequest) *appRec {
	inAccount := func(a *appRec) bool { return req.AccountID == "" || a.account == req.AccountID }
	if req.AppID != "" {
		id := strings.ToLower(req.AppID)
		return find(s.st.apps, func(a *appRec) bool { return a.a.ID == id && inAccount(a) })
	}
	host, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(req.Hostname)), "/")
	appHost := func(a *appRec) string { h, _, _ := strings.Cut(a.a.Domain, "/"); return h }
	if app := find(s.st.apps, func(a *appRec) bool { return inAccount(a) && appHost(a) == host }); app != nil {
		return app
	}
	_, parent, ok := strings.Cut(host, ".")
	if !ok {
		return nil
	}
	return find(s.st.apps, func(a *appRec) bool { return inAccount(a) && appHost(a) == "*."+parent })
}

// validServiceToken checks CF-Access-Client-Id/Secret against the
// account's service tokens. state is "" without headers, "valid" or
// "invalid".
func (s *Server) validServiceToken(account, clientID, secret string) (tok *serviceTokenRec, state string) {
	if clientID == "" && secret == "" {
		return nil, ""
	}
	t := find(s.st.serviceTokens, func(t *serviceTokenRec) bool { return t.account == account && t.t.ClientID == clientID })
	if t == nil {
		return nil, "invalid"
	}
	sum := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(sum[:], t.secretHash[:]) != 1 {
		return nil, "invalid"
	}
	if t.t.ExpiresAt != nil {
		if exp, err := time.Parse(time.RFC3339Nano, *t.t.ExpiresAt); err == nil && !s.now().Before(exp) {
			return nil, "invalid"
		}
	}
	return t, "valid"
}

// evaluation holds what one request brings to rule matching.
type evaluation struct {
	s          *Server
	app        *appRec
	req        AccessRequest
	email      string
	token      *serviceTokenRec
	tokenState string
}

// matches applies a policy's include (any), require (all) and exclude
// (none). identity says whether identity selectors may match: they cannot
// in Bypass and Service Auth policies, which run before any login.
func (ev evaluation) matches(p AccessPolicy, identity bool) bool {
	return ev.ruleSet(p.Include, p.Require, p.Exclude, identity, 0)
}

func (ev evaluation) ruleSet(include, require, exclude []map[string]any, identity bool, depth int) bool {
	if len(include) == 0 {
		return false
	}
	matched := false
	for _, r := range include {
		if ev.rule(r, identity, depth) {
			matched = true
			break
		}
	}
	if !matched {
		return false
	}
	for _, r := range require {
		if !ev.rule(r, identity, depth) {
			return false
		}
	}
	for _, r := range exclude {
		if ev.rule(r, identity, depth) {
			return false
		}
	}
	return true
}

// rule matches one selector. Selectors the simulator cannot evaluate (IdP
// groups, device posture, certificates, lists, login methods) never match.
func (ev evaluation) rule(r map[string]any, identity bool, depth int) bool {
	for kind, raw := range r {
		body, _ := raw.(map[string]any)
		str := func(k string) string { v, _ := body[k].(string); return v }
		switch kind {
		case "everyone":
			return !identity || ev.email != ""
		case "email":
			return identity && ev.email != "" && strings.EqualFold(str("email"), ev.email)
		case "email_domain":
			return identity && strings.HasSuffix(ev.email, "@"+strings.ToLower(strings.TrimPrefix(str("domain"), "@")))
		case "group":
			return depth < 4 && ev.group(str("id"), identity, depth+1)
		case "service_token":
			return ev.token != nil && ev.token.t.ID == str("token_id")
		case "any_valid_service_token":
			return ev.token != nil
		case "ip":
			return ipMatches(str("ip"), ev.req.IP)
		case "geo":
			return ev.req.Country != "" && strings.EqualFold(str("country_code"), ev.req.Country)
		}
	}
	return false
}

func (ev evaluation) group(id string, identity bool, depth int) bool {
	g := find(ev.s.st.groups, func(g *groupRec) bool { return g.account == ev.app.account && g.g.ID == id })
	return g != nil && ev.ruleSet(g.g.Include, g.g.Require, g.g.Exclude, identity, depth)
}

func ipMatches(rule, ip string) bool {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	if p, err := netip.ParsePrefix(rule); err == nil {
		return p.Contains(addr)
	}
	a, err := netip.ParseAddr(rule)
	return err == nil && a == addr
}
