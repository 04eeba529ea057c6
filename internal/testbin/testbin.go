// Package testbin gives tests the cfzt-runner binary to run: the one named
// by $CFZT_RUNNER, or else one built from this tree once per test process.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

// Env names a prebuilt cfzt-runner for tests to use instead of building one.
const Env = "CFZT_RUNNER"

var (
	once sync.Once
	path string
	err  error
)

// Runner returns $CFZT_RUNNER, or builds ./cmd/cfzt-runner into dir (a
// directory that outlives the tests using it) on the first call of the
// process and returns that binary on every call.
func Runner(dir string) (string, error) {
	once.Do(func() {
		if p := os.Getenv(Env); p != "" {
			if _, err = os.Stat(p); err != nil {
				err = fmt.Errorf("%s: %w", Env, err)
				return
			}
			path, err = filepath.Abs(p)
			return
		}
		root, e := kubetest.RepoRoot()
		if e != nil {
			err = e
			return
		}
		out := filepath.Join(dir, "cfzt-runner")
		cmd := exec.Command("go", "build", "-o", out, "./cmd/cfzt-runner")
		cmd.Dir = root
		if b, e := cmd.CombinedOutput(); e != nil {
			err = fmt.Errorf("building cfzt-runner: %v\n%s", e, b)
			return
		}
		path = out
	})
	return path, err
}
