package e2e

import (
	"fmt"
	"sort"
	"strings"
)

// AnnotationPrefix is the prefix of every annotation the operator reads
// or writes on an HTTPRoute.
const AnnotationPrefix = "cfzt.cloudflare.com/"

// RouteYAML is an HTTPRoute manifest in namespace ns with the given
// annotations (names without AnnotationPrefix) and one backendRef
// NAME:8080, the shape the operator's tests use.
func RouteYAML(ns, name string, ann map[string]string) string {
	keys := make([]string, 0, len(ann))
	for k := range ann {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: %q\n  namespace: %q\n", name, ns)
	if len(ann) > 0 {
		b.WriteString("  annotations:\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "    %s%s: %q\n", AnnotationPrefix, k, ann[k])
		}
	}
	fmt.Fprintf(&b, "spec:\n  parentRefs: [{name: gw}]\n  rules:\n    - backendRefs: [{name: %s, port: 8080}]\n", name)
	return b.String()
}

// TenantYAML is a CloudflareZeroTrustTenant ns/name for the simulator's
// account and tunnel, with its API token in Secret credSecret; extra is
// more spec lines, indented by two spaces.
func (s *Sim) TenantYAML(ns, name, credSecret, extra string) string {
	return fmt.Sprintf(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustTenant
metadata: {name: %q, namespace: %q}
spec:
  accountId: %s
  tunnelId: %s
  credentialRef: {name: %s}
%s`, name, ns, s.AccountID, s.TunnelID, credSecret, extra)
}
