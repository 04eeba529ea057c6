package cfsim

import (
	"fmt"
	"net/http"
	"strings"
)

type idpRec struct {
	account string
	p       IdentityProvider
}

// IdentityProvider is an Access identity provider as the v4 API returns it.
type IdentityProvider struct {
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Config     map[string]any `json:"config"`
	SCIMConfig map[string]any `json:"scim_config,omitempty"`
}

// idpTypes are the identity provider types Cloudflare offers.
var idpTypes = map[string]bool{
	"onetimepin": true, "azureAD": true, "saml": true, "centrify": true, "facebook": true,
	"github": true, "google-apps": true, "google": true, "linkedin": true, "oidc": true,
	"okta": true, "onelogin": true, "pingone": true, "yandex": true,
}

// singletonIdPTypes may exist at most once per account.
var singletonIdPTypes = map[string]bool{"onetimepin": true}

// secretConfigKeys are redacted from state dumps.
var secretConfigKeys = map[string]bool{"client_secret": true, "secret": true, "private_key": true}

type idpInput struct {
	Name   *string         `json:"name"`
	Type   *string         `json:"type"`
	Config *map[string]any `json:"config"`
}

func (s *Server) registerIdentityProviderRoutes() {
	base := "/accounts/{account}/access/identity_providers"
	s.api.add(http.MethodGet, base, s.listIdPs)
	s.api.add(http.MethodPost, base, s.createIdP)
	s.api.add(http.MethodGet, base+"/{idp}", s.getIdP)
	s.api.add(http.MethodPut, base+"/{idp}", s.updateIdP)
	s.api.add(http.MethodDelete, base+"/{idp}", s.deleteIdP)
}

func (c *call) idp() (*idpRec, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	id := strings.ToLower(c.param("idp"))
	p := find(c.s.st.idps, func(p *idpRec) bool { return p.account == a.id && p.p.ID == id })
	if p == nil {
		return nil, errAccessNotFound()
	}
	return p, nil
}

func (s *Server) listIdPs(c *call) (any, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	var out []IdentityProvider
	for _, p := range s.st.idps {
		if p.account == a.id {
			out = append(out, p.p)
		}
	}
	return paginate(c, out, pagesAccess), nil
}

func (s *Server) getIdP(c *call) (any, error) {
	p, err := c.idp()
	if err != nil {
		return nil, err
	}
	return p.p, nil
}

func (s *Server) createIdP(c *call) (any, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	p, err := s.buildIdP(c, a.id, "")
	if err != nil {
		return nil, err
	}
	p.ID = s.ids.UUID()
	s.st.idps = append(s.st.idps, &idpRec{account: a.id, p: p})
	c.created()
	return p, nil
}

func (s *Server) updateIdP(c *call) (any, error) {
	rec, err := c.idp()
	if err != nil {
		return nil, err
	}
	p, err := s.buildIdP(c, rec.account, rec.p.ID)
	if err != nil {
		return nil, err
	}
	p.ID = rec.p.ID
	rec.p = p
	return p, nil
}

func (s *Server) deleteIdP(c *call) (any, error) {
	rec, err := c.idp()
	if err != nil {
		return nil, err
	}
	s.st.idps = remove(s.st.idps, rec)
	for _, app := range s.st.apps {
		app.a.AllowedIdPs = filterStrings(app.a.AllowedIdPs, rec.p.ID)
	}
	return map[string]string{"id": rec.p.ID}, nil
}

// buildIdP validates a create/replace body. One-time PIN is an
// account-wide login method, so a second one is refused.
func (s *Server) buildIdP(c *call, account, selfID string) (IdentityProvider, error) {
	var in idpInput
	if err := c.decode(&in, accessInvalid); err != nil {
		return IdentityProvider{}, err
	}
	p := IdentityProvider{Config: map[string]any{}}
	if in.Type != nil {
		p.Type = *in.Type
	}
	if !idpTypes[p.Type] {
		return p, accessInvalid(fmt.Sprintf("identity provider type %q is invalid", p.Type))
	}
	if in.Name == nil || strings.TrimSpace(*in.Name) == "" {
		return p, accessInvalid("name is required")
	}
	p.Name = strings.TrimSpace(*in.Name)
	if in.Config != nil && *in.Config != nil {
		p.Config = *in.Config
	}
	if singletonIdPTypes[p.Type] {
		dup := find(s.st.idps, func(o *idpRec) bool { return o.account == account && o.p.Type == p.Type && o.p.ID != selfID })
		if dup != nil {
			return p, accessInvalid(fmt.Sprintf("an identity provider of type %s already exists", p.Type))
		}
	}
	return p, nil
}

func filterStrings(in []string, drop string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}
