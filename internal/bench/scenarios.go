package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

// Scenarios lists every scenario of issue 7 in order.
func Scenarios() []*Scenario {
	return []*Scenario{
		{ID: 1, Name: "startup", Title: "Startup: a one-task debug playbook", Setup: setupStartup},
		{ID: 2, Name: "engine", Title: "Engine: 2,000-item set_fact loop (combine, selectattr, map, regex_replace) and nested include_tasks", Setup: setupEngine},
		{ID: 3, Name: "k8s", Title: "Kubernetes modules against a real kube-apiserver", Setup: setupKube},
		{ID: 4, Name: "operator", Title: "The operator: kube_worker and cloudflare_worker cycles at N = 10, 100, 1,000 HTTPRoutes", Setup: setupOperator},
		{ID: 5, Name: "latency", Title: "Event latency: HTTPRoute annotation to rule in the Cloudflare simulator", Setup: setupLatency},
		{ID: 6, Name: "command", Title: "Processes: a 1,000-item loop of command: echo", Setup: setupCommand},
		{ID: 7, Name: "template", Title: "Files: a 1,000-item loop of template to 1,000 files", Setup: setupTemplate},
	}
}

// playbookCase measures one playbook run per call.
func (b *Bench) playbookCase(name, playbook string, env map[string]string, args func(iter int) []string) Case {
	return Case{Name: name, Run: func(ctx context.Context, r *Runner, iter int) ([]Sample, error) {
		var a []string
		if args != nil {
			a = args(iter)
		}
		return []Sample{b.RunPlaybook(ctx, r, filepath.Dir(playbook), playbook, env, a...)}, nil
	}}
}

func setupStartup(_ context.Context, b *Bench) ([]Case, func(), error) {
	return []Case{b.playbookCase("debug, one task", filepath.Join(b.Root, "bench/scenarios/startup.yml"), nil, nil)}, nil, nil
}

func setupEngine(_ context.Context, b *Bench) ([]Case, func(), error) {
	return []Case{b.playbookCase("2,000-item loop + includes", filepath.Join(b.Root, "bench/scenarios/engine.yml"), nil, nil)}, nil, nil
}

// setupCommand measures the command module, which starts one process per
// item; BENCH_COMMAND_ITEMS overrides the 1,000 items for quick runs.
func setupCommand(_ context.Context, b *Bench) ([]Case, func(), error) {
	return b.loopCase("command", "command: echo", "BENCH_COMMAND_ITEMS"), nil, nil
}

// setupTemplate measures the template module, which renders and writes one
// file per item; BENCH_TEMPLATE_ITEMS overrides the 1,000 items.
func setupTemplate(_ context.Context, b *Bench) ([]Case, func(), error) {
	return b.loopCase("template", "template", "BENCH_TEMPLATE_ITEMS"), nil, nil
}

// loopCase is the case of bench/scenarios/<name>.yml, a loop of one module
// over <name>_items items: 1,000, or the number in the environment
// variable sizeEnv.
func (b *Bench) loopCase(name, what, sizeEnv string) []Case {
	items := 1000
	if n, err := strconv.Atoi(os.Getenv(sizeEnv)); err == nil && n > 0 {
		items = n
	}
	vars := []string{"-e", name + "_items=" + strconv.Itoa(items)}
	return []Case{b.playbookCase(fmt.Sprintf("%d-item loop of %s", items, what), filepath.Join(b.Root, "bench/scenarios/"+name+".yml"), nil,
		func(int) []string { return vars })}
}

// Sizes of the Kubernetes scenario; BENCH_K8S_CONFIGMAPS and
// BENCH_K8S_PATCHES override them for quick runs.
func kubeSizes() (configMaps, patches int) {
	configMaps, patches = 1000, 200
	if n, err := strconv.Atoi(os.Getenv("BENCH_K8S_CONFIGMAPS")); err == nil && n > 0 {
		configMaps = n
	}
	if n, err := strconv.Atoi(os.Getenv("BENCH_K8S_PATCHES")); err == nil && n > 0 {
		patches = n
	}
	// info-configmaps.yml reads cm-0042 and one tenth of them by label.
	configMaps = max(50, configMaps/10*10)
	if patches > configMaps {
		patches = configMaps
	}
	return
}

func setupKube(ctx context.Context, b *Bench) ([]Case, func(), error) {
	n, patches := kubeSizes()
	info := filepath.Join(b.Root, "bench/scenarios/k8s/info-configmaps.yml")
	patch := filepath.Join(b.Root, "bench/scenarios/k8s/patch-configmaps.yml")
	for _, p := range []string{info, patch} {
		if _, err := os.Stat(p); err != nil {
			return nil, nil, &MissingError{"needs " + p}
		}
	}
	fmt.Fprintf(b.Log, "  starting kube-apiserver (internal/kubetest) ...\n")
	cluster, err := kubetest.Start(kubetest.Options{})
	if err != nil {
		return nil, nil, err
	}
	proxy, err := StartKubeProxy(cluster, b.Work)
	if err != nil {
		cluster.Stop()
		return nil, nil, err
	}
	teardown := func() { proxy.Close(); cluster.Stop() }
	fmt.Fprintf(b.Log, "  seeding %d ConfigMaps ...\n", n)
	const ns = "bench"
	if err := seedConfigMaps(ctx, cluster, ns, n); err != nil {
		return nil, teardown, err
	}
	env := proxy.Env()
	vars := []string{"-e", "bench_namespace=" + ns, "-e", "bench_count=" + strconv.Itoa(n), "-e", "bench_patches=" + strconv.Itoa(patches)}
	counted := func(name, playbook string, args func(iter int) []string) Case {
		return Case{Name: name, Run: func(ctx context.Context, r *Runner, iter int) ([]Sample, error) {
			proxy.Take()
			s := b.RunPlaybook(ctx, r, filepath.Dir(playbook), playbook, env, args(iter)...)
			s.Requests = proxy.Take()
			return []Sample{s}, nil
		}}
	}
	run := 0
	return []Case{
		counted(fmt.Sprintf("k8s_info over %d ConfigMaps", n), info,
			func(int) []string { return vars }),
		counted(fmt.Sprintf("%d sequential k8s state=patched", patches), patch,
			func(iter int) []string {
				// A fresh value per run, so every patch changes the object.
				run++
				return append(append([]string(nil), vars...), "-e", fmt.Sprintf("run_id=run-%d", run))
			}),
	}, teardown, nil
}

// operatorPrereqs lists what scenarios 4 and 5 need that is missing.
func (b *Bench) operatorPrereqs(needWatch bool) []string {
	var missing []string
	for _, p := range []string{"ansible/roles/kube_worker", "ansible/roles/cloudflare_worker", "ansible/roles/cloudflare_api"} {
		if _, err := os.Stat(filepath.Join(b.Root, p)); err != nil {
			missing = append(missing, p)
		}
	}
	books, _ := filepath.Glob(filepath.Join(b.Root, "ansible/playbooks/*.yml"))
	if len(books) == 0 {
		missing = append(missing, "ansible/playbooks/*.yml (the playbooks that run kube_worker and cloudflare_worker)")
	}
	if needWatch {
		out, _ := exec.Command(b.Runners[1].Command[0], "--help").CombinedOutput()
		if !strings.Contains(string(out), "-watch") {
			missing = append(missing, "cfzt-runner --watch")
		}
	}
	return missing
}
