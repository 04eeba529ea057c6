package cloudflare

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/internal/e2e"
)

// TestDevEnv keeps a cluster and a simulator running for manual work with
// the roles: CFZT_E2E_DEVENV=/path/env.sh go test -run TestDevEnv -timeout 0
// writes shell exports (operator credentials, CLOUDFLARE_API_BASE, the
// token, IDs) to that file and waits until the file is deleted.
func TestDevEnv(t *testing.T) {
	path := os.Getenv("CFZT_E2E_DEVENV")
	if path == "" {
		t.Skip("set CFZT_E2E_DEVENV to a file path to keep an environment running")
	}
	sim := e2e.StartSim(t)
	env := h.BaseEnv()
	for k, v := range sim.Env() {
		env[k] = v
	}
	env["E2E_CF_TOKEN"] = sim.Token
	env["E2E_ACCOUNT_ID"] = sim.AccountID
	env["E2E_TUNNEL_ID"] = sim.TunnelID
	env["E2E_SIM_URL"] = sim.URL
	env["E2E_ADMIN_KUBECONFIG"] = h.Cluster.AdminKubeconfig
	env["E2E_RUNNER"] = h.Runner
	for name, id := range sim.Zones {
		env["E2E_ZONE_"+strings.ToUpper(strings.NewReplacer(".", "_").Replace(name))] = id
	}
	var keys []string
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "export %s=%q\n", k, env[k])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(path); err != nil {
			return
		}
		time.Sleep(time.Second)
	}
}
