package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var h *Harness

func TestMain(m *testing.M) {
	Main(m, func(x *Harness) { h = x })
}

// TestHarness checks the pieces other packages rely on: the CRDs are
// served, the operator token is not admin, the simulator is seeded and a
// playbook runs with the operator's environment.
func TestHarness(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	_, err := h.Dynamic().Resource(CloudflareTaskGVR).Namespace(h.Namespace).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)

	sim := StartSim(t)
	require.Len(t, sim.Zones, 2)
	require.NotEmpty(t, sim.TunnelID)
	require.Len(t, sim.Groups, 2)

	require.NoError(t, h.CreateCredentialSecret(ctx, "e2e-apps", "cf-token", sim.Token))
	require.NoError(t, h.CreateCredentialSecret(ctx, "e2e-apps", "cf-token", sim.Token)) // replace

	pb := filepath.Join(t.TempDir(), "env.yml")
	require.NoError(t, os.WriteFile(pb, []byte(`- hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - ansible.builtin.debug:
        msg: "ns={{ lookup('env', 'OPERATOR_NAMESPACE') }} pod={{ lookup('env', 'POD_NAME') }} api={{ lookup('env', 'CLOUDFLARE_API_BASE') }} extra={{ lookup('env', 'E2E_EXTRA') }}"
`), 0o644))
	out, code := h.RunPlaybook(ctx, pb, map[string]string{"E2E_EXTRA": "yes", "CLOUDFLARE_API_BASE": sim.Base})
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "ns="+h.Namespace+" pod="+DefaultPodName+" api="+sim.Base+" extra=yes", out)
	require.False(t, strings.Contains(out, h.Cluster.OperatorToken))
}
