package kdisco_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The runner binary must not link the generated Kubernetes API types: they
// double its size and resident memory. They come in through client-go's
// discovery, restmapper, leaderelection, dynamicinformer, typed clients
// and informers; this package, cache.ListWatch over the dynamic client and
// the operator's own Lease elector stand in for those.
func TestRunnerLinksNoGeneratedAPITypes(t *testing.T) {
	// go test puts its own GOROOT/bin first in PATH.
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goBin, "list", "-deps", "github.com/cfzt/cfzt-runner/cmd/cfzt-runner")
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	forbidden := []string{
		"k8s.io/api/",
		"k8s.io/client-go/kubernetes",
		"k8s.io/client-go/informers",
		"k8s.io/client-go/discovery",
		"k8s.io/client-go/restmapper",
		"k8s.io/client-go/tools/leaderelection",
		"k8s.io/client-go/dynamic/dynamicinformer",
	}
	var bad []string
	for _, pkg := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(pkg, f) {
				bad = append(bad, pkg)
				break
			}
		}
	}
	if len(bad) > 0 {
		t.Fatalf("cmd/cfzt-runner depends on %d packages it should not (`go mod why PACKAGE` shows the import path):\n%s",
			len(bad), strings.Join(bad, "\n"))
	}
}
