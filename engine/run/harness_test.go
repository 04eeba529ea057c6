package run_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/display"
	"github.com/cfzt/cfzt-runner/engine/inventory"
	"github.com/cfzt/cfzt-runner/engine/lookup"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/builtin"
	"github.com/cfzt/cfzt-runner/modules/facts"
	"github.com/cfzt/cfzt-runner/modules/system"
	"github.com/stretchr/testify/require"
)

// recorder is a Display that keeps every event and also renders them
// with the default display, so tests can check both.
type recorder struct {
	*display.Default
	mu      sync.Mutex
	events  []*run.Event
	starts  []string
	include []string
	retries int
	stats   []*run.Stats
}

func (r *recorder) TaskStart(name string, t *playbook.Task, handler bool) {
	r.mu.Lock()
	r.starts = append(r.starts, name)
	r.mu.Unlock()
	r.Default.TaskStart(name, t, handler)
}

func (r *recorder) Result(ev *run.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
	r.Default.Result(ev)
}

func (r *recorder) Included(file, host string, label any, hasItem bool) {
	r.include = append(r.include, file+" for "+host)
	r.Default.Included(file, host, label, hasItem)
}

func (r *recorder) Retry(host, name string, res *value.Dict) {
	r.retries++
	r.Default.Retry(host, name, res)
}

func (r *recorder) Recap(stats []*run.Stats) {
	r.stats = stats
	r.Default.Recap(stats)
}

// result returns the non-item result of the named task on host.
func (r *recorder) result(t *testing.T, task, host string) *run.Event {
	t.Helper()
	for _, ev := range r.events {
		if ev.Name == task && ev.Host == host && !ev.Item {
			return ev
		}
	}
	t.Fatalf("no result for task %q on %s; tasks: %v", task, host, r.starts)
	return nil
}

// items returns the item results of the named task on host.
func (r *recorder) items(task, host string) []*run.Event {
	var out []*run.Event
	for _, ev := range r.events {
		if ev.Name == task && ev.Host == host && ev.Item {
			out = append(out, ev)
		}
	}
	return out
}

// msg returns the msg of a debug task's result.
func (r *recorder) msg(t *testing.T, task, host string) any {
	t.Helper()
	v, ok := r.result(t, task, host).Result.Get("msg")
	require.True(t, ok, "task %q has no msg", task)
	return v
}

func (r *recorder) ran(task string) bool {
	for _, s := range r.starts {
		if s == task {
			return true
		}
	}
	return false
}

func (r *recorder) stat(t *testing.T, host string) *run.Stats {
	t.Helper()
	for _, s := range r.stats {
		if s.Host == host {
			return s
		}
	}
	t.Fatalf("no recap for %s", host)
	return nil
}

// testModules are modules only the tests use, next to the built-in ones.
type testModules struct {
	mu    sync.Mutex
	calls map[string]int
	envs  []map[string]string
	bases []map[string]string
	// seen is what the module saw of CFZT_PROBE and ANSIBLE_ROLES_PATH in
	// Environ, the environment its child processes get.
	seen  []map[string]string
	check []bool
}

func (m *testModules) set() []module.Entry {
	return []module.Entry{
		// count returns how often it ran on this host (for until/run_once).
		{FQCN: "cfzt.test.count", Module: module.Func(func(req *module.Request) (*value.Dict, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.calls[req.Host.Name()]++
			return value.DictOf("changed", false, "count", m.calls[req.Host.Name()]), nil
		})},
		// facts returns its arguments as facts.
		{FQCN: "cfzt.test.facts", Module: module.Func(func(req *module.Request) (*value.Dict, error) {
			return value.DictOf("changed", false, "ansible_facts", req.Args.Copy()), nil
		})},
		// probe reports the environment and check mode it was given.
		{FQCN: "cfzt.test.probe", Module: module.Func(func(req *module.Request) (*value.Dict, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.envs = append(m.envs, req.Env)
			m.bases = append(m.bases, req.BaseEnv)
			seen := map[string]string{}
			for _, kv := range req.Environ() {
				if k, v, _ := strings.Cut(kv, "="); k == "CFZT_PROBE" || k == "ANSIBLE_ROLES_PATH" {
					seen[k] = v
				}
			}
			m.seen = append(m.seen, seen)
			m.check = append(m.check, req.Check)
			env := value.NewDict(len(req.Env))
			for k, v := range req.Env {
				env.Set(k, v)
			}
			v, _ := req.Getenv("CFZT_PROBE")
			return value.DictOf("changed", !req.Check, "env", env, "check", req.Check, "probe", v), nil
		})},
	}
}

// fixture is a playbook project in a temporary directory.
type fixture struct {
	dir   string
	mods  *testModules
	rec   *recorder
	out   *bytes.Buffer
	rc    int
	opts  run.Options
	inv   []string
	color bool
	// noEmbedded is ALLOW_EMBEDDED_TEMPLATES=False.
	noEmbedded bool
	// observed are the results the runner's observer was told of.
	observed []*run.Event
}

// Observe implements run.Observer.
func (f *fixture) Observe(ev *run.Event) { f.observed = append(f.observed, ev) }

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	dir := t.TempDir()
	if keep := os.Getenv("CFZT_KEEP_FIXTURES"); keep != "" {
		// Keep a copy to run the real ansible-playbook on it.
		dir = filepath.Join(keep, t.Name())
		require.NoError(t, os.RemoveAll(dir))
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return &fixture{dir: dir, mods: &testModules{calls: map[string]int{}}, inv: []string{"localhost,"}}
}

// run loads and runs playbook.yml.
func (f *fixture) run(t *testing.T) *recorder {
	t.Helper()
	reg, err := module.NewRegistry(builtin.Entries(), facts.Entries(), system.Entries(), f.mods.set())
	require.NoError(t, err)
	loader := playbook.NewLoader(reg, nil)
	pb, err := loader.LoadPlaybook(filepath.Join(f.dir, "playbook.yml"))
	require.NoError(t, err)
	inv := inventory.New()
	for _, src := range f.inv {
		if !strings.Contains(src, ",") {
			src = filepath.Join(f.dir, src)
		}
		require.NoError(t, inv.AddSource(src))
	}
	inv.AddVarsDir(pb.Dir)
	f.out = &bytes.Buffer{}
	f.rec = &recorder{Default: &display.Default{Out: f.out, Err: f.out, Verbose: f.opts.Verbosity, Color: f.color}}
	eng := template.New(lookup.Libraries()...)
	eng.NoEmbeddedTemplates = f.noEmbedded
	r := &run.Runner{Engine: eng, Modules: reg, Loader: loader, Display: f.rec, Observer: f, Inventory: inv,
		Stdout: f.out, Opts: f.opts}
	f.rc = r.Run(context.Background(), pb)
	return f.rec
}
