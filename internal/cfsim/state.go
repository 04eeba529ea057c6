package cfsim

import (
	"encoding/json"
	"fmt"
)

// redacted replaces secrets in state dumps.
const redacted = "[redacted]"

// StateDump is a snapshot of every simulated object, for assertions in Go
// tests and for GET /__admin/state. Secrets are redacted: API tokens are
// only counted, tunnel secrets and identity-provider client secrets are
// masked, and service-token client secrets are never stored at all.
type StateDump struct {
	Accounts           []AccountState             `json:"accounts"`
	Zones              []Zone                     `json:"zones"`
	Tunnels            []TunnelState              `json:"tunnels"`
	DNSRecords         []Owned[DNSRecord]         `json:"dns_records"`
	AccessApplications []Owned[AccessApplication] `json:"access_applications"`
	AccessPolicies     []PolicyState              `json:"access_policies"`
	AccessGroups       []Owned[AccessGroup]       `json:"access_groups"`
	ServiceTokens      []Owned[ServiceToken]      `json:"service_tokens"`
	IdentityProviders  []Owned[IdentityProvider]  `json:"identity_providers"`
}

// AccountState is an account with the number (never the values) of its
// API tokens.
type AccountState struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
}

// Owned pairs an object with the account or zone it belongs to.
type Owned[T any] struct {
	AccountID string `json:"account_id,omitempty"`
	ZoneID    string `json:"zone_id,omitempty"`
	Object    T      `json:"object"`
}

// TunnelState is a tunnel with its remote configuration and a redacted
// secret.
type TunnelState struct {
	AccountID     string              `json:"account_id"`
	Tunnel        Tunnel              `json:"tunnel"`
	Configuration TunnelConfiguration `json:"configuration"`
	TunnelSecret  string              `json:"tunnel_secret"`
}

// PolicyState is an Access policy with its owner: AppID is set for
// app-scoped policies and empty for reusable ones.
type PolicyState struct {
	AccountID  string       `json:"account_id"`
	AppID      string       `json:"app_id,omitempty"`
	Precedence int          `json:"precedence,omitempty"`
	Policy     AccessPolicy `json:"policy"`
}

// State returns a deep copy of every simulated object.
func (s *Server) State() StateDump {
	s.mu.Lock()
	raw := mustJSON(s.buildState())
	s.mu.Unlock()
	// Round-tripping through JSON yields a copy that shares nothing with
	// the live store and looks exactly like GET /__admin/state.
	var out StateDump
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(fmt.Sprintf("cfsim: copying state: %v", err))
	}
	return out
}

// stateJSON renders the dump for the admin endpoint.
func (s *Server) stateJSON() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return mustJSON(s.buildState())
}

func (s *Server) buildState() StateDump {
	st := s.st
	d := StateDump{
		Accounts: []AccountState{}, Zones: []Zone{}, Tunnels: []TunnelState{}, DNSRecords: []Owned[DNSRecord]{},
		AccessApplications: []Owned[AccessApplication]{}, AccessPolicies: []PolicyState{},
		AccessGroups: []Owned[AccessGroup]{}, ServiceTokens: []Owned[ServiceToken]{}, IdentityProviders: []Owned[IdentityProvider]{},
	}
	for _, a := range st.accounts {
		d.Accounts = append(d.Accounts, AccountState{ID: a.id, Name: a.name, Tokens: a.tokens})
	}
	for _, z := range st.zones {
		d.Zones = append(d.Zones, s.zoneView(z))
	}
	for _, t := range st.tunnels {
		d.Tunnels = append(d.Tunnels, TunnelState{AccountID: t.account, Tunnel: t.t, Configuration: t.configView(), TunnelSecret: redacted})
	}
	for _, r := range st.dns {
		d.DNSRecords = append(d.DNSRecords, Owned[DNSRecord]{ZoneID: r.zone, Object: r.r})
	}
	for _, a := range st.apps {
		d.AccessApplications = append(d.AccessApplications, Owned[AccessApplication]{AccountID: a.account, Object: s.appView(a)})
	}
	for _, p := range st.policies {
		withCount := p.app == ""
		d.AccessPolicies = append(d.AccessPolicies, PolicyState{
			AccountID: p.account, AppID: p.app, Precedence: p.precedence, Policy: s.policyView(p, p.precedence, withCount),
		})
	}
	for _, g := range st.groups {
		d.AccessGroups = append(d.AccessGroups, Owned[AccessGroup]{AccountID: g.account, Object: g.g})
	}
	for _, t := range st.serviceTokens {
		d.ServiceTokens = append(d.ServiceTokens, Owned[ServiceToken]{AccountID: t.account, Object: t.t})
	}
	for _, p := range st.idps {
		v := p.p
		v.Config = redactConfig(v.Config)
		d.IdentityProviders = append(d.IdentityProviders, Owned[IdentityProvider]{AccountID: p.account, Object: v})
	}
	return d
}

func redactConfig(cfg map[string]any) map[string]any {
	out := make(map[string]any, len(cfg))
	for k, v := range cfg {
		if secretConfigKeys[k] {
			v = redacted
		}
		out[k] = v
	}
	return out
}
