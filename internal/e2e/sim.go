package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
)

// Fixed identities of DefaultSeed.
const (
	// AccountID is the seeded Cloudflare account.
	AccountID = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
	// TunnelName is the seeded remotely managed tunnel.
	TunnelName = "cfzt-e2e"
)

// Seeded zones and Access groups.
var (
	ZoneNames  = []string{"example.com", "example.co.uk"}
	GroupNames = []string{"Engineering", "Admins"}
)

// Sim is a Cloudflare simulator served on loopback. The embedded Server
// gives State, Requests, CountWrites, InjectFault, ResetLog and Reset.
type Sim struct {
	*cfsim.Server
	// URL is the server root (admin API under URL + "/__admin").
	URL string
	// Base is the API base, what CLOUDFLARE_API_BASE should be.
	Base string
	// AccountID and Token are the seeded account and its API token.
	AccountID string
	Token     string
	// TunnelID is the seeded tunnel's UUID.
	TunnelID string
	// Zones maps zone names to IDs; Groups maps Access group names to IDs.
	Zones  map[string]string
	Groups map[string]string
}

// DefaultSeed is one account (AccountID) whose API token is token, zones
// example.com and example.co.uk, the tunnel TunnelName, the Access groups
// Engineering and Admins, and the One-time PIN identity provider.
func DefaultSeed(token string) cfsim.Seed {
	seed := cfsim.Seed{
		Accounts: []cfsim.SeedAccount{{ID: AccountID, Name: "cfzt-e2e", Tokens: []string{token}}},
		Tunnels:  []cfsim.SeedTunnel{{Name: TunnelName, Account: AccountID}},
		IdentityProviders: []cfsim.SeedIdentityProvider{
			{Name: "One-time PIN", Type: "onetimepin", Account: AccountID, Config: map[string]any{}},
		},
	}
	for _, z := range ZoneNames {
		seed.Zones = append(seed.Zones, cfsim.SeedZone{Name: z, Account: AccountID})
	}
	for _, g := range GroupNames {
		seed.AccessGroups = append(seed.AccessGroups, cfsim.SeedAccessGroup{Name: g, Account: AccountID})
	}
	return seed
}

// StartSim starts a simulator seeded with DefaultSeed and a fresh random
// token (so a leaked token is recognisable in output), with rate limiting
// off unless opts set it. It is stopped by t.Cleanup. Later opts override
// earlier ones, so cfsim.WithSeed replaces the default seed (then the
// returned IDs are looked up by the default names and may be empty).
func StartSim(t testing.TB, opts ...cfsim.Option) *Sim {
	t.Helper()
	return StartSimWithSeed(t, nil, opts...)
}

// StartSimWithSeed is StartSim with DefaultSeed changed by extend (when not
// nil) first, e.g. to add DNS records or Access groups.
func StartSimWithSeed(t testing.TB, extend func(*cfsim.Seed), opts ...cfsim.Option) *Sim {
	t.Helper()
	token := "cfzt-e2e-token-" + randomHex(16)
	seed := DefaultSeed(token)
	if extend != nil {
		extend(&seed)
	}
	all := append([]cfsim.Option{cfsim.WithSeed(seed), cfsim.WithRateLimit(0, 0)}, opts...)
	srv, err := cfsim.New(all...)
	if err != nil {
		t.Fatalf("cfsim: %v", err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	s := &Sim{
		Server:    srv,
		URL:       ts.URL,
		Base:      ts.URL + cfsim.APIPrefix,
		AccountID: AccountID,
		Token:     token,
		Zones:     map[string]string{},
		Groups:    map[string]string{},
	}
	st := srv.State()
	for _, z := range st.Zones {
		s.Zones[z.Name] = z.ID
	}
	for _, tun := range st.Tunnels {
		if tun.Tunnel.Name == TunnelName {
			s.TunnelID = tun.Tunnel.ID
		}
	}
	for _, g := range st.AccessGroups {
		s.Groups[g.Object.Name] = g.Object.ID
	}
	return s
}

// Env is the environment that points the roles at this simulator
// (CLOUDFLARE_API_BASE), for RunPlaybook.
func (s *Sim) Env() map[string]string {
	return map[string]string{"CLOUDFLARE_API_BASE": s.Base}
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// EvaluateAccess sends req to the simulator's test-only evaluation endpoint
// (POST /__admin/evaluate) over HTTP, as a client outside the process
// would, and returns what Cloudflare Access would do with the request.
func (s *Sim) EvaluateAccess(ctx context.Context, req cfsim.AccessRequest) (cfsim.AccessDecision, error) {
	var out cfsim.AccessDecision
	body, err := json.Marshal(req)
	if err != nil {
		return out, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+cfsim.AdminPrefix+"evaluate", bytes.NewReader(body))
	if err != nil {
		return out, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return out, fmt.Errorf("evaluate: HTTP %d: %s", resp.StatusCode, b)
	}
	return out, json.NewDecoder(resp.Body).Decode(&out)
}
