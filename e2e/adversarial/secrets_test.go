package adversarial

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PITFALLS 14 / issue 20 item 2. The operator creates, overwrites and
// deletes only Secrets it wrote for the route (managed-by label,
// ownerReference and route-UID annotation).
func TestSecretsTheOperatorDidNotWrite(t *testing.T) {
	a := newArena(t)
	ns := "sec-tenant"
	a.tenant(ns)
	a.apply(route(ns, "app", fullStack("sapp.example.com")))
	a.converge()

	// The attack: serviceTokenSecretName names the tenant's
	// API-token Secret on a route that has no service token.
	a.sub("serviceTokenSecretName names the API-token Secret", func() {
		atk := attacker{routes: []string{"precious"}, hosts: []string{"precious.example.com"}}
		before := a.snapshot(atk, ns)
		a.apply(route(ns, "precious", map[string]string{"enabled": "true", "hostname": "precious.example.com",
			"serviceTokenSecretName": credSecret}))
		a.converge()
		a.requireUntouched(before, atk)
		require.NotEmpty(a.t, a.events(ns, "HTTPRoute", "precious", "ForeignID"))
		// Disabling the route (the delete path) leaves it alone too.
		a.apply(route(ns, "precious", map[string]string{"enabled": "false", "hostname": "precious.example.com",
			"serviceTokenSecretName": credSecret}))
		a.converge()
		a.requireUntouched(before, atk)
	})

	// A route whose token is switched off deletes its old token Secret
	// only: the name comes from the state, and a Secret the tenant put
	// there instead (same name, not written by the operator) is kept.
	a.sub("the token Secret replaced by the tenant's own", func() {
		atk := attacker{routes: []string{"rotor"}, hosts: []string{"rotor.example.com"}, tokens: []string{"rotor-service-token"}}
		a.apply(route(ns, "rotor", fullStack("rotor.example.com")))
		a.converge()
		sec := a.secret(ns, "rotor-cfzt-service-token")
		require.NotNil(a.t, sec)
		require.Equal(a.t, "cfzt-operator", sec.Labels["app.kubernetes.io/managed-by"])
		r := a.annotations(ns, "rotor")
		require.Equal(a.t, "rotor-cfzt-service-token", r[prefix+"serviceTokenSecretName"])

		// The tenant replaces the Secret with one of its own.
		require.NoError(a.t, h.Kube().CoreV1().Secrets(ns).Delete(a.ctx, "rotor-cfzt-service-token", metav1.DeleteOptions{}))
		a.createSecret(ns, "rotor-cfzt-service-token")
		kept := a.secret(ns, "rotor-cfzt-service-token")
		before := a.snapshot(atk, ns)
		ann := fullStack("rotor.example.com")
		ann["serviceToken.enabled"] = "false"
		a.apply(route(ns, "rotor", ann))
		a.converge()
		a.requireUntouched(before, atk)
		require.Equal(a.t, 0, a.tokens("rotor-service-token"), "the token was not deleted")
		now := a.secret(ns, "rotor-cfzt-service-token")
		require.NotNil(a.t, now, "the tenant's Secret was deleted")
		require.Equal(a.t, kept.ResourceVersion, now.ResourceVersion)
		require.Equal(a.t, kept.Data, now.Data)
	})

	// A token Secret written by an earlier release (label and
	// ownerReference, no route-UID annotation) is still the operator's: it
	// is deleted with its token.
	a.sub("a token Secret of an earlier release", func() {
		a.apply(route(ns, "old", fullStack("old.example.com")))
		a.converge()
		sec := a.secret(ns, "old-cfzt-service-token")
		require.NotNil(a.t, sec)
		require.NotEmpty(a.t, sec.Annotations[prefix+"route-uid"])
		require.NotEmpty(a.t, sec.OwnerReferences)
		delete(sec.Annotations, prefix+"route-uid")
		_, err := h.Kube().CoreV1().Secrets(ns).Update(a.ctx, sec, metav1.UpdateOptions{})
		require.NoError(a.t, err)
		ann := fullStack("old.example.com")
		ann["serviceToken.enabled"] = "false"
		a.apply(route(ns, "old", ann))
		a.converge()
		require.Nil(a.t, a.secret(ns, "old-cfzt-service-token"), "the operator's own Secret is left")
		require.Equal(a.t, 0, a.tokens("old-service-token"))
	})

	// The Secret a new token's credentials go to exists and is the
	// tenant's: SecretConflict, and the Secret is left alone.
	a.sub("the token Secret's name is taken", func() {
		a.createSecret(ns, "taken-cfzt-service-token")
		atk := attacker{routes: []string{"taken"}, hosts: []string{"taken.example.com"}, tokens: []string{"taken-service-token"}}
		before := a.snapshot(atk, ns)
		kept := a.secret(ns, "taken-cfzt-service-token")
		a.apply(route(ns, "taken", fullStack("taken.example.com")))
		a.run(kubeWorker)
		a.run(cloudflareWorker)
		a.run(kubeWorker)
		errs, ready := a.tenantErrors(ns)
		require.Contains(a.t, errs, ns+"/taken SecretConflict")
		require.Equal(a.t, "SecretConflict", ready["reason"])
		ev := a.events(ns, "HTTPRoute", "taken", "SecretConflict")
		require.Len(a.t, ev, 1)
		require.Equal(a.t, "Warning", ev[0].Type)
		a.converge()
		a.requireUntouched(before, atk)
		now := a.secret(ns, "taken-cfzt-service-token")
		require.Equal(a.t, kept.ResourceVersion, now.ResourceVersion)
		require.Equal(a.t, kept.Data, now.Data)
		require.Empty(a.t, a.annotations(ns, "taken")[prefix+"serviceTokenSecretName"])
	})
}

func (a *arena) secret(ns, name string) *corev1.Secret {
	a.t.Helper()
	s, err := h.Kube().CoreV1().Secrets(ns).Get(a.ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return s
}

// createSecret creates a Secret of the tenant's own (no operator labels).
func (a *arena) createSecret(ns, name string) {
	a.t.Helper()
	_, err := h.Kube().CoreV1().Secrets(ns).Create(a.ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Data:       map[string][]byte{"password": []byte("hunter2")},
	}, metav1.CreateOptions{})
	require.NoError(a.t, err)
}
