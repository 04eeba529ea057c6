package adversarial

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PITFALLS 15 / issue 20 item 3. Route web in namespace team-a and route
// a-web in namespace team both mapped to cfzt-team-a-web; now each has its
// own state and task (cfzt-team-a.web, cfzt-team.a-web), bound to its UID,
// and neither reconciling nor deleting the second touches the first.
func TestStateNamesCannotCollide(t *testing.T) {
	a := newArena(t)
	a.tenant("team-a")
	a.tenant("team")
	a.apply(route("team-a", "web", fullStack("web-a.example.com")))
	a.converge()

	atk := attacker{routes: []string{"a-web"}, hosts: []string{"web-b.example.com"}, tokens: []string{"a-web-service-token"}}
	before := a.snapshot(atk, "team-a")
	a.apply(route("team", "a-web", fullStack("web-b.example.com")))
	a.converge()
	a.requireUntouched(before, atk)
	require.Len(t, a.apps("web-a.example.com"), 1)
	require.Len(t, a.apps("web-b.example.com"), 1)

	for ns, name := range map[string]string{"team-a": "web", "team": "a-web"} {
		r, err := h.Dynamic().Resource(routeGVR).Namespace(ns).Get(a.ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		cm, err := h.Kube().CoreV1().ConfigMaps(h.Namespace).Get(a.ctx, "cfzt-"+ns+"."+name, metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, string(r.GetUID()), cm.Data["httproute_uid"])
		require.Equal(t, ns, cm.Data["httproute_namespace"])
		require.Equal(t, name, cm.Data["httproute_name"])
		require.Equal(t, string(r.GetUID()), cm.Labels[prefix+"route-uid"])
	}

	// Deleting the second route deletes its objects only.
	require.NoError(t, h.Dynamic().Resource(routeGVR).Namespace("team").Delete(a.ctx, "a-web", metav1.DeleteOptions{}))
	a.converge()
	a.requireUntouched(before, atk)
	require.Empty(t, a.apps("web-b.example.com"))
	require.Equal(t, 0, a.tokens("a-web-service-token"))
}

// Existing installs keep their state under the old name cfzt-NS-NAME. It is
// still found (bound to the route's UID), so nothing is recreated; the
// route's next reconcile writes the new name and the old one is removed.
func TestLegacyStateNameIsMigrated(t *testing.T) {
	a := newArena(t)
	ns := "legacy"
	a.tenant(ns)
	a.apply(route(ns, "app", fullStack("legacy.example.com")))
	a.converge()
	appIDs := a.apps("legacy.example.com")
	require.Len(t, appIDs, 1)

	// Put the state where an older operator kept it.
	cms := h.Kube().CoreV1().ConfigMaps(h.Namespace)
	cm, err := cms.Get(a.ctx, "cfzt-legacy.app", metav1.GetOptions{})
	require.NoError(t, err)
	old := cm.DeepCopy()
	old.ObjectMeta = metav1.ObjectMeta{Name: "cfzt-legacy-app", Namespace: h.Namespace, Labels: cm.Labels, Annotations: cm.Annotations}
	delete(old.Labels, prefix+"route-uid")
	_, err = cms.Create(a.ctx, old, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, cms.Delete(a.ctx, "cfzt-legacy.app", metav1.DeleteOptions{}))

	// In sync from the legacy state: nothing queued.
	writes := a.sim.CountWrites()
	a.run(kubeWorker)
	require.Empty(t, a.tasks())

	// A change reconciles from the legacy state's IDs, then migrates.
	ann := fullStack("legacy.example.com")
	ann["access.sessionDuration"] = "12h"
	a.apply(route(ns, "app", ann))
	a.converge()
	require.Equal(t, appIDs, a.apps("legacy.example.com"), "the Access application was recreated")
	require.Equal(t, 1, a.tokens("app-service-token"))
	_, err = cms.Get(a.ctx, "cfzt-legacy-app", metav1.GetOptions{})
	require.Error(t, err, "the legacy state ConfigMap is left")
	_, err = cms.Get(a.ctx, "cfzt-legacy.app", metav1.GetOptions{})
	require.NoError(t, err)
	require.Greater(t, a.sim.CountWrites(), writes)
}
