package cfsim

import (
	"fmt"
	"net/http"
	"strings"
)

// codeTunnelHasConnections answers a tunnel delete while connectors are
// still connected. The code is the simulator's choice (see README).
const codeTunnelHasConnections = 1022

// TunnelClient is a connector (a cloudflared) of a tunnel, as GET
// .../cfd_tunnel/{id}/connections returns it.
type TunnelClient struct {
	ID            string       `json:"id"`
	Arch          string       `json:"arch"`
	ConfigVersion int          `json:"config_version"`
	Conns         []TunnelConn `json:"conns"`
	Features      []string     `json:"features"`
	RunAt         string       `json:"run_at"`
	Version       string       `json:"version"`
}

// TunnelConn is one connection of a connector to a Cloudflare data centre;
// the tunnel's own "connections" list holds these.
type TunnelConn struct {
	ID                 string `json:"id"`
	UUID               string `json:"uuid"`
	ClientID           string `json:"client_id"`
	ClientVersion      string `json:"client_version"`
	ColoName           string `json:"colo_name"`
	IsPendingReconnect bool   `json:"is_pending_reconnect"`
	OpenedAt           string `json:"opened_at"`
	OriginIP           string `json:"origin_ip"`
}

func (s *Server) registerTunnelConnectionRoutes() {
	base := "/accounts/{account}/cfd_tunnel/{tunnel}/connections"
	s.api.add(http.MethodGet, base, s.getTunnelConnections)
	s.api.add(http.MethodDelete, base, s.cleanupTunnelConnections)
}

// ConnectTunnel records a connector on the live tunnel id, as a cloudflared
// running with its token would (no cloudflared runs against the
// simulator): two connections, the tunnel "healthy". It returns the
// connector's ID.
func (s *Server) ConnectTunnel(id string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := find(s.st.tunnels, func(t *tunnelRec) bool { return t.t.ID == strings.ToLower(id) && t.t.DeletedAt == nil })
	if t == nil {
		return "", fmt.Errorf("cfsim: no live tunnel %q", id)
	}
	now := s.stampNow()
	client := TunnelClient{
		ID: s.ids.UUID(), Arch: "linux_amd64", Conns: []TunnelConn{},
		Features: []string{"serialized_headers"}, RunAt: now, Version: "2025.11.1",
	}
	for _, colo := range []string{"fra08", "ams01"} {
		cid := s.ids.UUID()
		client.Conns = append(client.Conns, TunnelConn{
			ID: cid, UUID: cid, ClientID: client.ID, ClientVersion: client.Version,
			ColoName: colo, OpenedAt: now, OriginIP: "198.51.100.7",
		})
	}
	t.clients = append(t.clients, client)
	t.t.ConnsActiveAt = &now
	t.syncConnections(now)
	return client.ID, nil
}

// syncConnections derives the tunnel's connections list and status from
// its connectors.
func (t *tunnelRec) syncConnections(now string) {
	t.t.Connections = []any{}
	for _, c := range t.clients {
		for _, conn := range c.Conns {
			t.t.Connections = append(t.t.Connections, conn)
		}
	}
	if len(t.clients) > 0 {
		t.t.Status = "healthy"
		return
	}
	if t.t.ConnsActiveAt != nil {
		t.t.Status = "down"
		t.t.ConnsInactiveAt = &now
	}
}

func (s *Server) getTunnelConnections(c *call) (any, error) {
	t, err := c.tunnel(false)
	if err != nil {
		return nil, err
	}
	out := append([]TunnelClient{}, t.clients...)
	return out, nil
}

// cleanupTunnelConnections answers DELETE .../connections: it drops the
// connector client_id (a UUID), or every connector without it, as
// Cloudflare's "Clean up Cloudflare Tunnel connections" does for stale
// connectors. Connectors still running would reconnect on Cloudflare;
// nothing runs against the simulator, so they stay gone.
func (s *Server) cleanupTunnelConnections(c *call) (any, error) {
	t, err := c.tunnel(true)
	if err != nil {
		return nil, err
	}
	if id := c.query.Get("client_id"); id != "" {
		if !isUUID(strings.ToLower(id)) {
			return nil, tunnelInvalid("client_id must be a UUID")
		}
		kept := t.clients[:0:0]
		for _, cl := range t.clients {
			if cl.ID != strings.ToLower(id) {
				kept = append(kept, cl)
			}
		}
		t.clients = kept
	} else {
		t.clients = nil
	}
	t.syncConnections(s.stampNow())
	return nil, nil
}

// refuseDeleteWithConnections is the delete guard: a tunnel whose
// connectors are connected is not deleted until they are cleaned up.
func refuseDeleteWithConnections(t *tunnelRec) error {
	if len(t.clients) == 0 {
		return nil
	}
	return newAPIError(http.StatusBadRequest, codeTunnelHasConnections,
		"Cannot delete a tunnel with active connections; clean up its connections first")
}
