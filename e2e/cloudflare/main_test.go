// Package cloudflare holds the end-to-end tests of the Cloudflare tier: the
// cloudflare_worker playbook run by cfzt-runner against a real
// kube-apiserver and the Cloudflare simulator.
package cloudflare

import (
	"testing"

	"github.com/cfzt/cfzt-runner/internal/e2e"
)

var h *e2e.Harness

func TestMain(m *testing.M) {
	e2e.Main(m, func(x *e2e.Harness) { h = x })
}
