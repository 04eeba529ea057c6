// Package chaos breaks the operator mid-flight and checks that it still
// converges: its tiers run as long-lived `cfzt-runner --watch` processes
// (as the operator ServiceAccount, with the shipped RBAC) against a real
// kube-apiserver and the Cloudflare simulator, while a test kills a
// cloudflare_worker at random moments, restarts the apiserver, makes
// Cloudflare answer 429 and 5xx or drop connections, runs two of each
// worker at once, or deletes a route while its task runs. After each, every
// route converges with no duplicate or orphaned Cloudflare object, no lost
// ID and no task left behind (requireEndState).
//
// Random choices come from a seed that each test logs; CFZT_CHAOS_SEED
// replays one.
package chaos

import (
	"testing"

	"github.com/cfzt/cfzt-runner/internal/e2e"
)

var h *e2e.Harness

func TestMain(m *testing.M) {
	e2e.Main(m, func(x *e2e.Harness) { h = x })
}
