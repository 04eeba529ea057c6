package cfsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// Seed is the fixture data a Server starts with (and returns to on Reset).
// Zones, accounts and tokens cannot be created through the API, as on
// Cloudflare, so tests declare them here. Every ID is optional; missing ones
// are generated once, so Reset restores the same IDs.
type Seed struct {
	Accounts          []SeedAccount          `json:"accounts" yaml:"accounts"`
	Zones             []SeedZone             `json:"zones" yaml:"zones"`
	Tunnels           []SeedTunnel           `json:"tunnels" yaml:"tunnels"`
	DNSRecords        []SeedDNSRecord        `json:"dns_records" yaml:"dns_records"`
	AccessGroups      []SeedAccessGroup      `json:"access_groups" yaml:"access_groups"`
	IdentityProviders []SeedIdentityProvider `json:"identity_providers" yaml:"identity_providers"`
}

// SeedAccount is a Cloudflare account and the API tokens that may act on it.
// A token listed under several accounts may act on all of them.
type SeedAccount struct {
	ID     string   `json:"id" yaml:"id"`
	Name   string   `json:"name" yaml:"name"`
	Tokens []string `json:"tokens" yaml:"tokens"`
}

// SeedZone is a zone owned by an account. Account is the account's ID or,
// when unambiguous, its name. Status defaults to "active"; Access refuses
// application domains on zones that are not active.
type SeedZone struct {
	ID      string `json:"id" yaml:"id"`
	Name    string `json:"name" yaml:"name"`
	Account string `json:"account" yaml:"account"`
	Status  string `json:"status" yaml:"status"`
}

// SeedTunnel is a pre-existing Cloudflare Tunnel. ConfigSrc defaults to
// "cloudflare" (remotely managed), which is what the roles create.
type SeedTunnel struct {
	ID        string `json:"id" yaml:"id"`
	Name      string `json:"name" yaml:"name"`
	Account   string `json:"account" yaml:"account"`
	ConfigSrc string `json:"config_src" yaml:"config_src"`

	// secret is generated once by resolveSeed so Reset keeps tunnel
	// tokens stable.
	secret []byte
}

// SeedDNSRecord is a pre-existing DNS record. Zone is the zone's ID or name.
type SeedDNSRecord struct {
	ID      string `json:"id" yaml:"id"`
	Zone    string `json:"zone" yaml:"zone"`
	Type    string `json:"type" yaml:"type"`
	Name    string `json:"name" yaml:"name"`
	Content string `json:"content" yaml:"content"`
	Proxied bool   `json:"proxied" yaml:"proxied"`
	TTL     int    `json:"ttl" yaml:"ttl"`
}

// SeedAccessGroup is an Access group. The API only lists groups, so policies
// that reference groups need them seeded. Include holds Access rules such as
// {"email_domain": {"domain": "example.com"}}; it defaults to everyone.
type SeedAccessGroup struct {
	ID      string           `json:"id" yaml:"id"`
	Name    string           `json:"name" yaml:"name"`
	Account string           `json:"account" yaml:"account"`
	Include []map[string]any `json:"include" yaml:"include"`
}

// SeedIdentityProvider is a pre-existing Access identity provider, e.g.
// {type: onetimepin, name: "One-time PIN"}.
type SeedIdentityProvider struct {
	ID      string         `json:"id" yaml:"id"`
	Name    string         `json:"name" yaml:"name"`
	Type    string         `json:"type" yaml:"type"`
	Account string         `json:"account" yaml:"account"`
	Config  map[string]any `json:"config" yaml:"config"`
}

// LoadSeedFile reads a Seed from a .json file or, for any other extension, a
// YAML file.
func LoadSeedFile(path string) (Seed, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Seed{}, err
	}
	return ParseSeed(raw, strings.EqualFold(filepath.Ext(path), ".json"))
}

// ParseSeed decodes a Seed from JSON (isJSON) or YAML. Unknown keys are
// errors, so a typo in a fixture does not silently drop data.
func ParseSeed(raw []byte, isJSON bool) (Seed, error) {
	var s Seed
	if isJSON {
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			return Seed{}, fmt.Errorf("cfsim: parsing seed JSON: %w", err)
		}
		return s, nil
	}
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil && !errors.Is(err, io.EOF) {
		return Seed{}, fmt.Errorf("cfsim: parsing seed YAML: %w", err)
	}
	return normaliseYAML(s), nil
}

// normaliseYAML converts the map[any]any / int values yaml.v3 may produce in
// free-form rule maps into the JSON-shaped values the simulator stores.
func normaliseYAML(s Seed) Seed {
	for i := range s.AccessGroups {
		for j, rule := range s.AccessGroups[i].Include {
			s.AccessGroups[i].Include[j] = jsonShaped(rule).(map[string]any)
		}
	}
	for i := range s.IdentityProviders {
		if s.IdentityProviders[i].Config != nil {
			s.IdentityProviders[i].Config = jsonShaped(s.IdentityProviders[i].Config).(map[string]any)
		}
	}
	return s
}

// jsonShaped round-trips v through JSON so nested values have the types
// encoding/json would produce.
func jsonShaped(v any) any {
	var out any
	if err := json.Unmarshal(mustJSON(v), &out); err != nil {
		panic(fmt.Sprintf("cfsim: normalising seed value: %v", err))
	}
	return out
}
