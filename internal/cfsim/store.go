package cfsim

import (
	"fmt"
	"strings"
	"time"
)

// store is the simulator's whole mutable state. It is guarded by Server.mu;
// slices keep creation order so listings are stable.
type store struct {
	accounts      []*accountRec
	tokens        map[string]map[string]bool // token -> account IDs
	zones         []*zoneRec
	tunnels       []*tunnelRec
	dns           []*dnsRec
	apps          []*appRec
	policies      []*policyRec
	groups        []*groupRec
	serviceTokens []*serviceTokenRec
	idps          []*idpRec
}

type accountRec struct {
	id, name  string
	tokens    int // how many tokens; the tokens themselves are never dumped
	createdOn string
}

func find[T any](items []*T, pred func(*T) bool) *T {
	for _, it := range items {
		if pred(it) {
			return it
		}
	}
	return nil
}

func filter[T any](items []*T, keep func(*T) bool) []*T {
	out := make([]*T, 0, len(items))
	for _, it := range items {
		if keep(it) {
			out = append(out, it)
		}
	}
	return out
}

func remove[T any](items []*T, target *T) []*T {
	return filter(items, func(it *T) bool { return it != target })
}

// stamp formats t the way Cloudflare formats timestamps.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// resolveSeed validates seed and fills in every missing ID, so that Reset can
// rebuild exactly the same objects.
func resolveSeed(seed Seed, ids IDGenerator) (Seed, error) {
	out := Seed{}
	for _, a := range seed.Accounts {
		if a.ID == "" {
			a.ID = ids.Hex32()
		}
		if !isHex32(a.ID) {
			return Seed{}, fmt.Errorf("cfsim: seed account %q: id %q is not 32 lowercase hex digits", a.Name, a.ID)
		}
		if a.Name == "" {
			a.Name = "Account " + a.ID[:8]
		}
		a.Tokens = append([]string(nil), a.Tokens...)
		out.Accounts = append(out.Accounts, a)
	}
	acct := func(kind, name, ref string) (string, error) { return resolveAccount(out.Accounts, kind, name, ref) }
	for _, z := range seed.Zones {
		var err error
		if z.Account, err = acct("zone", z.Name, z.Account); err != nil {
			return Seed{}, err
		}
		z.Name = strings.TrimSuffix(strings.ToLower(z.Name), ".")
		if z.Name == "" {
			return Seed{}, fmt.Errorf("cfsim: seed zone without a name")
		}
		if z.ID == "" {
			z.ID = ids.Hex32()
		}
		if !isHex32(z.ID) {
			return Seed{}, fmt.Errorf("cfsim: seed zone %q: id %q is not 32 lowercase hex digits", z.Name, z.ID)
		}
		if z.Status == "" {
			z.Status = "active"
		}
		out.Zones = append(out.Zones, z)
	}
	for _, t := range seed.Tunnels {
		var err error
		if t.Account, err = acct("tunnel", t.Name, t.Account); err != nil {
			return Seed{}, err
		}
		if t.ID == "" {
			t.ID = ids.UUID()
		}
		if !isUUID(t.ID) {
			return Seed{}, fmt.Errorf("cfsim: seed tunnel %q: id %q is not a UUID", t.Name, t.ID)
		}
		if t.ConfigSrc == "" {
			t.ConfigSrc = "cloudflare"
		}
		t.secret = ids.Secret()
		out.Tunnels = append(out.Tunnels, t)
	}
	for _, r := range seed.DNSRecords {
		z := find(ptrs(out.Zones), func(z *SeedZone) bool { return z.ID == r.Zone || z.Name == strings.ToLower(r.Zone) })
		if z == nil {
			return Seed{}, fmt.Errorf("cfsim: seed DNS record %q: unknown zone %q", r.Name, r.Zone)
		}
		r.Zone = z.ID
		if r.ID == "" {
			r.ID = ids.Hex32()
		}
		out.DNSRecords = append(out.DNSRecords, r)
	}
	for _, g := range seed.AccessGroups {
		var err error
		if g.Account, err = acct("access group", g.Name, g.Account); err != nil {
			return Seed{}, err
		}
		if g.ID == "" {
			g.ID = ids.UUID()
		}
		if len(g.Include) == 0 {
			g.Include = []map[string]any{{"everyone": map[string]any{}}}
		}
		out.AccessGroups = append(out.AccessGroups, g)
	}
	for _, p := range seed.IdentityProviders {
		var err error
		if p.Account, err = acct("identity provider", p.Name, p.Account); err != nil {
			return Seed{}, err
		}
		if p.ID == "" {
			p.ID = ids.UUID()
		}
		if p.Config == nil {
			p.Config = map[string]any{}
		}
		out.IdentityProviders = append(out.IdentityProviders, p)
	}
	return out, nil
}

func ptrs[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// resolveAccount maps an account reference (ID, or unique name) to an ID.
// With a single account the reference may be omitted.
func resolveAccount(accounts []SeedAccount, kind, name, ref string) (string, error) {
	if ref == "" && len(accounts) == 1 {
		return accounts[0].ID, nil
	}
	var byName []string
	for _, a := range accounts {
		if a.ID == ref {
			return a.ID, nil
		}
		if a.Name == ref {
			byName = append(byName, a.ID)
		}
	}
	if len(byName) == 1 {
		return byName[0], nil
	}
	return "", fmt.Errorf("cfsim: seed %s %q: account %q is unknown or ambiguous", kind, name, ref)
}

// buildStore materialises a resolved seed.
func buildStore(seed Seed, now time.Time) (*store, error) {
	st := &store{tokens: map[string]map[string]bool{}}
	ts := stamp(now)
	for _, a := range seed.Accounts {
		st.accounts = append(st.accounts, &accountRec{id: a.ID, name: a.Name, tokens: len(a.Tokens), createdOn: ts})
		for _, tok := range a.Tokens {
			if st.tokens[tok] == nil {
				st.tokens[tok] = map[string]bool{}
			}
			st.tokens[tok][a.ID] = true
		}
	}
	for _, z := range seed.Zones {
		st.zones = append(st.zones, &zoneRec{id: z.ID, name: z.Name, account: z.Account, status: z.Status, createdOn: ts})
	}
	for _, t := range seed.Tunnels {
		st.tunnels = append(st.tunnels, &tunnelRec{
			account: t.Account, secret: append([]byte(nil), t.secret...),
			t: Tunnel{
				ID: t.ID, AccountTag: t.Account, Name: t.Name, CreatedAt: ts,
				ConfigSrc: t.ConfigSrc, RemoteConfig: t.ConfigSrc == "cloudflare",
				Status: "inactive", TunType: "cfd_tunnel",
				Connections: []any{}, Metadata: map[string]any{},
			},
		})
	}
	for _, r := range seed.DNSRecords {
		z := find(st.zones, func(z *zoneRec) bool { return z.id == r.Zone })
		in := dnsInput{Type: &r.Type, Name: &r.Name, Content: &r.Content, Proxied: &r.Proxied}
		if r.TTL != 0 {
			in.TTL = &r.TTL
		}
		rec, apiErr := newDNSRecord(st, z, in, r.ID, now)
		if apiErr != nil {
			return nil, fmt.Errorf("cfsim: seed DNS record %q: %v", r.Name, apiErr)
		}
		st.dns = append(st.dns, rec)
	}
	for _, g := range seed.AccessGroups {
		rules := make([]map[string]any, 0, len(g.Include))
		for _, r := range g.Include {
			rules = append(rules, jsonShaped(r).(map[string]any))
		}
		st.groups = append(st.groups, &groupRec{account: g.Account, g: AccessGroup{
			ID: g.ID, Name: g.Name, Include: rules, Exclude: []map[string]any{}, Require: []map[string]any{},
			CreatedAt: ts, UpdatedAt: ts,
		}})
	}
	for _, p := range seed.IdentityProviders {
		st.idps = append(st.idps, &idpRec{account: p.Account, p: IdentityProvider{
			ID: p.ID, Name: p.Name, Type: p.Type, Config: jsonShaped(p.Config).(map[string]any),
		}})
	}
	return st, nil
}
