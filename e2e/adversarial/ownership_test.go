package adversarial

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// PITFALLS 13 / issue 20 item 1. Another team's route copies the victim's
// Cloudflare IDs into its own annotations, one ID annotation at a time and
// then all of them at once (the takeover: its own hostname, an
// Access application open to everyone, and the victim's accessAppId,
// accessPolicyIds, serviceTokenId, cnameRecordId, ...). The operator acts
// only on IDs from its own state, so nothing of the victim's changes; the
// attacker's route gets a Warning Event and a status error ForeignID, and
// its display copy is rewritten with its own IDs.
func TestForeignIDsAreIgnored(t *testing.T) {
	a := newArena(t)
	victim, evil := "fid-victim", "fid-evil"
	a.tenant(victim)
	a.tenant(evil)
	a.apply(route(victim, "app", fullStack("app.example.com")),
		route(victim, "dns", map[string]string{"enabled": "true", "hostname": "dns.example.com",
			"dnsOnly.enabled": "true", "dnsIp": "203.0.113.7"}))
	a.converge()
	stolen := a.ids(victim, "app")
	for k, v := range a.ids(victim, "dns") {
		if k == "dnsRecordId" {
			stolen[k] = v
		}
	}
	keys := []string{"hostnameRouteId", "cnameRecordId", "dnsRecordId", "accessAppId", "accessPolicyIds", "serviceTokenId", "serviceTokenSecretName"}
	for _, k := range keys {
		require.NotEmpty(t, stolen[k], "the victim has no %s to steal", k)
	}

	attack := func(name string, ids map[string]string) {
		host := name + ".example.com"
		atk := attacker{routes: []string{name}, hosts: []string{host}, tokens: []string{name + "-service-token"}}
		before := a.snapshot(atk, victim)
		ann := map[string]string{"enabled": "true", "hostname": host, "access.enabled": "true",
			"access.allowEveryone": "true", "serviceToken.enabled": "true"}
		if _, ok := ids["dnsRecordId"]; ok {
			ann = map[string]string{"enabled": "true", "hostname": host, "dnsOnly.enabled": "true", "dnsIp": "198.51.100.9"}
		}
		for k, v := range ids {
			ann[k] = v
		}
		a.apply(route(evil, name, ann))

		// The first cycle reports the foreign IDs (checked without stopping,
		// so that what the attack changed is reported too).
		a.run(kubeWorker)
		errs, ready := a.tenantErrors(evil)
		assert.Contains(a.t, errs, evil+"/"+name+" ForeignID")
		assert.Equal(a.t, "ForeignID", ready["reason"])
		ev := a.events(evil, "HTTPRoute", name, "ForeignID")
		if assert.Len(a.t, ev, 1) {
			assert.Equal(a.t, "Warning", ev[0].Type)
			for k := range ids {
				assert.Contains(a.t, ev[0].Note, prefix+k)
			}
		}
		a.converge()

		a.requireUntouched(before, atk)
		// The display copy now holds the attacker's own IDs (the tunnel ID
		// of hostnameRouteId is shared by every route of the tunnel).
		mine := a.ids(evil, name)
		for k := range ids {
			if k != "hostnameRouteId" {
				require.NotEqual(a.t, stolen[k], mine[k], "%s still shows the victim's ID", k)
			}
		}
		errs, _ = a.tenantErrors(evil)
		require.NotContains(a.t, errs, evil+"/"+name+" ForeignID", "reported after the display copy was rewritten")
	}

	for _, k := range keys {
		k := k
		a.sub(k, func() { attack("steal-"+strings.ToLower(k), map[string]string{k: stolen[k]}) })
	}
	a.sub("all IDs at once", func() {
		all := map[string]string{}
		for _, k := range keys {
			if k != "dnsRecordId" {
				all[k] = stolen[k]
			}
		}
		attack("takeover", all)
	})

	// The victim is still in sync: its next cycle queues nothing.
	before := a.snapshot(attacker{}, victim)
	a.run(kubeWorker)
	require.Empty(t, a.tasks())
	a.requireUntouched(before, attacker{})
}

// An ID annotation that disagrees with the route's own state is ignored
// too: a route the operator manages, whose accessAppId an app team (or a
// GitOps tool) rewrites to another team's application, keeps acting on its
// own application, and the display copy is put back.
func TestForeignIDOnManagedRoute(t *testing.T) {
	a := newArena(t)
	victim, evil := "fidm-victim", "fidm-evil"
	a.tenant(victim)
	a.tenant(evil)
	a.apply(route(victim, "app", fullStack("vapp.example.com")),
		route(evil, "mine", fullStack("mine.example.com")))
	a.converge()
	own := a.ids(evil, "mine")
	stolen := a.ids(victim, "app")

	atk := attacker{routes: []string{"mine"}, hosts: []string{"mine.example.com"}, tokens: []string{"mine-service-token"}}
	before := a.snapshot(atk, victim)
	patch := map[string]string{}
	for k, v := range stolen {
		patch[k] = v
	}
	patch["access.allowEveryone"] = "true"
	ann := fullStack("mine.example.com")
	for k, v := range patch {
		ann[k] = v
	}
	a.apply(route(evil, "mine", ann))
	a.converge()
	a.requireUntouched(before, atk)
	require.NotEmpty(t, a.events(evil, "HTTPRoute", "mine", "ForeignID"))
	after := a.ids(evil, "mine")
	require.Equal(t, own["accessAppId"], after["accessAppId"])
	require.Equal(t, own["serviceTokenId"], after["serviceTokenId"])
	require.Equal(t, own["cnameRecordId"], after["cnameRecordId"])
	require.Len(t, a.apps("mine.example.com"), 1)
}
