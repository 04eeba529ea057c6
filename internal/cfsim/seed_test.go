package cfsim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

const yamlSeed = `
accounts:
  - id: 0123456789abcdef0123456789abcdef
    name: acme
    tokens: [tok-a, tok-shared]
  - name: beta
    tokens: [tok-b, tok-shared]
zones:
  - name: Example.COM.
    account: acme
  - id: 22222222222222222222222222222222
    name: beta.io
    account: beta
    status: pending
tunnels:
  - name: edge
    account: acme
dns_records:
  - zone: example.com
    type: CNAME
    name: www
    content: edge.example.net
access_groups:
  - name: Engineering
    account: acme
    include:
      - email_domain: {domain: example.com}
      - email: {email: ops@example.com}
identity_providers:
  - name: OTP
    type: onetimepin
    account: acme
`

func TestParseSeedYAML(t *testing.T) {
	seed, err := ParseSeed([]byte(yamlSeed), false)
	require.NoError(t, err)
	require.Len(t, seed.Accounts, 2)
	require.Equal(t, []string{"tok-a", "tok-shared"}, seed.Accounts[0].Tokens)
	require.Equal(t, map[string]any{"email_domain": map[string]any{"domain": "example.com"}}, seed.AccessGroups[0].Include[0])

	srv, err := New(WithSeed(seed), WithIDGenerator(SequentialIDs()))
	require.NoError(t, err)
	st := srv.State()
	require.Equal(t, "example.com", st.Zones[0].Name, "zone names are normalised")
	require.Equal(t, "0123456789abcdef0123456789abcdef", st.Zones[0].Account.ID)
	require.Equal(t, "00000000000000000000000000000001", st.Accounts[1].ID, "missing IDs are generated")
	require.Equal(t, "pending", st.Zones[1].Status)
	require.Equal(t, "edge", st.Tunnels[0].Tunnel.Name)
	require.True(t, isUUID(st.Tunnels[0].Tunnel.ID))
	require.Equal(t, "www.example.com", st.DNSRecords[0].Object.Name)
	require.Len(t, st.AccessGroups[0].Object.Include, 2)
	require.Equal(t, "onetimepin", st.IdentityProviders[0].Object.Type)
	require.Equal(t, 2, st.Accounts[0].Tokens)
}

func TestParseSeedJSON(t *testing.T) {
	seed, err := ParseSeed([]byte(`{"accounts":[{"name":"a","tokens":["t"]}],"zones":[{"name":"a.com"}]}`), true)
	require.NoError(t, err)
	srv, err := New(WithSeed(seed))
	require.NoError(t, err)
	st := srv.State()
	require.Equal(t, st.Accounts[0].ID, st.Zones[0].Account.ID, "a lone account needs no reference")
}

func TestParseSeedRejectsTypos(t *testing.T) {
	_, err := ParseSeed([]byte("acounts: []\n"), false)
	require.Error(t, err)
	_, err = ParseSeed([]byte(`{"zones":[{"nmae":"x"}]}`), true)
	require.Error(t, err)
	_, err = ParseSeed([]byte(`{`), true)
	require.Error(t, err)
	seed, err := ParseSeed(nil, false)
	require.NoError(t, err, "an empty YAML seed is an empty simulator")
	require.Empty(t, seed.Accounts)
}

func TestSeedValidation(t *testing.T) {
	acct := SeedAccount{ID: acct1, Name: "a"}
	other := SeedAccount{ID: acct2, Name: "b"}
	cases := map[string]Seed{
		"bad account id":      {Accounts: []SeedAccount{{ID: "ACME"}}},
		"bad zone id":         {Accounts: []SeedAccount{acct}, Zones: []SeedZone{{ID: "z", Name: "a.com"}}},
		"zone without name":   {Accounts: []SeedAccount{acct}, Zones: []SeedZone{{}}},
		"ambiguous account":   {Accounts: []SeedAccount{acct, other}, Zones: []SeedZone{{Name: "a.com"}}},
		"unknown account":     {Accounts: []SeedAccount{acct}, Tunnels: []SeedTunnel{{Name: "t", Account: "nope"}}},
		"bad tunnel id":       {Accounts: []SeedAccount{acct}, Tunnels: []SeedTunnel{{ID: "t1", Name: "t"}}},
		"dns in unknown zone": {Accounts: []SeedAccount{acct}, DNSRecords: []SeedDNSRecord{{Zone: "a.com", Type: "A", Name: "x", Content: "192.0.2.1"}}},
		"invalid dns record": {Accounts: []SeedAccount{acct}, Zones: []SeedZone{{Name: "a.com"}},
			DNSRecords: []SeedDNSRecord{{Zone: "a.com", Type: "A", Name: "x", Content: "nope"}}},
		"group of unknown account": {Accounts: []SeedAccount{acct}, AccessGroups: []SeedAccessGroup{{Name: "g", Account: "x"}}},
		"idp of unknown account":   {Accounts: []SeedAccount{acct}, IdentityProviders: []SeedIdentityProvider{{Name: "g", Account: "x"}}},
	}
	for name, seed := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := New(WithSeed(seed))
			require.Error(t, err)
		})
	}
}

func TestLoadSeedFile(t *testing.T) {
	dir := t.TempDir()
	y := filepath.Join(dir, "seed.yaml")
	require.NoError(t, os.WriteFile(y, []byte(yamlSeed), 0o600))
	seed, err := LoadSeedFile(y)
	require.NoError(t, err)
	require.Len(t, seed.Zones, 2)

	j := filepath.Join(dir, "seed.JSON")
	require.NoError(t, os.WriteFile(j, []byte(`{"accounts":[{"name":"x"}]}`), 0o600))
	seed, err = LoadSeedFile(j)
	require.NoError(t, err)
	require.Len(t, seed.Accounts, 1)

	_, err = LoadSeedFile(filepath.Join(dir, "missing.yaml"))
	require.Error(t, err)
}
