// Package operator holds the end-to-end tests of the whole operator: the
// manager, kube_worker and cloudflare_worker tiers run by cfzt-runner, cycle
// by cycle, as the operator ServiceAccount bound by the shipped RBAC, against
// a real kube-apiserver and the Cloudflare simulator.
//
// Every test works in namespaces of its own and sets WATCH_NAMESPACES to
// them, so tests never see each other's routes. Set CFZT_E2E_RUNNER=oracle to
// run the same tests with the reference ansible-playbook (slow: a few
// seconds per Kubernetes call).
package operator

import (
	"testing"

	"github.com/cfzt/cfzt-runner/internal/e2e"
)

var h *e2e.Harness

func TestMain(m *testing.M) {
	e2e.Main(m, func(x *e2e.Harness) { h = x })
}
