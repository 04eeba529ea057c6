package cfsim

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
)

// Account is an account as GET /accounts returns it.
type Account struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Type      string         `json:"type"`
	Settings  map[string]any `json:"settings"`
	CreatedOn string         `json:"created_on"`
}

// TokenStatus is the result of GET /user/tokens/verify.
type TokenStatus struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

func (s *Server) registerAccountRoutes() {
	s.api.add(http.MethodGet, "/accounts", s.listAccounts)
	s.api.add(http.MethodGet, "/accounts/{account}", s.getAccount)
	s.api.add(http.MethodGet, "/user/tokens/verify", s.verifyToken)
}

func (s *Server) accountView(a *accountRec) Account {
	return Account{ID: a.id, Name: a.name, Type: "standard", Settings: map[string]any{}, CreatedOn: a.createdOn}
}

// listAccounts answers GET /accounts: the token's accounts, optionally
// filtered by exact name.
func (s *Server) listAccounts(c *call) (any, error) {
	var out []Account
	for _, a := range s.st.accounts {
		if !c.allowed(a.id) {
			continue
		}
		if name := c.query.Get("name"); name != "" && a.name != name {
			continue
		}
		out = append(out, s.accountView(a))
	}
	return paginate(c, out, pagesAccounts), nil
}

func (s *Server) getAccount(c *call) (any, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	return s.accountView(a), nil
}

// verifyToken lets clients check a token before using it, as the roles'
// preflight does. The token ID is derived, never the token itself.
func (s *Server) verifyToken(c *call) (any, error) {
	return TokenStatus{ID: tokenID(c.token), Status: "active"}, nil
}

// tokenID is a stable, non-reversible identifier for a token.
func tokenID(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:16])
}
