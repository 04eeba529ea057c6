package cfsim

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Tunnel error codes. 1013 and its HTTP 409 are what cloudflared expects for
// a name clash; the others are the simulator's choice (see README).
const (
	codeTunnelInvalid   = 1001
	codeTunnelNotFound  = 1003
	codeTunnelNameTaken = 1013
)

type tunnelRec struct {
	account string
	secret  []byte
	t       Tunnel
	config  *tunnelConfigRec // nil until the first PUT .../configurations
	clients []TunnelClient   // connected connectors (ConnectTunnel)
}

// Tunnel is a Cloudflare Tunnel (cfd_tunnel) as the v4 API returns it.
type Tunnel struct {
	ID              string         `json:"id"`
	AccountTag      string         `json:"account_tag"`
	CreatedAt       string         `json:"created_at"`
	DeletedAt       *string        `json:"deleted_at"`
	Name            string         `json:"name"`
	Connections     []any          `json:"connections"`
	ConnsActiveAt   *string        `json:"conns_active_at"`
	ConnsInactiveAt *string        `json:"conns_inactive_at"`
	TunType         string         `json:"tun_type"`
	Status          string         `json:"status"`
	RemoteConfig    bool           `json:"remote_config"`
	ConfigSrc       string         `json:"config_src"`
	Metadata        map[string]any `json:"metadata"`
}

// tunnelCreated is the create response: the tunnel plus its run token and
// the credentials file cloudflared would write for a locally managed tunnel.
type tunnelCreated struct {
	Tunnel
	Token           string          `json:"token"`
	CredentialsFile tunnelCredsFile `json:"credentials_file"`
}

type tunnelCredsFile struct {
	AccountTag   string `json:"AccountTag"`
	TunnelID     string `json:"TunnelID"`
	TunnelName   string `json:"TunnelName"`
	TunnelSecret string `json:"TunnelSecret"`
}

func (s *Server) registerTunnelRoutes() {
	base := "/accounts/{account}/cfd_tunnel"
	s.api.add(http.MethodGet, base, s.listTunnels)
	s.api.add(http.MethodPost, base, s.createTunnel)
	s.api.add(http.MethodGet, base+"/{tunnel}", s.getTunnel)
	s.api.add(http.MethodPatch, base+"/{tunnel}", s.editTunnel)
	s.api.add(http.MethodDelete, base+"/{tunnel}", s.deleteTunnel)
	s.api.add(http.MethodGet, base+"/{tunnel}/token", s.getTunnelToken)
	s.api.add(http.MethodGet, base+"/{tunnel}/configurations", s.getTunnelConfig)
	s.api.add(http.MethodPut, base+"/{tunnel}/configurations", s.putTunnelConfig)
	s.registerTunnelConnectionRoutes()
}

func tunnelInvalid(msg string) *apiError {
	return newAPIError(http.StatusBadRequest, codeTunnelInvalid, msg)
}

func errTunnelNotFound() *apiError {
	return newAPIError(http.StatusNotFound, codeTunnelNotFound, "Tunnel not found")
}

// tunnel resolves {account} and {tunnel}; deleted tunnels are still found
// (Cloudflare keeps them, with deleted_at set) unless live is true.
func (c *call) tunnel(live bool) (*tunnelRec, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	id := strings.ToLower(c.param("tunnel"))
	t := find(c.s.st.tunnels, func(t *tunnelRec) bool { return t.account == a.id && t.t.ID == id })
	if t == nil || live && t.t.DeletedAt != nil {
		return nil, errTunnelNotFound()
	}
	return t, nil
}

// listTunnels answers GET .../cfd_tunnel with Cloudflare's filters: name,
// uuid, is_deleted (absent: both), include_prefix, exclude_prefix, status
// and existed_at.
func (s *Server) listTunnels(c *call) (any, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	q := c.query
	deleted, deletedSet := c.queryBool("is_deleted")
	var existedAt time.Time
	if v := q.Get("existed_at"); v != "" {
		if existedAt, err = time.Parse(time.RFC3339, v); err != nil {
			return nil, tunnelInvalid("existed_at must be an RFC 3339 timestamp")
		}
	}
	var out []Tunnel
	for _, t := range s.st.tunnels {
		v := t.t
		switch {
		case t.account != a.id:
		case q.Get("name") != "" && v.Name != q.Get("name"):
		case q.Get("uuid") != "" && v.ID != strings.ToLower(q.Get("uuid")):
		case deletedSet && deleted != (v.DeletedAt != nil):
		case q.Get("include_prefix") != "" && !strings.HasPrefix(v.Name, q.Get("include_prefix")):
		case q.Get("exclude_prefix") != "" && strings.HasPrefix(v.Name, q.Get("exclude_prefix")):
		case q.Get("status") != "" && v.Status != q.Get("status"):
		case !existedAt.IsZero() && !tunnelExisted(v, existedAt):
		default:
			out = append(out, v)
		}
	}
	return paginate(c, out, pagesTunnels), nil
}

func tunnelExisted(t Tunnel, at time.Time) bool {
	created, _ := time.Parse(time.RFC3339Nano, t.CreatedAt)
	if created.After(at) {
		return false
	}
	if t.DeletedAt == nil {
		return true
	}
	deleted, _ := time.Parse(time.RFC3339Nano, *t.DeletedAt)
	return deleted.After(at)
}

type tunnelInput struct {
	Name         *string `json:"name"`
	TunnelSecret *string `json:"tunnel_secret"`
	ConfigSrc    *string `json:"config_src"`
}

func (s *Server) createTunnel(c *call) (any, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	var in tunnelInput
	if err := c.decode(&in, tunnelInvalid); err != nil {
		return nil, err
	}
	name := ""
	if in.Name != nil {
		name = strings.TrimSpace(*in.Name)
	}
	if name == "" {
		return nil, tunnelInvalid("name is required")
	}
	src := "local"
	if in.ConfigSrc != nil {
		src = *in.ConfigSrc
	}
	if src != "local" && src != "cloudflare" {
		return nil, tunnelInvalid(`config_src must be "local" or "cloudflare"`)
	}
	secret, apiErr := tunnelSecret(in.TunnelSecret, s.ids)
	if apiErr != nil {
		return nil, apiErr
	}
	if s.liveTunnelNamed(a.id, name) != nil {
		return nil, newAPIError(http.StatusConflict, codeTunnelNameTaken,
			"You already have a tunnel with this name. Delete the existing tunnel, or choose a different name for your new tunnel.")
	}
	rec := &tunnelRec{account: a.id, secret: secret, t: Tunnel{
		ID: s.ids.UUID(), AccountTag: a.id, CreatedAt: s.stampNow(), Name: name,
		Connections: []any{}, TunType: "cfd_tunnel", Status: "inactive",
		RemoteConfig: src == "cloudflare", ConfigSrc: src, Metadata: map[string]any{},
	}}
	s.st.tunnels = append(s.st.tunnels, rec)
	return tunnelCreated{
		Tunnel: rec.t,
		Token:  rec.token(),
		CredentialsFile: tunnelCredsFile{
			AccountTag: a.id, TunnelID: rec.t.ID, TunnelName: name,
			TunnelSecret: base64.StdEncoding.EncodeToString(secret),
		},
	}, nil
}

// tunnelSecret validates a client-supplied secret (base64, at least 32
// bytes, as Cloudflare documents) or generates one.
func tunnelSecret(raw *string, ids IDGenerator) ([]byte, *apiError) {
	if raw == nil || *raw == "" {
		return ids.Secret(), nil
	}
	b, err := base64.StdEncoding.DecodeString(*raw)
	if err != nil {
		return nil, tunnelInvalid("tunnel_secret must be base64 encoded")
	}
	if len(b) < 32 {
		return nil, tunnelInvalid("tunnel_secret must be at least 32 bytes")
	}
	return b, nil
}

func (s *Server) liveTunnelNamed(account, name string) *tunnelRec {
	return find(s.st.tunnels, func(t *tunnelRec) bool {
		return t.account == account && t.t.Name == name && t.t.DeletedAt == nil
	})
}

func (s *Server) getTunnel(c *call) (any, error) {
	t, err := c.tunnel(false)
	if err != nil {
		return nil, err
	}
	return t.t, nil
}

// editTunnel answers PATCH .../cfd_tunnel/{id}: rename and/or new secret.
func (s *Server) editTunnel(c *call) (any, error) {
	t, err := c.tunnel(true)
	if err != nil {
		return nil, err
	}
	var in tunnelInput
	if err := c.decode(&in, tunnelInvalid); err != nil {
		return nil, err
	}
	if in.Name != nil {
		name := strings.TrimSpace(*in.Name)
		if name == "" {
			return nil, tunnelInvalid("name must not be empty")
		}
		if other := s.liveTunnelNamed(t.account, name); other != nil && other != t {
			return nil, newAPIError(http.StatusConflict, codeTunnelNameTaken,
				"You already have a tunnel with this name. Delete the existing tunnel, or choose a different name for your new tunnel.")
		}
		t.t.Name = name
	}
	if in.TunnelSecret != nil {
		secret, apiErr := tunnelSecret(in.TunnelSecret, s.ids)
		if apiErr != nil {
			return nil, apiErr
		}
		t.secret = secret
	}
	return t.t, nil
}

// deleteTunnel soft-deletes: the tunnel stays listable with deleted_at set
// and is_deleted=true, and its name becomes free again. A tunnel with
// connected connectors is refused until they are cleaned up
// (DELETE .../connections).
func (s *Server) deleteTunnel(c *call) (any, error) {
	t, err := c.tunnel(true)
	if err != nil {
		return nil, err
	}
	if err := refuseDeleteWithConnections(t); err != nil {
		return nil, err
	}
	now := s.stampNow()
	t.t.DeletedAt = &now
	return t.t, nil
}

// getTunnelToken answers with the string cloudflared takes as --token:
// base64 of {"a": account tag, "t": tunnel ID, "s": base64 secret}.
func (s *Server) getTunnelToken(c *call) (any, error) {
	t, err := c.tunnel(true)
	if err != nil {
		return nil, err
	}
	return t.token(), nil
}

func (t *tunnelRec) token() string {
	raw, _ := json.Marshal(struct {
		A string `json:"a"`
		T string `json:"t"`
		S []byte `json:"s"`
	}{t.account, t.t.ID, t.secret})
	return base64.StdEncoding.EncodeToString(raw)
}
