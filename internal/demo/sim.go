package demo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
	"github.com/cfzt/cfzt-runner/internal/e2e"
)

// demoTunnel names the seeded tunnel the sample tenant points at.
const demoTunnel = "cfzt-demo"

// simulator is the Cloudflare API simulator served on loopback.
type simulator struct {
	*cfsim.Server
	srv *http.Server
	// Base is the API base (CLOUDFLARE_API_BASE); Token the API token.
	Base, Token string
	AccountID   string
	TunnelID    string
}

// startSimulator serves cfsim on a free loopback port, seeded with the
// shared e2e account (e2e.DefaultSeed) adjusted to the sample tenant: its
// account ID, its tunnel ID and a zone for each sample hostname's domain.
func startSimulator(accountID, tunnelID string, zones []string) (*simulator, error) {
	token := "cfzt-demo-" + randomHex(16)
	seed := e2e.DefaultSeed(token)
	if accountID != "" {
		seed.Accounts[0].ID = accountID
		for i := range seed.Tunnels {
			seed.Tunnels[i].Account = accountID
		}
		for i := range seed.Zones {
			seed.Zones[i].Account = accountID
		}
		for i := range seed.AccessGroups {
			seed.AccessGroups[i].Account = accountID
		}
		for i := range seed.IdentityProviders {
			seed.IdentityProviders[i].Account = accountID
		}
	}
	if len(seed.Tunnels) > 0 {
		seed.Tunnels[0].Name = demoTunnel
		seed.Tunnels[0].ID = tunnelID
	}
	have := map[string]bool{}
	for _, z := range seed.Zones {
		have[z.Name] = true
	}
	for _, z := range zones {
		if !have[z] {
			have[z] = true
			seed.Zones = append(seed.Zones, cfsim.SeedZone{Name: z, Account: seed.Accounts[0].ID})
		}
	}
	server, err := cfsim.New(cfsim.WithSeed(seed))
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &simulator{Server: server, Token: token, AccountID: seed.Accounts[0].ID,
		Base: "http://" + l.Addr().String() + cfsim.APIPrefix,
		srv:  &http.Server{Handler: server, ReadHeaderTimeout: 10 * time.Second}}
	for _, t := range server.State().Tunnels {
		if t.Tunnel.Name == demoTunnel {
			s.TunnelID = t.Tunnel.ID
		}
	}
	go func() {
		if err := s.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the demo notices through failing requests
		}
	}()
	return s, nil
}

// stop shuts the server down.
func (s *simulator) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
