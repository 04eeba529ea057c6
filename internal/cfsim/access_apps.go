package cfsim

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

type appRec struct {
	account string
	a       AccessApplication // Policies is filled in by appView
	links   []policyLink      // reusable policies attached to the app
}

type policyLink struct {
	id         string
	precedence int
}

func (a *appRec) linkPrecedence(id string) int {
	for _, l := range a.links {
		if l.id == id {
			return l.precedence
		}
	}
	return 0
}

// AccessApplication is an Access application as the v4 API returns it.
type AccessApplication struct {
	ID                       string           `json:"id"`
	AUD                      string           `json:"aud"`
	Name                     string           `json:"name"`
	Domain                   string           `json:"domain"`
	Type                     string           `json:"type"`
	SessionDuration          string           `json:"session_duration"`
	SelfHostedDomains        []string         `json:"self_hosted_domains"`
	Destinations             []map[string]any `json:"destinations"`
	AllowedIdPs              []string         `json:"allowed_idps"`
	AutoRedirectToIdentity   bool             `json:"auto_redirect_to_identity"`
	AppLauncherVisible       bool             `json:"app_launcher_visible"`
	SkipInterstitial         bool             `json:"skip_interstitial"`
	ServiceAuth401Redirect   bool             `json:"service_auth_401_redirect"`
	EnableBindingCookie      bool             `json:"enable_binding_cookie"`
	HTTPOnlyCookieAttribute  bool             `json:"http_only_cookie_attribute"`
	SameSiteCookieAttribute  string           `json:"same_site_cookie_attribute,omitempty"`
	PathCookieAttribute      bool             `json:"path_cookie_attribute"`
	OptionsPreflightBypass   bool             `json:"options_preflight_bypass"`
	CustomDenyMessage        string           `json:"custom_deny_message,omitempty"`
	CustomDenyURL            string           `json:"custom_deny_url,omitempty"`
	CustomNonIdentityDenyURL string           `json:"custom_non_identity_deny_url,omitempty"`
	LogoURL                  string           `json:"logo_url,omitempty"`
	Tags                     []string         `json:"tags"`
	Policies                 []AccessPolicy   `json:"policies"`
	CreatedAt                string           `json:"created_at"`
	UpdatedAt                string           `json:"updated_at"`
}

// appInput is a create/replace body. Nil means absent: PUT replaces the
// whole application, so absent settings return to their defaults, except
// policies, whose absence leaves the links untouched.
type appInput struct {
	Name                     *string   `json:"name"`
	Domain                   *string   `json:"domain"`
	Type                     *string   `json:"type"`
	SessionDuration          *string   `json:"session_duration"`
	SelfHostedDomains        *[]string `json:"self_hosted_domains"`
	Destinations             *[]any    `json:"destinations"`
	AllowedIdPs              *[]string `json:"allowed_idps"`
	AutoRedirectToIdentity   *bool     `json:"auto_redirect_to_identity"`
	AppLauncherVisible       *bool     `json:"app_launcher_visible"`
	SkipInterstitial         *bool     `json:"skip_interstitial"`
	ServiceAuth401Redirect   *bool     `json:"service_auth_401_redirect"`
	EnableBindingCookie      *bool     `json:"enable_binding_cookie"`
	HTTPOnlyCookieAttribute  *bool     `json:"http_only_cookie_attribute"`
	SameSiteCookieAttribute  *string   `json:"same_site_cookie_attribute"`
	PathCookieAttribute      *bool     `json:"path_cookie_attribute"`
	OptionsPreflightBypass   *bool     `json:"options_preflight_bypass"`
	CustomDenyMessage        *string   `json:"custom_deny_message"`
	CustomDenyURL            *string   `json:"custom_deny_url"`
	CustomNonIdentityDenyURL *string   `json:"custom_non_identity_deny_url"`
	LogoURL                  *string   `json:"logo_url"`
	Tags                     *[]string `json:"tags"`
	Policies                 *[]any    `json:"policies"`
}

// domainAppTypes are the application types the simulator models; each is
// fronted by a hostname on one of the account's zones.
var domainAppTypes = map[string]bool{"self_hosted": true, "ssh": true, "vnc": true, "rdp": true}

// otherAppTypes exist on Cloudflare but are not simulated.
var otherAppTypes = map[string]bool{
	"saas": true, "app_launcher": true, "warp": true, "biso": true, "bookmark": true,
	"dash_sso": true, "infrastructure": true, "mcp": true, "mcp_portal": true, "proxy_endpoint": true,
}

func (s *Server) registerAccessAppRoutes() {
	base := "/accounts/{account}/access/apps"
	s.api.add(http.MethodGet, base, s.listApps)
	s.api.add(http.MethodPost, base, s.createApp)
	s.api.add(http.MethodGet, base+"/{app}", s.getApp)
	s.api.add(http.MethodPut, base+"/{app}", s.updateApp)
	s.api.add(http.MethodDelete, base+"/{app}", s.deleteApp)
}

func (c *call) app() (*appRec, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	id := strings.ToLower(c.param("app"))
	app := find(c.s.st.apps, func(x *appRec) bool { return x.account == a.id && x.a.ID == id })
	if app == nil {
		return nil, errAccessNotFound()
	}
	return app, nil
}

func (s *Server) appView(app *appRec) AccessApplication {
	v := app.a
	v.Policies = s.appPolicies(app)
	return v
}

// listApps answers GET .../access/apps with the name, domain, aud and
// search filters. name and domain match as case-insensitive substrings
// unless exact=true (Cloudflare documents exact as "only exact string
// matches against passed name/domain"; what the inexact match is exactly
// is not documented, so the simulator takes the broader reading).
func (s *Server) listApps(c *call) (any, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	q := c.query
	exact := q.Get("exact") == "true"
	matches := func(want, have string) bool {
		if want == "" {
			return true
		}
		if exact {
			return have == want
		}
		return strings.Contains(strings.ToLower(have), strings.ToLower(want))
	}
	var out []AccessApplication
	for _, app := range s.st.apps {
		v := app.a
		switch {
		case app.account != a.id:
		case !matches(q.Get("name"), v.Name):
		case !matches(strings.ToLower(q.Get("domain")), v.Domain):
		case q.Get("aud") != "" && v.AUD != q.Get("aud"):
		case !matchesSearch(q.Get("search"), v.Name, v.Domain):
		default:
			out = append(out, s.appView(app))
		}
	}
	return paginate(c, out, pagesAccess), nil
}

func (s *Server) getApp(c *call) (any, error) {
	app, err := c.app()
	if err != nil {
		return nil, err
	}
	return s.appView(app), nil
}

func (s *Server) createApp(c *call) (any, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	var in appInput
	if err := c.decode(&in, accessInvalid); err != nil {
		return nil, err
	}
	now := s.stampNow()
	app := &appRec{account: a.id, a: AccessApplication{
		ID: s.ids.UUID(), AUD: hex.EncodeToString(s.ids.Secret()), CreatedAt: now,
	}}
	if apiErr := s.applyAppInput(app, in); apiErr != nil {
		return nil, apiErr
	}
	s.st.apps = append(s.st.apps, app)
	c.created()
	return s.appView(app), nil
}

func (s *Server) updateApp(c *call) (any, error) {
	app, err := c.app()
	if err != nil {
		return nil, err
	}
	var in appInput
	if err := c.decode(&in, accessInvalid); err != nil {
		return nil, err
	}
	next := &appRec{account: app.account, links: app.links, a: AccessApplication{
		ID: app.a.ID, AUD: app.a.AUD, CreatedAt: app.a.CreatedAt,
	}}
	if apiErr := s.applyAppInput(next, in); apiErr != nil {
		return nil, apiErr
	}
	*app = *next
	return s.appView(app), nil
}

// deleteApp removes the application and the policies it owns; reusable
// policies it linked survive.
func (s *Server) deleteApp(c *call) (any, error) {
	app, err := c.app()
	if err != nil {
		return nil, err
	}
	s.st.policies = filter(s.st.policies, func(p *policyRec) bool { return p.app != app.a.ID })
	s.st.apps = remove(s.st.apps, app)
	return map[string]string{"id": app.a.ID}, nil
}

// applyAppInput validates in and writes it over app (whose ID, AUD and
// created_at are already set), applying Cloudflare's defaults.
func (s *Server) applyAppInput(app *appRec, in appInput) *apiError {
	v := &app.a
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return strings.TrimSpace(*p)
	}
	flag := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	v.Type = str(in.Type)
	switch {
	case otherAppTypes[v.Type]:
		return accessInvalid(fmt.Sprintf("app type %q is not supported by the cfsim simulator", v.Type))
	case !domainAppTypes[v.Type]:
		return accessInvalid("app type is missing or invalid")
	}
	v.Name = str(in.Name)
	if v.Name == "" {
		return accessInvalid("name is required")
	}
	if err := s.applyAppDomain(app, in); err != nil {
		return err
	}
	v.SessionDuration = "24h"
	if d := str(in.SessionDuration); d != "" {
		if !validDuration(d) {
			return accessInvalid("session_duration must be a duration such as 24h or 30m")
		}
		v.SessionDuration = d
	}
	v.AllowedIdPs = []string{}
	if in.AllowedIdPs != nil {
		for _, id := range *in.AllowedIdPs {
			if find(s.st.idps, func(p *idpRec) bool { return p.account == app.account && p.p.ID == id }) == nil {
				return accessInvalid(fmt.Sprintf("allowed_idps: identity provider %q not found", id))
			}
			v.AllowedIdPs = append(v.AllowedIdPs, id)
		}
	}
	v.SameSiteCookieAttribute = strings.ToLower(str(in.SameSiteCookieAttribute))
	switch v.SameSiteCookieAttribute {
	case "", "strict", "lax", "none":
	default:
		return accessInvalid("same_site_cookie_attribute must be strict, lax or none")
	}
	v.AutoRedirectToIdentity = flag(in.AutoRedirectToIdentity, false)
	v.AppLauncherVisible = flag(in.AppLauncherVisible, true)
	v.SkipInterstitial = flag(in.SkipInterstitial, false)
	v.ServiceAuth401Redirect = flag(in.ServiceAuth401Redirect, false)
	v.EnableBindingCookie = flag(in.EnableBindingCookie, false)
	v.HTTPOnlyCookieAttribute = flag(in.HTTPOnlyCookieAttribute, true)
	v.PathCookieAttribute = flag(in.PathCookieAttribute, false)
	v.OptionsPreflightBypass = flag(in.OptionsPreflightBypass, false)
	v.CustomDenyMessage = str(in.CustomDenyMessage)
	for field, target := range map[string]*string{
		"custom_deny_url": in.CustomDenyURL, "custom_non_identity_deny_url": in.CustomNonIdentityDenyURL, "logo_url": in.LogoURL,
	} {
		if u := str(target); u != "" && !isHTTPURL(u) {
			return accessInvalid(fmt.Sprintf("%s must be an absolute http(s) URL", field))
		}
	}
	v.CustomDenyURL, v.CustomNonIdentityDenyURL, v.LogoURL = str(in.CustomDenyURL), str(in.CustomNonIdentityDenyURL), str(in.LogoURL)
	v.Tags = []string{}
	if in.Tags != nil {
		v.Tags = append(v.Tags, (*in.Tags)...)
	}
	if in.Policies != nil {
		if err := s.applyAppPolicies(app, *in.Policies); err != nil {
			return err
		}
	}
	v.UpdatedAt = s.stampNow()
	return nil
}

// applyAppDomain takes the hostname from domain, or else from the first
// self_hosted_domains entry or public destination, and requires it to sit
// on an active zone of the account, as Cloudflare does.
func (s *Server) applyAppDomain(app *appRec, in appInput) *apiError {
	domain := ""
	switch {
	case in.Domain != nil && strings.TrimSpace(*in.Domain) != "":
		domain = *in.Domain
	case in.SelfHostedDomains != nil && len(*in.SelfHostedDomains) > 0:
		domain = (*in.SelfHostedDomains)[0]
	case in.Destinations != nil:
		for _, d := range *in.Destinations {
			if m, ok := d.(map[string]any); ok && (m["type"] == nil || m["type"] == "public") {
				if uri, ok := m["uri"].(string); ok && uri != "" {
					domain = uri
					break
				}
			}
		}
	}
	domain = strings.ToLower(strings.TrimSpace(domain))
	if domain == "" {
		return accessInvalid("domain is required")
	}
	host, _, _ := strings.Cut(domain, "/")
	host = strings.TrimPrefix(host, "*.")
	if strings.Contains(host, ":") || strings.Contains(host, "*") {
		return accessInvalid("domain is invalid")
	}
	onZone := find(s.st.zones, func(z *zoneRec) bool {
		return z.account == app.account && z.status == "active" && (host == z.name || strings.HasSuffix(host, "."+z.name))
	})
	if onZone == nil {
		return accessInvalid("domain does not belong to zone")
	}
	app.a.Domain = domain
	app.a.SelfHostedDomains = []string{domain}
	app.a.Destinations = []map[string]any{{"type": "public", "uri": domain}}
	return nil
}

// applyAppPolicies replaces the reusable-policy links from a policies array
// of IDs or {id, precedence} objects. Listing one of the app's own
// app-scoped policies sets its precedence. Precedence defaults to position.
func (s *Server) applyAppPolicies(app *appRec, items []any) *apiError {
	type want struct {
		id   string
		prec int
	}
	var wants []want
	for i, item := range items {
		w := want{prec: i + 1}
		switch x := item.(type) {
		case string:
			w.id = x
		case map[string]any:
			w.id, _ = x["id"].(string)
			if p, ok := x["precedence"].(float64); ok {
				w.prec = int(p)
			}
		}
		w.id = strings.ToLower(strings.TrimSpace(w.id))
		if w.id == "" || w.prec < 1 {
			return accessInvalid(fmt.Sprintf("policies[%d] must be a policy ID or {id, precedence} with a positive precedence", i))
		}
		wants = append(wants, w)
	}
	seenID, seenPrec := map[string]bool{}, map[int]bool{}
	var links []policyLink
	own := map[string]int{}
	for _, w := range wants {
		if seenID[w.id] {
			return accessInvalid(fmt.Sprintf("policy %s is listed twice", w.id))
		}
		if seenPrec[w.prec] {
			return accessInvalid("precedence must be unique for each policy within an application")
		}
		seenID[w.id], seenPrec[w.prec] = true, true
		p := find(s.st.policies, func(p *policyRec) bool { return p.account == app.account && p.p.ID == w.id })
		switch {
		case p == nil || p.app != "" && p.app != app.a.ID:
			return accessInvalid(fmt.Sprintf("policy %s not found", w.id))
		case p.app == app.a.ID:
			own[p.p.ID] = w.prec
		default:
			links = append(links, policyLink{id: w.id, precedence: w.prec})
		}
	}
	// App-scoped policies not listed keep their precedence, which must not
	// collide with the listed ones.
	for _, p := range s.st.policies {
		if p.app != app.a.ID {
			continue
		}
		if _, listed := own[p.p.ID]; !listed && seenPrec[p.precedence] {
			return accessInvalid("precedence must be unique for each policy within an application")
		}
	}
	for _, p := range s.st.policies {
		if prec, ok := own[p.p.ID]; ok {
			p.precedence = prec
		}
	}
	app.links = links
	return nil
}

func isHTTPURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
