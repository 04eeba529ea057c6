package adversarial

// Cloudflare answers that lie or get lost, tried on the operator as a whole
// (its tiers as the operator ServiceAccount on a real kube-apiserver, with
// the Cloudflare simulator):
//
//   - "apply, then drop" and "apply, then 502": Cloudflare commits a create
//     and the answer is lost. A blind retry of the POST would make a
//     duplicate; the operator must look the object up and adopt it. Every
//     create path goes through it: the tunnel CNAME, a DNS-only A record,
//     the Access application, both Access policies, the service token and
//     the tunnel configuration PUT.
//   - a 200 with an HTML body (a proxy's or a maintenance page) to every
//     DELETE and PUT: nothing may be taken for done, so nothing is lost.
//
// Each test compares the simulator's full state before and after.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
)

const (
	faultWebHost = "web.example.com"
	faultDNSHost = "dns.example.com"
	faultDNSIP   = "192.0.2.10"
)

// faultRoutes creates the two routes that use every create path: "web"
// (tunnel rule, CNAME, Access application with an allow policy, a service
// token and its Service Auth policy) and "dns" (a DNS-only A record).
func (w *faultWorld) faultRoutes() {
	w.route("web", map[string]string{
		"enabled": "true", "hostname": faultWebHost,
		"accessApp": "true", "allowEmails": "ops@example.com", "serviceToken": "true",
	})
	w.route("dns", map[string]string{
		"enabled": "true", "hostname": faultDNSHost,
		"dnsOnly.enabled": "true", "dnsIp": faultDNSIP,
	})
}

// requireConverged checks that each route has exactly its objects, once,
// and that the IDs written back to it are those objects.
func (w *faultWorld) requireConverged() {
	t := w.t
	t.Helper()
	web := w.objects(faultWebHost, "web-service-token")
	require.Equal(t, 1, web.Rules, "tunnel rules for %s", faultWebHost)
	require.Len(t, web.Records["CNAME"], 1, "CNAMEs for %s", faultWebHost)
	require.Len(t, web.Apps, 1, "Access applications for %s", faultWebHost)
	require.Len(t, web.Policies, 2, "policies of %s", faultWebHost)
	require.Len(t, web.Tokens, 1, "service tokens of web")
	ann := w.annotations("web")
	require.Equal(t, web.Records["CNAME"][0].ID, ann[faultPrefix+"cnameRecordId"])
	require.Equal(t, web.Apps[0].ID, ann[faultPrefix+"accessAppId"])
	require.ElementsMatch(t, web.Policies, strings.Split(ann[faultPrefix+"accessPolicyIds"], ","))
	require.Equal(t, web.Tokens[0].ID, ann[faultPrefix+"serviceTokenId"])

	// The token that the route's Secret holds is the one Access lets in.
	sec, err := w.h.Kube().CoreV1().Secrets(w.ns).Get(w.ctx, "web-cfzt-service-token", faultGetOptions)
	require.NoError(t, err, "the route's service-token Secret")
	require.Equal(t, web.Tokens[0].ClientID, string(sec.Data["client_id"]))
	d := w.sim.Evaluate(cfsim.AccessRequest{Hostname: faultWebHost, ClientID: web.Tokens[0].ClientID, ClientSecret: string(sec.Data["client_secret"])})
	require.True(t, d.Allowed, "the stored token does not pass Access: %+v", d)

	dns := w.objects(faultDNSHost, "")
	require.Zero(t, dns.Rules, "a DNS-only route has no tunnel rule")
	require.Len(t, dns.Records["A"], 1, "A records for %s", faultDNSHost)
	require.Equal(t, faultDNSIP, dns.Records["A"][0].Content)
	require.Equal(t, dns.Records["A"][0].ID, w.annotations("dns")[faultPrefix+"dnsRecordId"])
	require.Len(t, dns.Records, 1, "only the A record for %s", faultDNSHost)
	require.Empty(t, dns.Apps)
}

// Every create is applied by Cloudflare and its answer lost (the
// connection closed, or a 502 in its place). The operator adopts what the
// lost answers created: no duplicate, nothing orphaned, and deleting the
// routes leaves the simulator as it was seeded.
func TestFaultLostAnswersToCreatesMakeNoDuplicates(t *testing.T) {
	for _, mode := range []struct {
		name  string
		fault func(count int, method, prefix string) cfsim.Fault
		seen  string
	}{
		{"apply-then-drop", func(n int, m, p string) cfsim.Fault {
			return cfsim.Fault{Drop: n, Apply: true, Method: m, PathPrefix: p}
		}, "apply+drop"},
		{"apply-then-502", func(n int, m, p string) cfsim.Fault {
			return cfsim.Fault{Status: http.StatusBadGateway, Count: n, Apply: true, Method: m, PathPrefix: p}
		}, "apply+status"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			w := faultNewWorld(t, "fault-"+mode.name)
			seeded := w.snapshot()
			acct := "/accounts/" + w.sim.AccountID
			zone := "/zones/" + w.sim.Zones["example.com"]
			// One fault per create, each consumed by the first matching
			// request: the two DNS records, the app, its two policies, the
			// token, and the tunnel configuration.
			for _, f := range []cfsim.Fault{
				mode.fault(2, http.MethodPost, zone+"/dns_records"),
				mode.fault(1, http.MethodPost, acct+"/access/apps"),
				mode.fault(2, http.MethodPost, acct+"/access/apps/"),
				mode.fault(1, http.MethodPost, acct+"/access/service_tokens"),
				mode.fault(1, http.MethodPut, acct+"/cfd_tunnel/"+w.sim.TunnelID+"/configurations"),
			} {
				require.NoError(t, w.sim.InjectFault(f))
			}
			w.faultRoutes()
			w.converge()

			require.Empty(t, w.sim.Faults(), "every fault was served")
			served := w.faultedRequests()
			t.Logf("faulted: %v", served)
			require.Len(t, served, 7, "each create path met its fault once")
			for _, s := range served {
				require.True(t, strings.HasSuffix(s, "-> "+mode.seen), s)
			}
			w.requireConverged()

			// A converged operator makes no more writes.
			w.sim.ResetLog()
			w.converge()
			require.Zero(t, w.sim.CountWrites(), "writes after convergence: %v", w.sim.Requests())

			w.deleteRoute("web")
			w.deleteRoute("dns")
			w.converge()
			require.Empty(t, w.stateConfigMaps(), "state left after the routes were deleted")
			require.Equal(t, seeded, w.snapshot(), "the simulator is not back to its seed: something was left behind")
		})
	}
}

// Every DELETE and PUT is answered 200 with an HTML page, not Cloudflare's
// envelope, and not applied (a proxy or maintenance page answered). The
// operator must not take it for success: the routes' state and IDs stay,
// the tasks fail with a message naming the status and the page, and once
// the page is gone the update and the deletions happen, leaving nothing.
func TestFaultHTMLAnswersToWritesLoseNothing(t *testing.T) {
	w := faultNewWorld(t, "fault-html")
	seeded := w.snapshot()
	w.faultRoutes()
	w.converge()
	w.requireConverged()
	before := w.snapshot()
	webAnn := w.annotations("web")
	state := w.stateIDs()
	require.Len(t, state, 2)

	html := func() {
		for _, m := range []string{http.MethodPut, http.MethodDelete} {
			require.NoError(t, w.sim.InjectFault(cfsim.Fault{HTMLStatus: http.StatusOK, Count: 100000, Method: m}))
		}
	}
	requireHTMLFailure := func(what string) {
		t.Helper()
		var failed int
		for _, task := range w.tasks() {
			msg := faultString(task.Object, "status", "message")
			if faultString(task.Object, "status", "phase") != "Failed" {
				continue
			}
			failed++
			require.Contains(t, msg, "HTTP 200", what)
			require.Contains(t, msg, "not Cloudflare's JSON envelope", what)
			require.Contains(t, msg, "<!DOCTYPE html>", what+": the message shows the first bytes of the body")
			require.NotContains(t, msg, w.sim.Token)
		}
		require.Positive(t, failed, "%s: no task failed: %v", what, w.taskSummary())
	}

	// Updates: a new origin (tunnel configuration PUT) and a new session
	// duration (Access application PUT).
	html()
	w.patchRoute("web", map[string]any{"origin.url": "http://other.fault-html.svc:9090", "sessionDuration": "12h"})
	for i := 0; i < 3; i++ {
		w.cycle()
	}
	requireHTMLFailure("update")
	require.Equal(t, before, w.snapshot(), "an HTML answer applied nothing, and nothing else changed")
	require.Equal(t, state, w.stateIDs(), "the routes' state is kept")
	for _, k := range []string{"cnameRecordId", "accessAppId", "accessPolicyIds", "serviceTokenId"} {
		require.Equal(t, webAnn[faultPrefix+k], w.annotations("web")[faultPrefix+k], k)
	}
	w.sim.ClearFaults()
	w.converge()
	w.requireConverged()
	for _, tun := range w.sim.State().Tunnels {
		if tun.Tunnel.ID == w.sim.TunnelID {
			rules, _ := tun.Configuration.Config["ingress"].([]any)
			require.Contains(t, faultJSON(t, rules), `"service":"http://other.fault-html.svc:9090"`, "the origin update was applied")
		}
	}
	require.Equal(t, "12h", w.objects(faultWebHost, "").Apps[0].SessionDuration, "the Access application update was applied")

	// Deletions: every DELETE (policies, application, token, DNS records)
	// and the tunnel configuration PUT get the page.
	updated := w.snapshot()
	state = w.stateIDs()
	html()
	w.deleteRoute("web")
	w.deleteRoute("dns")
	for i := 0; i < 3; i++ {
		w.cycle()
	}
	requireHTMLFailure("delete")
	require.Equal(t, updated, w.snapshot(), "nothing was deleted behind the page, and nothing else changed")
	require.Equal(t, state, w.stateIDs(), "the deleted routes' state is kept until their objects are gone")
	require.NotEmpty(t, w.tasks(), "the delete tasks are still tracked")

	w.sim.ClearFaults()
	w.converge()
	require.Empty(t, w.stateConfigMaps(), "state left after the routes were deleted")
	require.Equal(t, seeded, w.snapshot(), "the simulator is not back to its seed: something was orphaned")
}

// A hostile page in front of the API answers every DELETE 200 with HTML
// that echoes the request's Authorization header and the route's service
// token secret. The operator reports the failure with the first bytes of
// the page, but neither credential may reach the task's status, the
// Events, the tenant's status or the workers' output.
func TestFaultEchoingPageLeaksNoCredential(t *testing.T) {
	w := faultNewWorld(t, "fault-echo")
	var secret atomic.Value
	secret.Store("")
	target, err := url.Parse(w.sim.URL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodDelete {
			proxy.ServeHTTP(rw, r)
			return
		}
		rw.Header().Set("Content-Type", "text/html")
		rw.WriteHeader(http.StatusOK)
		fmt.Fprintf(rw, "<html><body><pre>%s\nAuthorization=%s\nclient_secret: %s\ntoken %s\nyour token:%s</pre></body></html>",
			r.Header.Get("Authorization"), r.Header.Get("Authorization"), secret.Load(), w.sim.Token, secret.Load())
	}))
	t.Cleanup(front.Close)
	w.env["CLOUDFLARE_API_BASE"] = front.URL + cfsim.APIPrefix

	w.faultRoutes()
	w.converge()
	w.requireConverged()
	sec, err := w.h.Kube().CoreV1().Secrets(w.ns).Get(w.ctx, "web-cfzt-service-token", faultGetOptions)
	require.NoError(t, err)
	clientSecret := string(sec.Data["client_secret"])
	require.NotEmpty(t, clientSecret)
	secret.Store(clientSecret)

	w.deleteRoute("web")
	var outputs []string
	for i := 0; i < 2; i++ {
		outputs = append(outputs, w.run(faultKubeWorker, faultKubeExtra), w.run(faultCloudflareWorker, faultCloudflareExtra))
	}
	outputs = append(outputs, w.run(faultKubeWorker, faultKubeExtra))

	var failed int
	var seen []string
	for _, task := range w.tasks() {
		msg := faultString(task.Object, "status", "message")
		seen = append(seen, msg)
		// Failed, or already re-queued by kube_worker with the message.
		if strings.Contains(msg, "failed (HTTP 200)") {
			failed++
			require.Contains(t, msg, "<html>", "the message shows the first bytes of the page")
		}
	}
	require.Positive(t, failed, "the delete did not fail: %v", w.taskSummary())
	events, err := w.h.Kube().EventsV1().Events(w.ns).List(w.ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, e := range events.Items {
		seen = append(seen, e.Note, e.Reason)
	}
	tenant, err := w.h.Dynamic().Resource(faultTenantGVR).Namespace(w.ns).Get(w.ctx, "acme", faultGetOptions)
	require.NoError(t, err)
	seen = append(seen, faultJSON(t, tenant.Object["status"]))
	seen = append(seen, outputs...)
	for _, s := range seen {
		require.NotContains(t, s, w.sim.Token, "the API token leaked")
		require.NotContains(t, s, clientSecret, "the service token's secret leaked")
	}
	require.NotNil(t, w.stateConfigMaps()["web"], "the route's state is kept while its objects remain")
	require.Len(t, w.objects(faultWebHost, "web-service-token").Apps, 1, "nothing was deleted behind the page")
}

// Every DELETE is answered 404 with an HTML page: a page in front of the
// API, not Cloudflare saying that the object is gone. The 404 that a
// deletion accepts must come in Cloudflare's envelope, so nothing is
// forgotten while the objects remain.
func TestFaultHTML404ToDeletesIsNotGone(t *testing.T) {
	w := faultNewWorld(t, "fault-404")
	seeded := w.snapshot()
	w.faultRoutes()
	w.converge()
	w.requireConverged()
	before := w.snapshot()
	state := w.stateIDs()

	require.NoError(t, w.sim.InjectFault(cfsim.Fault{HTMLStatus: http.StatusNotFound, Count: 100000, Method: http.MethodDelete}))
	w.deleteRoute("web")
	w.deleteRoute("dns")
	for i := 0; i < 2; i++ {
		w.cycle()
	}
	var failed int
	for _, task := range w.tasks() {
		if msg := faultString(task.Object, "status", "message"); strings.Contains(msg, "failed (HTTP 404)") {
			failed++
			require.Contains(t, msg, "not Cloudflare's JSON envelope")
		}
	}
	require.Equal(t, 2, failed, "both deletions fail: %v", w.taskSummary())
	require.Equal(t, before, w.snapshot(), "nothing was deleted behind the page")
	require.Equal(t, state, w.stateIDs(), "the routes' state is kept while their objects remain")

	w.sim.ClearFaults()
	w.converge()
	require.Empty(t, w.stateConfigMaps())
	require.Equal(t, seeded, w.snapshot(), "the simulator is not back to its seed: something was orphaned")
}
