package bench

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/display"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/internal/testbin"
	"github.com/cfzt/cfzt-runner/modules"
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
	b := &Bench{Root: root, Work: work, Log: os.Stderr, Runners: []*Runner{{Name: "ansible-playbook"}, {Name: "cfzt-runner", Command: []string{bin}}}}
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
	for _, book := range []string{kube, cf, kube} {
		if s := b.RunPlaybook(ctx, b.Runners[1], filepath.Dir(book), book, env); s.Failed != "" {
			t.Fatal(s.Failed)
		}
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	t.Setenv("HOME", filepath.Join(work, "home"))
	reg, err := modules.NewRegistry(modules.Builtin(), k8s.Modules(), uri.Modules())
	if err != nil {
		t.Fatal(err)
	}
	playbook.SetKnownModules(reg.Names())
	cycle := func() time.Duration {
		loader := playbook.NewLoader(reg.Resolve, filepath.SplitList(o.rolesPath))
		pb, err := loader.LoadPlaybook(kube)
		if err != nil {
			t.Fatal(err)
		}
		r := &run.Runner{Engine: template.New(), Modules: reg, Loader: loader, Display: &display.Default{Out: io.Discard, Err: io.Discard},
			Inventory: run.NewInventory(), Stdout: io.Discard}
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
