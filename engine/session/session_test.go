package session

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/config"
	"github.com/cfzt/cfzt-runner/engine/display"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/builtin"
	"github.com/stretchr/testify/require"
)

// project writes files into a temporary directory and returns it.
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	return dir
}

// testConfig is the configuration of an environment with vars set and
// no config file.
func testConfig(t *testing.T, vars map[string]string) *config.Config {
	return config.Load(config.Environment{Lookup: func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}, Dir: t.TempDir(), Home: t.TempDir()})
}

func testSession(t *testing.T, cfg *config.Config, inventory ...string) *Session {
	reg, err := module.NewRegistry(builtin.Entries())
	require.NoError(t, err)
	return &Session{Config: cfg, Modules: reg, Inventory: inventory, Fallback: []string{DefaultInventory}}
}

func TestInventorySources(t *testing.T) {
	dir := project(t, map[string]string{"env.ini": "fromenv\n", "given.ini": "given\n"})
	cases := []struct {
		name     string
		env      map[string]string
		given    []string
		hosts    []string
		warnings string
	}{
		{name: "nothing named: the fallback, and ansible-playbook's warnings",
			warnings: "[WARNING]: No inventory was parsed, only implicit localhost is available\n" +
				"[WARNING]: provided hosts list is empty, only localhost is available. Note that the implicit localhost does not match 'all'\n"},
		{name: "the warnings can be turned off", env: map[string]string{"ANSIBLE_INVENTORY_UNPARSED_WARNING": "false", "ANSIBLE_LOCALHOST_WARNING": "false"}},
		{name: "ANSIBLE_INVENTORY", env: map[string]string{"ANSIBLE_INVENTORY": filepath.Join(dir, "env.ini")}, hosts: []string{"fromenv"}},
		{name: "-i before ANSIBLE_INVENTORY", env: map[string]string{"ANSIBLE_INVENTORY": filepath.Join(dir, "env.ini")},
			given: []string{filepath.Join(dir, "given.ini")}, hosts: []string{"given"}},
		{name: "a source that does not parse", given: []string{filepath.Join(dir, "missing.ini"), "h1,h2"}, hosts: []string{"h1", "h2"},
			warnings: "[WARNING]: Unable to parse " + filepath.Join(dir, "missing.ini") + " as an inventory source\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			disp := &display.Default{Out: &out, Err: &out}
			r, err := testSession(t, testConfig(t, tc.env), tc.given...).Load(nil, run.Options{}, disp)
			require.NoError(t, err)
			require.Equal(t, tc.hosts, r.Inventory.Hosts())
			require.Equal(t, tc.warnings, out.String())
		})
	}
}

// TestExecuteIsOneRun checks that the playbooks of a run share one
// runner, as ansible-playbook's do: facts carry over, and a failed
// playbook stops the rest.
func TestExecuteIsOneRun(t *testing.T) {
	dir := project(t, map[string]string{
		"one.yml":   "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - set_fact: {carried: from one}\n",
		"two.yml":   "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - debug: {msg: \"{{ carried }}\"}\n",
		"fail.yml":  "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - fail: {msg: stop}\n",
		"never.yml": "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - debug: {msg: never}\n",
	})
	s := testSession(t, testConfig(t, nil), "localhost,")
	var out bytes.Buffer
	disp := &display.Default{Out: &out, Err: &out}
	books := []string{filepath.Join(dir, "one.yml"), filepath.Join(dir, "two.yml"), filepath.Join(dir, "fail.yml"), filepath.Join(dir, "never.yml")}
	r, err := s.Load(books, run.Options{}, disp)
	require.NoError(t, err)
	require.Len(t, r.Playbooks, 4)
	require.Equal(t, 2, r.Execute(context.Background(), disp, nil, nil))
	require.Contains(t, out.String(), `"msg": "from one"`)
	require.NotContains(t, out.String(), "never")

	stop := make(chan struct{})
	close(stop)
	out.Reset()
	require.Equal(t, 0, r.Execute(context.Background(), disp, nil, stop), "a stop before a playbook runs none")
	require.Empty(t, out.String())
}

func TestLoadError(t *testing.T) {
	dir := project(t, map[string]string{"bad.yml": "- hosts: localhost\n  taskz: []\n"})
	_, err := testSession(t, testConfig(t, nil), "localhost,").Load([]string{filepath.Join(dir, "bad.yml")}, run.Options{}, &display.Default{Out: &bytes.Buffer{}})
	require.EqualError(t, err, "'taskz' is not a valid attribute for a Play ("+filepath.Join(dir, "bad.yml")+":2:3)")
}

func TestConfigurationReachesTheRun(t *testing.T) {
	cfg := testConfig(t, map[string]string{"ANSIBLE_HASH_BEHAVIOUR": "merge", "ANSIBLE_GATHERING": "smart",
		"ANSIBLE_INJECT_FACT_VARS": "false", "ANSIBLE_SHOW_CUSTOM_STATS": "true", "ANSIBLE_FORKS": "3"})
	s := testSession(t, cfg, "localhost,")
	extra := value.DictOf("x", 1)
	r, err := s.Load(nil, run.Options{Check: true, ExtraVars: extra}, &display.Default{Out: &bytes.Buffer{}})
	require.NoError(t, err)
	require.Equal(t, run.Options{Check: true, ExtraVars: extra, Forks: 3, MergeHashes: true, Gathering: "smart", NoInjectFacts: true, ShowCustomStats: true}, r.Options)
	require.True(t, r.Loader.MergeHashes)
	require.Equal(t, extra, r.Loader.ExtraVars)
	require.True(t, r.Inventory.MergeHashes)
	runner := r.Runner(&display.Default{Out: &bytes.Buffer{}}, nil, nil)
	require.Nil(t, runner.ConfigFile, "no config file: ansible_config_file is None")
	require.Same(t, r.Shared, runner.Shared)
}

func TestEnginesAndPlugins(t *testing.T) {
	s := testSession(t, testConfig(t, nil), "localhost,")
	var registered []*module.Shared
	s.Plugins = func(_ *template.Engine, shared *module.Shared) { registered = append(registered, shared) }
	disp := &display.Default{Out: &bytes.Buffer{}}
	a, err := s.Load(nil, run.Options{}, disp)
	require.NoError(t, err)
	b, err := s.Load(nil, run.Options{}, disp)
	require.NoError(t, err)
	require.NotSame(t, a.Engine, b.Engine, "each load has its own engine")
	require.NotSame(t, a.Shared, b.Shared, "and its own module state")
	require.Equal(t, []*module.Shared{a.Shared, b.Shared}, registered, "the plugins are registered on each engine")

	s.Shared = module.NewShared()
	s.Engine = s.NewEngine(s.Shared)
	c, err := s.Load(nil, run.Options{}, disp)
	require.NoError(t, err)
	require.Same(t, s.Engine, c.Engine, "a session's engine is shared")
	require.Same(t, s.Shared, c.Shared)
}

// TestPluginConfigRefused: an inventory plugin configuration cfzt-runner
// cannot run ends the run (without ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED
// too), after ansible-core's warnings, instead of running with fewer hosts.
func TestPluginConfigRefused(t *testing.T) {
	dir := project(t, map[string]string{"gen.yml": "plugin: ansible.builtin.generator\nhosts: {name: x}\n", "pb.yml": "- hosts: all\n  tasks: []\n"})
	var out bytes.Buffer
	disp := &display.Default{Out: &out, Err: &out}
	_, err := testSession(t, testConfig(t, nil), filepath.Join(dir, "gen.yml")).Load([]string{filepath.Join(dir, "pb.yml")}, run.Options{}, disp)
	require.EqualError(t, err, "Completely failed to parse inventory source "+filepath.Join(dir, "gen.yml"))
	require.Contains(t, out.String(), "specifies unknown plugin 'ansible.builtin.generator'")
}

// fakeResolver provides one filter, "shout", and counts its stops.
type fakeResolver struct {
	dirs  func(string) []string
	stops int
}

func (f *fakeResolver) Filter(name string) (template.FilterFunc, string, bool) {
	if name != "shout" || len(f.dirs("filter")) == 0 {
		return nil, "", false
	}
	return func(c *template.Ctx, in any, a *template.Args) (any, error) { return value.Str(in) + "!", nil }, name, true
}
func (f *fakeResolver) Test(string) (template.FilterFunc, string, bool) { return nil, "", false }
func (f *fakeResolver) Lookup(string) (template.LookupFunc, bool)       { return nil, false }

// TestPythonPluginsOfARun: the session gives each run a resolver that sees
// the filter_plugins directories of the roles the run loaded, on its own
// engine (the session's engine is not changed), and stops it when the
// run ends, or when the load fails.
func TestPythonPluginsOfARun(t *testing.T) {
	dir := project(t, map[string]string{"pb.yml": "- hosts: localhost\n  gather_facts: false\n  roles: [r]\n  tasks:\n    - debug:\n        msg: \"{{ 'hi' | shout }}\"\n",
		"bad.yml": "- hosts: localhost\n  tasks: [\n"})
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "roles", "r", "tasks"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "roles", "r", "filter_plugins"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "roles", "r", "tasks", "main.yml"), []byte("- debug: msg=role\n"), 0o644))
	s := testSession(t, testConfig(t, nil), "localhost,")
	shared := s.NewEngine(module.NewShared())
	s.Engine = shared
	var made []*fakeResolver
	s.PythonPlugins = func(loaded func(string) []string, _ map[string][]string, _ func() []string) (template.PluginResolver, func()) {
		f := &fakeResolver{dirs: loaded}
		made = append(made, f)
		return f, func() { f.stops++ }
	}
	var out bytes.Buffer
	disp := &display.Default{Out: &out, Err: &out}
	r, err := s.Load([]string{filepath.Join(dir, "pb.yml")}, run.Options{}, disp)
	require.NoError(t, err)
	require.NotSame(t, shared, r.Engine)
	require.Nil(t, shared.Resolver)
	require.Equal(t, []string{filepath.Join(dir, "roles", "r", "filter_plugins")}, made[0].dirs("filter"))
	require.Equal(t, 0, r.Execute(context.Background(), disp, nil, nil), out.String())
	require.Contains(t, out.String(), `"msg": "hi!"`)
	require.Equal(t, 1, made[0].stops)

	_, err = s.Load([]string{filepath.Join(dir, "bad.yml")}, run.Options{}, disp)
	require.Error(t, err)
	require.Len(t, made, 2)
	require.Equal(t, 1, made[1].stops, "a failed load stops what it started")
}
