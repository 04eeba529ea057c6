package cfsim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// defaultServiceTokenDuration is Cloudflare's default: one year, in hours.
const defaultServiceTokenDuration = "8760h"

type serviceTokenRec struct {
	account string
	t       ServiceToken
	// secretHash is the SHA-256 of the client secret: enough for the
	// evaluation endpoint to check CF-Access-Client-Secret, and never
	// dumped or returned.
	secretHash [sha256.Size]byte
}

// ServiceToken is an Access service token as the v4 API lists it. The
// client secret is not part of it: Cloudflare returns the secret once, in
// the create response, and the simulator does not keep it at all.
type ServiceToken struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	ClientID   string  `json:"client_id"`
	Duration   string  `json:"duration"`
	ExpiresAt  *string `json:"expires_at"`
	LastSeenAt *string `json:"last_seen_at"`
	CreatedAt  string  `json:"created_at"`
	UpdatedAt  string  `json:"updated_at"`
}

// serviceTokenCreated is the create response, the only one with the secret.
type serviceTokenCreated struct {
	ServiceToken
	ClientSecret string `json:"client_secret"`
}

type serviceTokenInput struct {
	Name     *string `json:"name"`
	Duration *string `json:"duration"`
}

func (s *Server) registerServiceTokenRoutes() {
	base := "/accounts/{account}/access/service_tokens"
	s.api.add(http.MethodGet, base, s.listServiceTokens)
	s.api.add(http.MethodPost, base, s.createServiceToken)
	s.api.add(http.MethodGet, base+"/{token}", s.getServiceToken)
	s.api.add(http.MethodPut, base+"/{token}", s.updateServiceToken)
	s.api.add(http.MethodDelete, base+"/{token}", s.deleteServiceToken)
}

func (c *call) serviceToken() (*serviceTokenRec, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	id := strings.ToLower(c.param("token"))
	t := find(c.s.st.serviceTokens, func(t *serviceTokenRec) bool { return t.account == a.id && t.t.ID == id })
	if t == nil {
		return nil, errAccessNotFound()
	}
	return t, nil
}

// listServiceTokens answers GET .../service_tokens with the name and search
// filters.
func (s *Server) listServiceTokens(c *call) (any, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	var out []ServiceToken
	for _, t := range s.st.serviceTokens {
		if t.account != a.id {
			continue
		}
		if name := c.query.Get("name"); name != "" && t.t.Name != name {
			continue
		}
		if !matchesSearch(c.query.Get("search"), t.t.Name) {
			continue
		}
		out = append(out, t.t)
	}
	return paginate(c, out, pagesAccess), nil
}

func (s *Server) getServiceToken(c *call) (any, error) {
	t, err := c.serviceToken()
	if err != nil {
		return nil, err
	}
	return t.t, nil
}

// createServiceToken mints a client ID ("<32 hex>.access") and a 64-hex
// client secret, returning the secret this once.
func (s *Server) createServiceToken(c *call) (any, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	var in serviceTokenInput
	if err := c.decode(&in, accessInvalid); err != nil {
		return nil, err
	}
	name, duration, apiErr := serviceTokenFields(in, defaultServiceTokenDuration)
	if apiErr != nil {
		return nil, apiErr
	}
	now := s.now()
	rec := &serviceTokenRec{account: a.id, t: ServiceToken{
		ID: s.ids.UUID(), Name: name, ClientID: s.ids.Hex32() + ".access",
		CreatedAt: stamp(now), UpdatedAt: stamp(now),
	}}
	rec.setDuration(duration, now)
	secret := hex.EncodeToString(s.ids.Secret())
	rec.secretHash = sha256.Sum256([]byte(secret))
	s.st.serviceTokens = append(s.st.serviceTokens, rec)
	c.created()
	return serviceTokenCreated{ServiceToken: rec.t, ClientSecret: secret}, nil
}

// updateServiceToken renames the token and/or changes its duration, which
// restarts its validity from now.
func (s *Server) updateServiceToken(c *call) (any, error) {
	t, err := c.serviceToken()
	if err != nil {
		return nil, err
	}
	var in serviceTokenInput
	if err := c.decode(&in, accessInvalid); err != nil {
		return nil, err
	}
	if in.Name == nil {
		in.Name = &t.t.Name
	}
	name, duration, apiErr := serviceTokenFields(in, t.t.Duration)
	if apiErr != nil {
		return nil, apiErr
	}
	now := s.now()
	t.t.Name = name
	if in.Duration != nil {
		t.setDuration(duration, now)
	}
	t.t.UpdatedAt = stamp(now)
	return t.t, nil
}

// deleteServiceToken refuses while an Access policy or group still names
// the token in a rule: Cloudflare will not delete a token a policy
// references, so a rotation must create the new token and repoint the
// policy before it removes the old one.
func (s *Server) deleteServiceToken(c *call) (any, error) {
	t, err := c.serviceToken()
	if err != nil {
		return nil, err
	}
	if users := s.serviceTokenUsers(t); len(users) > 0 {
		return nil, accessInvalid(fmt.Sprintf("service token %s is still referenced by %s; remove it from them first", t.t.ID, strings.Join(users, ", ")))
	}
	s.st.serviceTokens = remove(s.st.serviceTokens, t)
	return t.t, nil
}

// serviceTokenUsers names the policies and groups whose rules reference t.
func (s *Server) serviceTokenUsers(t *serviceTokenRec) []string {
	var users []string
	for _, p := range s.st.policies {
		if p.account == t.account && rulesReferenceToken(t.t.ID, p.p.Include, p.p.Exclude, p.p.Require) {
			users = append(users, "policy "+p.p.ID)
		}
	}
	for _, g := range s.st.groups {
		if g.account == t.account && rulesReferenceToken(t.t.ID, g.g.Include, g.g.Exclude, g.g.Require) {
			users = append(users, "group "+g.g.ID)
		}
	}
	sort.Strings(users)
	return users
}

func rulesReferenceToken(id string, lists ...[]map[string]any) bool {
	for _, rules := range lists {
		for _, r := range rules {
			if body, ok := r["service_token"].(map[string]any); ok && body["token_id"] == id {
				return true
			}
		}
	}
	return false
}

func serviceTokenFields(in serviceTokenInput, defaultDuration string) (name, duration string, err *apiError) {
	if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
		return "", "", accessInvalid("name is required")
	}
	duration = defaultDuration
	if in.Duration != nil && *in.Duration != "" {
		duration = *in.Duration
	}
	if duration != "forever" {
		d, perr := time.ParseDuration(duration)
		if perr != nil || d <= 0 {
			return "", "", accessInvalid(`duration must be a positive duration such as 8760h, or "forever"`)
		}
	}
	return strings.TrimSpace(*in.Name), duration, nil
}

func (t *serviceTokenRec) setDuration(duration string, now time.Time) {
	t.t.Duration = duration
	t.t.ExpiresAt = nil
	if d, err := time.ParseDuration(duration); err == nil {
		exp := stamp(now.Add(d))
		t.t.ExpiresAt = &exp
	}
}
