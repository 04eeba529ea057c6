package adversarial

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Issue 20 item 4. A route of another tenant (same account) claims a
// hostname that a route already has: the first keeps it, the second gets a
// HostnameConflict error and Event, and nothing of the first changes (the
// second creates nothing at all). Once the first route is deleted and its
// objects are gone, the second gets the hostname.
func TestHostnameClaimedByTwoTenants(t *testing.T) {
	a := newArena(t)
	victim, evil := "host-victim", "host-evil"
	a.tenant(victim)
	a.tenant(evil)
	a.apply(route(victim, "app", fullStack("shared.example.com")))
	a.converge()
	victimApp := a.apps("shared.example.com")
	require.Len(t, victimApp, 1)

	atk := attacker{routes: []string{"grab"}}
	before := a.snapshot(atk, victim)
	a.apply(route(evil, "grab", map[string]string{"enabled": "true", "hostname": "shared.example.com",
		"access.enabled": "true", "access.allowEveryone": "true", "serviceToken.enabled": "true"}))
	a.run(kubeWorker)
	errs, ready := a.tenantErrors(evil)
	require.Contains(t, errs, evil+"/grab HostnameConflict")
	require.Equal(t, "HostnameConflict", ready["reason"])
	require.Equal(t, "False", ready["status"])
	ev := a.events(evil, "HTTPRoute", "grab", "HostnameConflict")
	require.Len(t, ev, 1)
	require.Equal(t, "Warning", ev[0].Type)
	require.Contains(t, ev[0].Note, "shared.example.com is already claimed by another route")
	require.NotContains(t, ev[0].Note, victim, "the other tenant's route is named to the attacker")
	a.converge()
	a.requireUntouched(before, atk)
	require.Equal(t, 0, a.tokens("grab-service-token"))
	errs, _ = a.tenantErrors(evil)
	require.Contains(t, errs, evil+"/grab HostnameConflict", "the conflict is still reported")
	vErrs, vReady := a.tenantErrors(victim)
	require.Empty(t, vErrs)
	require.Equal(t, "True", vReady["status"])

	// The first route goes: its objects are deleted, then the hostname is
	// free and the waiting route gets it.
	require.NoError(t, h.Dynamic().Resource(routeGVR).Namespace(victim).Delete(a.ctx, "app", metav1.DeleteOptions{}))
	a.converge()
	now := a.apps("shared.example.com")
	require.Len(t, now, 1)
	require.NotEqual(t, victimApp, now)
	require.Equal(t, 1, a.tokens("grab-service-token"))
	require.Equal(t, 0, a.tokens("app-service-token"))
}

// Two new routes claim one hostname in the same cycle: the one created
// first gets it, the other nothing.
func TestHostnameClaimedTwiceInOneCycle(t *testing.T) {
	a := newArena(t)
	one, two := "twice-one", "twice-two"
	a.tenant(one)
	a.tenant(two)
	a.apply(route(one, "first", map[string]string{"enabled": "true", "hostname": "twice.example.com", "access.enabled": "true"}))
	a.apply(route(two, "second", map[string]string{"enabled": "true", "hostname": "twice.example.com", "access.enabled": "true", "access.allowEveryone": "true"}))
	a.converge()
	require.Len(t, a.apps("twice.example.com"), 1)
	errs, _ := a.tenantErrors(two)
	require.Contains(t, errs, two+"/second HostnameConflict")
	errs, _ = a.tenantErrors(one)
	require.Empty(t, errs)
	cm, err := h.Kube().CoreV1().ConfigMaps(h.Namespace).Get(a.ctx, "cfzt-"+one+".first", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "twice.example.com", cm.Data["hostname"])
	_, err = h.Kube().CoreV1().ConfigMaps(h.Namespace).Get(a.ctx, "cfzt-"+two+".second", metav1.GetOptions{})
	require.Error(t, err)
}
