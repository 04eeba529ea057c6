package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

var (
	oracleOnce sync.Once
	oracleBin  string
	oracleErr  error
)

// OracleBinary returns the reference ansible-playbook installed by
// hack/install-oracle.sh (which installs it first when it is missing).
func (h *Harness) OracleBinary() (string, error) {
	oracleOnce.Do(func() {
		cmd := exec.Command("sh", filepath.Join(h.Root, "hack", "install-oracle.sh"))
		cmd.Dir = h.Root
		out, err := cmd.Output()
		if err != nil {
			oracleErr = fmt.Errorf("hack/install-oracle.sh: %w", err)
			return
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		oracleBin = strings.TrimSpace(lines[len(lines)-1])
		if _, err := os.Stat(oracleBin); err != nil {
			oracleErr = err
		}
	})
	return oracleBin, oracleErr
}

// RunOracle is RunPlaybook with the reference ansible-playbook instead of
// cfzt-runner. The test-only collection bench/ansible-shims (which provides
// operator_sdk.util.k8s_status) is put on the collection path ahead of the
// oracle's own collections. The exit code is -1 when the oracle is missing.
func (h *Harness) RunOracle(ctx context.Context, playbook string, env map[string]string, args ...string) (string, int) {
	bin, err := h.OracleBinary()
	if err != nil {
		return err.Error(), -1
	}
	// The installed wrapper pins ANSIBLE_COLLECTIONS_PATH, so call the
	// interpreter the way the wrapper does, with the shims added.
	dir := filepath.Dir(filepath.Dir(bin))
	site := filepath.Join(dir, "root", "usr", "lib", "python3", "dist-packages")
	merged := map[string]string{
		"PYTHONPATH":                 site,
		"ANSIBLE_COLLECTIONS_PATH":   filepath.Join(h.Root, "bench", "ansible-shims") + ":" + filepath.Join(site, "ansible_collections"),
		"ANSIBLE_PYTHON_INTERPRETER": "/usr/bin/python3",
	}
	for k, v := range env {
		merged[k] = v
	}
	script := filepath.Join(dir, "root", "usr", "bin", "ansible-playbook")
	if !filepath.IsAbs(playbook) {
		playbook = filepath.Join(h.Root, playbook)
	}
	return h.run(ctx, "/usr/bin/python3", playbook, merged, append([]string{script}, args...)...)
}
