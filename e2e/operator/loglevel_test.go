package operator

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A tenant's spec.logLevel governs every line about its routes in both
// workers, whatever LOG_LEVEL and the verbosity are: a tenant at ERROR has
// its routes named only by errors, a tenant at DEBUG has their specs, its
// Cloudflare calls and results shown even when the operator logs at INFO.
func TestTenantLogLevelGovernsEveryLine(t *testing.T) {
	w := newWorld(t, "lvl-hush")
	w.apply(w.tenantYAML(w.ns, tenantName, "  logLevel: ERROR"),
		route(w.ns, "hushed", map[string]string{"enabled": "true", "hostname": "hushed.example.com", "accessApp": "true", "serviceToken": "true"}))
	loud := "lvl-loud"
	w.watch(loud)
	require.NoError(t, h.CreateCredentialSecret(w.ctx, loud, credSecret, w.sim.Token))
	w.apply(w.tenantYAML(loud, tenantName, "  logLevel: DEBUG"),
		route(loud, "chatty", map[string]string{"enabled": "true", "hostname": "chatty.example.com", "accessApp": "true"}))

	var out strings.Builder
	for i := 0; i < 4; i++ {
		// LOG_LEVEL is INFO; every other cycle also runs at -vv, which
		// shows every result the roles do not hide.
		verbosity := []string{}
		if i%2 == 1 {
			verbosity = []string{"-vv"}
		}
		for _, pb := range []string{kubeWorker, cloudflareWorker} {
			env := map[string]string{"LOG_LEVEL": "INFO"}
			for k, v := range w.env {
				env[k] = v
			}
			o, code := h.RunPlaybook(w.ctx, pb, env, append(verbosity, "-e", `{"cf_api_retry_delays": [0, 0, 0]}`)...)
			require.Equal(t, 0, code, o)
			out.WriteString(o)
		}
	}
	require.Len(t, w.apps("hushed.example.com"), 1, "the quiet tenant's route converged")
	require.Len(t, w.apps("chatty.example.com"), 1)
	require.Empty(t, linesWith(out.String(), "hushed"), "lines name the ERROR tenant's route")
	for _, want := range []string{
		`Queued reconcile of lvl-loud/chatty (chatty.example.com): new route - spec: {`,
		`CloudflareTask cfzt-lvl-loud.chatty: {`,
		"GET /accounts/" + w.sim.AccountID + "/access/apps?domain=chatty.example.com&exact=true",
		"CloudflareTask cfzt-lvl-loud.chatty completed: chatty.example.com:",
	} {
		require.NotEmpty(t, linesWith(out.String(), want), "no line about the DEBUG tenant's route has %q", want)
	}

	// An error about the quiet tenant's route is still shown.
	w.patchAnnotations(w.ns, "hushed", map[string]any{"allowGroups": "Nobody"})
	o := w.run(kubeWorker)
	require.Empty(t, linesWith(o, "hushed"))
	o = w.run(cloudflareWorker, `{"cf_api_retry_delays": [0, 0, 0]}`)
	require.NotEmpty(t, linesWith(o, "ERROR: CloudflareTask cfzt-lvl-hush.hushed failed: Access groups not found in account "+w.sim.AccountID+": Nobody"))
	o = w.run(kubeWorker)
	require.NotEmpty(t, linesWith(o, "ERROR: reconcile of lvl-hush/hushed (hushed.example.com) failed after 1 attempt(s)"))
}

// linesWith returns the lines of out that contain s.
func linesWith(out, s string) []string {
	var l []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, s) {
			l = append(l, line)
		}
	}
	return l
}

// ANSIBLE_DEBUG, which the seed's entrypoint sets for LOG_LEVEL=DEBUG,
// makes the global level DEBUG; without it LOG_LEVEL=ERROR names no route.
func TestAnsibleDebugMakesTheGlobalLevelDebug(t *testing.T) {
	w := newWorld(t, "lvl-debug")
	w.apply(route(w.ns, "dbg", map[string]string{"enabled": "true", "hostname": "dbg.example.com"}))
	run := func(env map[string]string) string {
		for k, v := range w.env {
			env[k] = v
		}
		o, code := h.RunPlaybook(w.ctx, kubeWorker, env)
		require.Equal(t, 0, code, o)
		return o
	}
	out := run(map[string]string{"LOG_LEVEL": "ERROR"})
	require.Empty(t, linesWith(out, "dbg.example.com"))
	w.patchAnnotations(w.ns, "dbg", map[string]any{"no-tls-verify": "true"})
	out = run(map[string]string{"LOG_LEVEL": "ERROR", "ANSIBLE_DEBUG": "1"})
	require.NotEmpty(t, linesWith(out, `Queued reconcile of lvl-debug/dbg (dbg.example.com): new route - spec: {`))
}
