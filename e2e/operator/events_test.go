package operator

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// events returns the events.k8s.io/v1 Events of namespace ns regarding the
// object kind/name, as "Reason: note" strings, sorted.
func (w *world) events(ns, kind, name string) []string {
	w.t.Helper()
	var out []string
	for _, e := range w.eventObjects(ns) {
		if e.Regarding.Kind == kind && e.Regarding.Name == name {
			out = append(out, e.Reason+": "+e.Note)
		}
	}
	sort.Strings(out)
	return out
}

func (w *world) eventObjects(ns string) []eventsv1.Event {
	w.t.Helper()
	l, err := h.Kube().EventsV1().Events(ns).List(w.ctx, metav1.ListOptions{})
	require.NoError(w.t, err)
	return l.Items
}

// eventVersions maps every Event of ns to its resourceVersion.
func (w *world) eventVersions(ns string) map[string]string {
	out := map[string]string{}
	for _, e := range w.eventObjects(ns) {
		out[e.Name] = e.ResourceVersion
	}
	return out
}

// The operator records Events on the HTTPRoute and on its tenant: queued,
// the Cloudflare objects it created, the token Secret it wrote, Cloudflare's
// failures and bad annotations. `kubectl describe httproute` (core/v1 Events
// by involvedObject) shows them. A steady-state cycle records none, and a
// failure seen again in later cycles is not recorded again.
func TestEventsOnRouteAndTenant(t *testing.T) {
	w := newWorld(t, "events")
	w.apply(route(w.ns, "api", fullStack("api.example.com")))
	w.converge()

	onRoute := w.events(w.ns, "HTTPRoute", "api")
	require.Len(t, onRoute, 3, "%v", onRoute)
	require.Contains(t, onRoute[0], "CloudflareCreated: api.example.com: created tunnel rule on "+w.sim.TunnelID+", CNAME ")
	for _, want := range []string{"Access application ", "service token ", "Access policy "} {
		require.Contains(t, onRoute[0], want)
	}
	require.Equal(t, "Queued: Queued reconcile of api.example.com: new route", onRoute[1])
	require.True(t, strings.HasPrefix(onRoute[2], "ServiceTokenSecretWritten: Wrote Secret events/api-cfzt-service-token"), onRoute[2])
	onTenant := w.events(w.ns, "CloudflareZeroTrustTenant", tenantName)
	require.Len(t, onTenant, 3, "%v", onTenant)
	for _, e := range onTenant {
		require.True(t, strings.HasPrefix(strings.SplitN(e, ": ", 2)[1], "HTTPRoute events/api: "), e)
	}
	for _, e := range w.eventObjects(w.ns) {
		require.Equal(t, "cfzt.cloudflare.com/kube-worker", e.ReportingController)
		require.NotEmpty(t, e.ReportingInstance)
		require.False(t, e.EventTime.IsZero())
		if e.Regarding.Kind == "CloudflareZeroTrustTenant" {
			require.Equal(t, "HTTPRoute", e.Related.Kind)
		}
	}

	// What kubectl describe httproute lists: core/v1 Events by involved object.
	core, err := h.Kube().CoreV1().Events(w.ns).List(w.ctx, metav1.ListOptions{
		FieldSelector: "involvedObject.kind=HTTPRoute,involvedObject.name=api,involvedObject.namespace=" + w.ns})
	require.NoError(t, err)
	require.Len(t, core.Items, 3)

	// Steady state: no Event created or changed.
	before := w.eventVersions(w.ns)
	for i := 0; i < 3; i++ {
		require.False(t, w.cycle())
	}
	require.Equal(t, before, w.eventVersions(w.ns))

	// A failure from Cloudflare: one Warning with Cloudflare's message,
	// counted again for each new attempt, not for each cycle.
	w.patchAnnotations(w.ns, "api", map[string]any{"allowGroups": "Nobody"})
	w.cycle()
	w.run(kubeWorker)
	warn := func() *eventsv1.Event {
		for _, e := range w.eventObjects(w.ns) {
			if e.Reason == "CloudflareAPIError" && e.Regarding.Kind == "HTTPRoute" {
				return &e
			}
		}
		return nil
	}
	e := warn()
	require.NotNil(t, e)
	require.Equal(t, "Warning", e.Type)
	require.Contains(t, e.Note, "Access groups not found in account "+w.sim.AccountID+": Nobody")
	require.Nil(t, e.Series)
	before = w.eventVersions(w.ns)
	w.run(kubeWorker)
	require.Equal(t, before, w.eventVersions(w.ns), "a failure seen again is not recorded again")
	w.run(kubeWorker, "kw_retry_base_seconds=0") // re-queue now
	w.run(cloudflareWorker, `{"cf_api_retry_delays": [0, 0, 0]}`)
	w.run(kubeWorker)
	e = warn()
	require.NotNil(t, e.Series)
	require.EqualValues(t, 2, e.Series.Count)

	// A bad annotation: one Warning with the reason, once.
	w.patchAnnotations(w.ns, "api", map[string]any{"allowGroups": nil, "tls-timeout": "9999"})
	w.run(kubeWorker)
	require.Contains(t, w.events(w.ns, "HTTPRoute", "api"),
		fmt.Sprintf("InvalidAnnotation: %s/api: annotation %stls-timeout: \"9999\" is not an integer from 1 to 300", w.ns, prefix))
	before = w.eventVersions(w.ns)
	w.run(kubeWorker)
	require.Equal(t, before, w.eventVersions(w.ns))
}
