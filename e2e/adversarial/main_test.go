// Package adversarial holds the end-to-end tests of the operator against a
// hostile app team (issue 20, PITFALLS 13-15): every annotation of an
// HTTPRoute is untrusted, so a route must never reach what belongs to
// another route. Each test runs the operator's tiers with cfzt-runner, as
// the operator ServiceAccount, on a real kube-apiserver and the Cloudflare
// simulator, mounts one attack, and asserts that nothing outside the
// attacker's own route changed: the simulator's full state (less the
// attacker's own objects) and the victim's Kubernetes objects are compared
// before and after.
//
// Shared helpers live in harness_test.go; fault-injection tests (another
// file) use their own helpers, prefixed "fault".
package adversarial

import (
	"testing"

	"github.com/cfzt/cfzt-runner/internal/e2e"
)

var h *e2e.Harness

func TestMain(m *testing.M) {
	e2e.Main(m, func(x *e2e.Harness) { h = x })
}
