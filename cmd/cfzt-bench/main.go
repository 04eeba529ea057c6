// Command cfzt-bench runs the benchmark scenarios of bench/README.md with
// the reference ansible-playbook and cfzt-runner, interleaved, and prints
// and writes the result tables (`make bench`).
//
// Environment:
//
//	BENCH_RUNS       measured runs per runner and case (default 5)
//	BENCH_WARMUP     unrecorded warm-up runs before them (default 1)
//	BENCH_SCENARIOS  comma-separated scenario numbers or names (default all)
//	BENCH_OUT        the Markdown report (default bench/results.md)
//	BENCH_RUNNER     the cfzt-runner binary (default bin/cfzt-runner)
//	ORACLE_DIR       where hack/install-oracle.sh installs ansible-playbook
//	BENCH_K8S_CONFIGMAPS, BENCH_K8S_PATCHES  sizes of scenario 3 (1000, 200)
//	BENCH_COMMAND_ITEMS  loop size of scenario 6 (1000)
//	BENCH_TEMPLATE_ITEMS loop size of scenario 7 (1000)
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/internal/bench"
	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "cfzt-bench:", err)
		os.Exit(1)
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n >= 0 {
		return n
	}
	return def
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root, err := kubetest.RepoRoot()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "cfzt-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := os.MkdirAll(filepath.Join(work, "home", ".ansible", "tmp"), 0o755); err != nil {
		return err
	}
	runnerBin := os.Getenv("BENCH_RUNNER")
	if runnerBin == "" {
		runnerBin = filepath.Join(root, "bin", "cfzt-runner")
	}
	if runnerBin, err = filepath.Abs(runnerBin); err != nil {
		return err
	}
	measure := filepath.Join(work, "cfzt-measure")
	build := exec.Command("go", "build", "-o", measure, "./cmd/cfzt-measure")
	build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building cmd/cfzt-measure: %w", err)
	}
	oracle, err := oracleRunner(root)
	if err != nil {
		return err
	}
	b := &bench.Bench{
		Root:    root,
		Runs:    max(1, envInt("BENCH_RUNS", 5)),
		Warmup:  envInt("BENCH_WARMUP", 1),
		Work:    work,
		Measure: measure,
		Log:     os.Stderr,
		Runners: []*bench.Runner{
			oracle,
			{Name: "cfzt-runner", Command: []string{runnerBin}},
		},
	}
	b.Versions = []string{
		"ansible-playbook: " + version(b.Runners[0]),
		"cfzt-runner: " + version(b.Runners[1]),
	}
	out := os.Getenv("BENCH_OUT")
	if out == "" {
		out = filepath.Join(root, "bench", "results.md")
	}
	selected := selection(os.Getenv("BENCH_SCENARIOS"))
	report := b.Header(machine())
	fmt.Print(report)
	for _, sc := range bench.Scenarios() {
		if !selected(sc) {
			continue
		}
		fmt.Fprintf(os.Stderr, "== scenario %d: %s\n", sc.ID, sc.Name)
		results, err := b.RunScenario(ctx, sc)
		var missing *bench.MissingError
		if err != nil && !errors.As(err, &missing) {
			err = fmt.Errorf("failed: %w", err)
			fmt.Fprintf(os.Stderr, "  %v\n", err)
		}
		table := b.Markdown(sc, results, err)
		fmt.Print(table)
		report += table
		if werr := os.WriteFile(out, []byte(report), 0o644); werr != nil {
			return werr
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	fmt.Fprintf(os.Stderr, "wrote %s\n", out)
	return nil
}

// oracleRunner finds (installing if needed) the reference ansible-playbook
// and runs its Python entry point directly, so that the test-only
// collection bench/ansible-shims can go on the collection path.
func oracleRunner(root string) (*bench.Runner, error) {
	args := []string{filepath.Join(root, "hack", "install-oracle.sh")}
	if d := os.Getenv("ORACLE_DIR"); d != "" {
		args = append(args, d)
	}
	cmd := exec.Command("sh", args...)
	cmd.Stderr = os.Stderr
	outb, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("hack/install-oracle.sh: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(outb)), "\n")
	bin := strings.TrimSpace(lines[len(lines)-1])
	dir := filepath.Dir(filepath.Dir(bin))
	site := filepath.Join(dir, "root", "usr", "lib", "python3", "dist-packages")
	script := filepath.Join(dir, "root", "usr", "bin", "ansible-playbook")
	if _, err := os.Stat(script); err != nil {
		return nil, fmt.Errorf("reference ansible-playbook: %w", err)
	}
	return &bench.Runner{
		Name:    "ansible-playbook",
		Command: []string{"/usr/bin/python3", script},
		Env: map[string]string{
			"PYTHONPATH":                 site,
			"ANSIBLE_COLLECTIONS_PATH":   filepath.Join(root, "bench", "ansible-shims") + ":" + filepath.Join(site, "ansible_collections"),
			"ANSIBLE_PYTHON_INTERPRETER": "/usr/bin/python3",
		},
	}, nil
}

// version is the first line of a runner's --version output.
func version(r *bench.Runner) string {
	cmd := exec.Command(r.Command[0], append(r.Command[1:], "--version")...)
	cmd.Env = os.Environ()
	for k, v := range r.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.Output()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	l, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return l
}

func selection(spec string) func(*bench.Scenario) bool {
	if strings.TrimSpace(spec) == "" {
		return func(*bench.Scenario) bool { return true }
	}
	want := map[string]bool{}
	for _, s := range strings.Split(spec, ",") {
		want[strings.TrimSpace(s)] = true
	}
	return func(sc *bench.Scenario) bool { return want[strconv.Itoa(sc.ID)] || want[sc.Name] }
}

// machine describes the CPU, core count, memory and kernel.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "MemTotal:") {
				f := strings.Fields(l)
				if len(f) >= 2 {
					if kb, err := strconv.Atoi(f[1]); err == nil {
						mem = fmt.Sprintf(", %.1f GiB RAM", float64(kb)/1024/1024)
					}
				}
			}
		}
	}
	kernel := ""
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = ", Linux " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%s, %d CPUs%s%s, %s", model, runtime.NumCPU(), mem, kernel, runtime.Version())
}
