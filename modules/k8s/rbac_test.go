package k8s

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// TestLeastPrivilege runs the modules with the operator's token, which has
// only what RBAC grants it here, and checks that no credential reaches a
// result or a message.
func TestLeastPrivilege(t *testing.T) {
	ns := namespace(t, "least-priv")
	other := namespace(t, "least-priv-other")
	op := env(cluster.OperatorToken)

	res, msg := fails(t, call{mod: "k8s_info", env: op, args: "{kind: ConfigMap, namespace: " + ns + "}"})
	require.Contains(t, msg, "(403)\nReason: Forbidden")
	require.Contains(t, msg, `cannot list resource \\"configmaps\\"`)
	noSecrets(t, res)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	grant := func(rules string) {
		require.NoError(t, cluster.ApplyYAML(ctx, `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: operator, namespace: `+ns+`}
rules:
`+rules+`
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: operator, namespace: `+ns+`}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: operator}
subjects: [{kind: ServiceAccount, name: cfzt-operator, namespace: cfzt-system}]
`))
	}
	grant(`- {apiGroups: [""], resources: [configmaps], verbs: [get, list, create, patch, delete]}
- {apiGroups: [test.cfzt.io], resources: [gadgets], verbs: [get, list, create, patch]}`)

	// RBAC changes reach the authorizer through a watch: allow a moment.
	require.Eventually(t, func() bool {
		return !value.Truthy(run(t, call{mod: "k8s_info", env: op, args: "{kind: ConfigMap, namespace: " + ns + "}"}).Default("failed", false))
	}, 10*time.Second, 100*time.Millisecond)

	cm := `{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ` + ns + `}, data: {k: v}}}`
	res = ok(t, call{mod: "k8s", env: op, args: cm})
	require.True(t, changed(res))
	res = ok(t, call{mod: "k8s", env: op, args: cm})
	require.False(t, changed(res))
	noSecrets(t, res)
	ok(t, call{mod: "k8s", env: op, args: `{definition: {apiVersion: test.cfzt.io/v1, kind: Gadget, metadata: {name: g, namespace: ` + ns + `}, spec: {size: 2}}}`})

	// Status needs gadgets/status: without it the write is refused...
	st := `{api_version: test.cfzt.io/v1, kind: Gadget, name: g, namespace: ` + ns + `, status: {phase: Ready}}`
	res, msg = fails(t, call{mod: "k8s_status", env: op, args: st})
	require.True(t, strings.HasPrefix(msg, "Failed to replace status: (403)\nReason: Forbidden"), msg)
	noSecrets(t, res)
	// ...and with it, allowed.
	grant(`- {apiGroups: [""], resources: [configmaps], verbs: [get, list, create, patch, delete]}
- {apiGroups: [test.cfzt.io], resources: [gadgets], verbs: [get, list, create, patch]}
- {apiGroups: [test.cfzt.io], resources: [gadgets/status], verbs: [patch]}`)
	require.Eventually(t, func() bool {
		return !value.Truthy(run(t, call{mod: "k8s_status", env: op, args: st}).Default("failed", false))
	}, 10*time.Second, 100*time.Millisecond)

	// Nothing is granted in the other namespace.
	res, msg = fails(t, call{mod: "k8s", env: op, args: strings.ReplaceAll(cm, ns, other)})
	require.True(t, strings.HasPrefix(msg, "Failed to retrieve requested object: b'"), msg)
	require.Equal(t, "Forbidden", get(t, res, "reason"))
	noSecrets(t, res)

	res = ok(t, call{mod: "k8s", env: op, args: "{state: absent, kind: ConfigMap, name: c, namespace: " + ns + "}"})
	require.True(t, changed(res))
}

// TestImpersonationSharesDiscovery: a connection that impersonates a user
// its credentials may not impersonate cannot read discovery either. As
// kubernetes.core (whose discovery cache is a file per server), it finds
// the kind through what another connection of the run fetched, and its
// request is refused by the server for the impersonation, where it would
// otherwise fail as an unknown kind (k8s_user_impersonation's "Delete Pod
// using user_02 credentials and impersonation to user_01").
func TestImpersonationSharesDiscovery(t *testing.T) {
	ns := namespace(t, "impersonation")
	shared := module.NewShared()
	ok(t, call{mod: "k8s_info", shared: shared, args: "{kind: ConfigMap, namespace: " + ns + "}"})
	res, msg := fails(t, call{mod: "k8s_info", shared: shared, env: env(cluster.OperatorToken),
		args: "{kind: ConfigMap, namespace: " + ns + ", impersonate_user: 'system:serviceaccount:" + ns + ":nobody'}"})
	require.NotContains(t, msg, "Failed to find exact match")
	require.Contains(t, msg, "(403)\nReason: Forbidden")
	require.Contains(t, msg, "cannot impersonate")
	noSecrets(t, res)
}
