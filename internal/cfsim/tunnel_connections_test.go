package cfsim

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTunnelDeleteRefusedWhileConnected(t *testing.T) {
	h := newHarness(t)
	id := createTunnel(h, "chute-web-app")
	base := acctPath(acct1, "/cfd_tunnel/"+id)

	client, err := h.srv.ConnectTunnel(id)
	require.NoError(t, err)
	var clients []TunnelClient
	h.api(http.MethodGet, base+"/connections", nil).ok(http.StatusOK, &clients)
	require.Len(t, clients, 1)
	require.Equal(t, client, clients[0].ID)
	require.Len(t, clients[0].Conns, 2)
	var tun Tunnel
	h.api(http.MethodGet, base, nil).ok(http.StatusOK, &tun)
	require.Equal(t, "healthy", tun.Status)
	require.Len(t, tun.Connections, 2)

	h.api(http.MethodDelete, base, nil).fails(http.StatusBadRequest, codeTunnelHasConnections)
	h.api(http.MethodGet, base, nil).ok(http.StatusOK, &tun)
	require.Nil(t, tun.DeletedAt, "the refused delete changed nothing")

	h.api(http.MethodDelete, base+"/connections?client_id=not-a-uuid", nil).fails(http.StatusBadRequest, codeTunnelInvalid)
	h.api(http.MethodDelete, base+"/connections", nil).ok(http.StatusOK, nil)
	h.api(http.MethodGet, base+"/connections", nil).ok(http.StatusOK, &clients)
	require.Empty(t, clients)
	h.api(http.MethodDelete, base, nil).ok(http.StatusOK, &tun)
	require.NotNil(t, tun.DeletedAt)

	_, err = h.srv.ConnectTunnel(id)
	require.Error(t, err, "a deleted tunnel takes no connector")
	h.api(http.MethodDelete, base+"/connections", nil).fails(http.StatusNotFound, codeTunnelNotFound)
}
