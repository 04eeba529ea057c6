package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/display"
	"github.com/cfzt/cfzt-runner/engine/inventory"
	"github.com/cfzt/cfzt-runner/engine/lookup"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/internal/testbin"
	"github.com/cfzt/cfzt-runner/modules/builtin"
	"github.com/cfzt/cfzt-runner/modules/k8s"
	"github.com/cfzt/cfzt-runner/modules/uri"
)

// TestProfileSteadyState profiles cfzt-runner's steady-state kube_worker
// cycle at N routes, in process, for finding where its time goes. It runs
// only when CFZT_BENCH_PROFILE_N is set; the CPU profile goes to
// $CFZT_BENCH_PROFILE_OUT (default /tmp/cfzt-steady.prof):
//
//	CFZT_BENCH_PROFILE_N=1000 go test -run TestProfileSteadyState -v ./internal/bench
//	go tool pprof -top /tmp/cfzt-steady.prof
func TestProfileSteadyState(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CFZT_BENCH_PROFILE_N"))
	if n <= 0 {
		t.Skip("set CFZT_BENCH_PROFILE_N")
	}
	out := os.Getenv("CFZT_BENCH_PROFILE_OUT")
	if out == "" {
		out = "/tmp/cfzt-steady.prof"
	}
	ctx := context.Background()
	root, _ := filepath.Abs("../..")
	work := t.TempDir()
	bin, err := testbin.Runner(work)
	if err != nil {
		t.Fatal(err)
	}
	measure := filepath.Join(work, "cfzt-measure")
	build := exec.Command("go", "build", "-o", measure, "./cmd/cfzt-measure")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building cfzt-measure: %v\n%s", err, out)
	}
	b := &Bench{Root: root, Work: work, Measure: measure, Log: os.Stderr,
		Runners: []*Runner{{Name: "ansible-playbook"}, {Name: "cfzt-runner", Command: []string{bin}}}}
	o, err := startOperatorEnv(ctx, b)
	defer o.close()
	if err != nil {
		t.Fatal(err)
	}
	namespaces, err := o.populate(ctx, "prof", n)
	if err != nil {
		t.Fatal(err)
	}
	env := o.env(namespaces)
	kube := filepath.Join(root, "ansible", "playbooks", "kube_worker.yml")
	cf := filepath.Join(root, "ansible", "playbooks", "cloudflare_worker.yml")
	// CFZT_BENCH_PHASE_PROFILES names a directory for the CPU and heap
	// profiles of phases 1 to 3 (phase1.cpu, phase1.heap, ...), written by
	// the runner itself (CFZT_CPUPROFILE, CFZT_MEMPROFILE).
	profDir := os.Getenv("CFZT_BENCH_PHASE_PROFILES")
	for i, book := range []string{kube, cf, kube} {
		penv := env
		if profDir != "" {
			penv = map[string]string{}
			for k, v := range env {
				penv[k] = v
			}
			penv["CFZT_CPUPROFILE"] = filepath.Join(profDir, fmt.Sprintf("phase%d.cpu", i+1))
			penv["CFZT_MEMPROFILE"] = filepath.Join(profDir, fmt.Sprintf("phase%d.heap", i+1))
		}
		s := b.RunPlaybook(ctx, b.Runners[1], filepath.Dir(book), book, penv)
		if s.Failed != "" {
			t.Fatal(s.Failed)
		}
		t.Logf("phase %d as a process: %v, peak RSS %d KiB", i+1, s.Wall, s.RSSKB)
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	t.Setenv("HOME", filepath.Join(work, "home"))
	reg, err := module.NewRegistry(builtin.Entries(), k8s.Entries(), uri.Entries())
	if err != nil {
		t.Fatal(err)
	}
	cycle := func() time.Duration {
		loader := playbook.NewLoader(reg, filepath.SplitList(o.rolesPath))
		pb, err := loader.LoadPlaybook(kube)
		if err != nil {
			t.Fatal(err)
		}
		r := &run.Runner{Engine: template.New(lookup.Libraries()...), Modules: reg, Loader: loader, Display: &display.Default{Out: io.Discard, Err: io.Discard},
			Inventory: inventory.New(), Stdout: io.Discard}
		start := time.Now()
		if rc := r.Run(ctx, pb); rc != 0 {
			t.Fatalf("kube_worker exited %d", rc)
		}
		return time.Since(start)
	}
	t.Logf("warm-up steady-state cycle: %v", cycle())
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		t.Logf("steady-state cycle %d: %v", i+1, cycle())
	}
	pprof.StopCPUProfile()
	t.Logf("CPU profile in %s", out)
	// The same cycle as a process, as the benchmark measures it.
	for i := range 5 {
		s := b.RunPlaybook(ctx, b.Runners[1], filepath.Dir(kube), kube, env)
		if s.Failed != "" {
			t.Fatal(s.Failed)
		}
		t.Logf("steady-state cycle as a process %d: %v, peak RSS %d KiB", i+1, s.Wall, s.RSSKB)
	}
}
