package cfsim

import (
	"fmt"
	"net/http"
	"strings"
)

// bearerToken extracts the API token from "Authorization: Bearer <token>".
// The scheme is matched case-insensitively, like most HTTP servers do.
func bearerToken(r *http.Request) string {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// knownToken reports whether token was seeded for at least one account.
func (st *store) knownToken(token string) bool {
	return token != "" && len(st.tokens[token]) > 0
}

// allowed reports whether the call's token may act on accountID. Tokens are
// scoped to the accounts (and so the zones) they were seeded under.
func (c *call) allowed(accountID string) bool {
	return c.s.st.tokens[c.token][accountID]
}

// account resolves the {account} path parameter. A malformed ID cannot be
// routed (7003); a well-formed ID the token does not own is indistinguishable
// from a missing one and is an authentication error, as on Cloudflare.
func (c *call) account() (*accountRec, error) {
	id := c.param("account")
	if !isHex32(id) {
		return nil, errCannotRoute(c.path)
	}
	a := find(c.s.st.accounts, func(a *accountRec) bool { return a.id == id })
	if a == nil || !c.allowed(a.id) {
		return nil, errAuth()
	}
	return a, nil
}

// zone resolves the {zone} path parameter: unknown zones cannot be routed;
// zones of accounts the token cannot act on are authentication errors.
func (c *call) zone() (*zoneRec, error) {
	id := c.param("zone")
	z := find(c.s.st.zones, func(z *zoneRec) bool { return z.id == id })
	if z == nil {
		return nil, errCannotRoute(c.path)
	}
	if !c.allowed(z.account) {
		return nil, errAuth()
	}
	return z, nil
}

func errCannotRoute(path string) *apiError {
	return newAPIError(http.StatusNotFound, codeBadObjectID,
		fmt.Sprintf("Could not route to %s, perhaps your object identifier is invalid?", path))
}
