package demo

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTableAlignsColouredCells(t *testing.T) {
	var buf bytes.Buffer
	tb := &table{title: "T", header: []string{"KIND", "NAME"}}
	tb.add(style{color: true}.green("DNS A"), "x.example.com")
	tb.add("Tunnel route", "y")
	tb.write(&buf, style{})
	lines := strings.Split(strings.TrimRight(stripANSI(buf.String()), "\n"), "\n")
	require.Equal(t, []string{"T", "  KIND          NAME", "  DNS A         x.example.com", "  Tunnel route  y"}, lines)

	buf.Reset()
	(&table{title: "Empty", header: []string{"A"}}).write(&buf, style{})
	require.Equal(t, "Empty\n  (none)\n", buf.String())
}

func TestZoneOf(t *testing.T) {
	for host, zone := range map[string]string{
		"web.example.com":    "example.com",
		"a.b.example.co.uk":  "example.co.uk",
		"*.apps.example.org": "example.org",
		"example.com":        "example.com",
		"localhost":          "",
	} {
		require.Equal(t, zone, zoneOf(host), host)
	}
}

func TestShortName(t *testing.T) {
	require.Equal(t, "cfzt-apps.web", stateConfigMapName("apps", "web"))
	// The same name route_plan.j2 gives (its first 52 characters less
	// trailing dashes and dots, a dash, 10 hex digits of the sha256).
	long := stateConfigMapName("a-very-long-namespace-name-for-testing", "and-an-equally-long-route-name")
	require.Equal(t, "cfzt-a-very-long-namespace-name-for-testing.and-an-e-0a1f691942", long)
}

func TestMaskAndRules(t *testing.T) {
	require.Equal(t, "…cdef.access", mask("0123456789abcdef0123456789abcdef.access"))
	require.Equal(t, "****", mask("short"))
	require.Equal(t, "@example.com, alice@example.com, service token", describeRules([]map[string]any{
		{"email": map[string]any{"email": "alice@example.com"}},
		{"email_domain": map[string]any{"domain": "example.com"}},
		{"service_token": map[string]any{"token_id": "x"}},
	}, nil))
	require.Equal(t, "group Engineering", describeRules([]map[string]any{{"group": map[string]any{"id": "g1"}}}, map[string]string{"g1": "Engineering"}))
}

func TestLogSinkPrefixesLines(t *testing.T) {
	var buf bytes.Buffer
	s := newLogSink(&buf, style{})
	w := s.writer("kube_worker")
	fmt.Fprint(w, "TASK [a]\nok: [localhost]")
	fmt.Fprint(w, "\n\x1b[32mchanged\x1b[0m\n")
	require.Equal(t, "kube_worker       │ TASK [a]\nkube_worker       │ ok: [localhost]\nkube_worker       │ \x1b[32mchanged\x1b[0m\n", buf.String())
	require.Equal(t, []string{"ok: [localhost]", "changed"}, s.tail("kube_worker", 2))
}
