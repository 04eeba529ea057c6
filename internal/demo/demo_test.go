package demo

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestDemoShort runs `make demo` in short mode, as CI does, and checks its
// summary: every sample route is live on both sides after the first
// convergence, the edit reached the Access policy, the deleted route left
// nothing behind, and every tier stopped cleanly on SIGTERM.
func TestDemoShort(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var out bytes.Buffer
	sum, err := Run(ctx, Options{Short: true, Out: &out, Timeout: 2 * time.Minute})
	if err != nil {
		t.Log(out.String())
	}
	require.NoError(t, err)
	t.Log(out.String())

	require.GreaterOrEqual(t, len(sum.Routes), 4)
	// After the first convergence.
	cf := sum.Converged.Cloudflare
	for _, r := range sum.Routes {
		if r.DNSOnly {
			requireRow(t, cf, "DNS A", r.Hostname, "")
			requireNoRow(t, cf, "Tunnel route", r.Hostname)
		} else {
			requireRow(t, cf, "Tunnel route", r.Hostname, "→ ")
			requireRow(t, cf, "DNS CNAME", r.Hostname, ".cfargotunnel.com")
		}
		if r.Access {
			app := requireRow(t, cf, "Access app", "", r.Hostname)
			require.NotEmpty(t, app.Name)
		}
		for _, e := range r.Emails {
			requireRow(t, cf, "Access policy", "", e)
		}
		if r.Token {
			requireRow(t, cf, "Service token", "", "client ID …")
		}
		requireRow(t, sum.Converged.Kubernetes, "HTTPRoute", r.Key(), r.Hostname)
	}
	k := sum.Converged.Kubernetes
	requireRow(t, k, "CloudflareTask", "", "0 in the queue")
	requireRow(t, k, "Deployment", "kube-worker", "created by the manager")
	requireRow(t, k, "Deployment", "cloudflare-worker", "created by the manager")
	requireRow(t, k, "Secret", "", "service-token credentials: client_id, client_secret")

	// After the edit.
	require.NotEmpty(t, sum.EditedRoute)
	requireRow(t, sum.Edited.Cloudflare, "Access policy", "", addedEmail)

	// After the deletion: nothing of the deleted route is left.
	require.NotEmpty(t, sum.DeletedRoute)
	var deleted *Route
	for _, r := range sum.Routes {
		if r.Key() == sum.DeletedRoute {
			deleted = r
		}
	}
	require.NotNil(t, deleted)
	for _, row := range sum.Final.Cloudflare {
		require.NotContains(t, row.Name+" "+row.Detail, deleted.Hostname, "left in Cloudflare: %+v", row)
	}
	requireNoRow(t, sum.Final.Kubernetes, "HTTPRoute", deleted.Key())
	requireRow(t, sum.Final.Kubernetes, "CloudflareTask", "", "0 in the queue")

	for _, tier := range tiers {
		msg, ok := sum.Stopped[tier]
		require.True(t, ok, "%s was not stopped", tier)
		require.Empty(t, msg, "%s", tier)
		require.NotEmpty(t, sum.Log[tier], "%s logged nothing", tier)
	}
	require.Contains(t, out.String(), "demo finished")
}

func requireRow(t *testing.T, rows []Row, kind, nameHas, detailHas string) Row {
	t.Helper()
	for _, r := range rows {
		if r.Kind == kind && strings.Contains(r.Name, nameHas) && strings.Contains(r.Detail, detailHas) {
			return r
		}
	}
	t.Fatalf("no %s row with name containing %q and detail containing %q in\n%s", kind, nameHas, detailHas, formatRows(rows))
	return Row{}
}

func requireNoRow(t *testing.T, rows []Row, kind, nameHas string) {
	t.Helper()
	for _, r := range rows {
		if r.Kind == kind && strings.Contains(r.Name, nameHas) {
			t.Fatalf("unexpected %s row %+v", kind, r)
		}
	}
}

func formatRows(rows []Row) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString("  " + r.Kind + " | " + r.Name + " | " + r.Detail + "\n")
	}
	return b.String()
}
