// Package session is cfzt-runner's one composition root. From the typed
// configuration, the module registry and the run options it builds
// everything a run of playbooks needs (template engine, playbook loader,
// inventory, runner) in the same way for the command line, the operator
// loop and the operator-sdk drop-in; the callers only choose the display
// and what they run.
package session

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/config"
	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/inventory"
	"github.com/cfzt/cfzt-runner/engine/lookup"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/vault"
)

// DefaultInventory is ansible-core's default inventory source, used when
// neither -i nor ANSIBLE_INVENTORY names one; its absence is not worth a
// warning.
const DefaultInventory = "/etc/ansible/hosts"

// Session is what every run of one invocation shares.
type Session struct {
	Config  *config.Config
	Modules *module.Registry
	// Shared, when set, is module state kept across runs (API clients and
	// their discovery caches); otherwise each Load starts afresh, so a
	// long-running loop sees API changes.
	Shared *module.Shared
	// Engine, when set, is the template engine of every run (see
	// NewEngine); otherwise each Load makes a new one, so a long-running
	// loop does not keep what templates earlier runs compiled.
	Engine *template.Engine
	// Plugins registers plugins of module packages (kubernetes.core's k8s
	// lookup) on each template engine.
	Plugins func(eng *template.Engine, shared *module.Shared)
	// Inventory are the inventory sources given on the command line;
	// Fallback the sources used when neither they nor ANSIBLE_INVENTORY
	// name any (DefaultInventory for ansible-playbook).
	Inventory, Fallback []string
	// Stdout receives what modules print directly (pause).
	Stdout io.Writer
	// PythonPlugins, when set, makes the resolver of a run's Python
	// filter, test and lookup plugins (cmd/cfzt-runner sets
	// modules/pyplugin's) from where they are: the <kind>_plugins
	// directories of the playbooks and roles loaded so far, the
	// configured paths of each kind and the collection roots. stop ends
	// what it started; Execute calls it when the run ends.
	PythonPlugins func(loaded func(kind string) []string, configured map[string][]string, collectionRoots func() []string) (r template.PluginResolver, stop func())
	// Env are variables the runs' environment has beyond the process's
	// own (config.Environment.Exported): lookup('env') and every module's
	// child processes see them.
	Env map[string]string
	// Vault holds the vault secrets of the run (nil: none were given):
	// the template engine decrypts `!vault` values with them, the loader
	// and the inventory encrypted files.
	Vault *vault.Keyring
}

// Run is playbooks loaded for one runner, with what loaded them.
type Run struct {
	Playbooks []*playbook.Playbook
	Engine    *template.Engine
	Loader    *playbook.Loader
	Inventory *inventory.Inventory
	// InventoryParsed are the "Parsed ... inventory source" lines of -vvv.
	InventoryParsed []string
	// Options are the run's options, with the configuration's settings.
	Options run.Options
	// Shared is the modules' state of the run.
	Shared  *module.Shared
	session *Session
	// stopPlugins ends the run's Python plugin helper (nil: none).
	stopPlugins func()
}

// Close ends what the run started for its templates (the Python plugin
// helper). Execute closes the run when it ends.
func (r *Run) Close() {
	if r.stopPlugins != nil {
		r.stopPlugins()
	}
}

// NewEngine returns a template engine with the session's plugins, whose
// lookups keep their clients in shared.
func (s *Session) NewEngine(shared *module.Shared) *template.Engine {
	eng := template.New(lookup.Libraries()...)
	eng.Settings = s.Config.Settings()
	eng.NoEmbeddedTemplates = !s.Config.AllowEmbeddedTemplates
	if len(s.Env) > 0 {
		exported := s.Env
		eng.Getenv = func(name string) (string, bool) {
			if v, ok := exported[name]; ok {
				return v, true
			}
			return os.LookupEnv(name)
		}
		eng.Environ = func() []string {
			out := make([]string, 0, len(exported))
			for _, kv := range os.Environ() {
				if k, _, _ := strings.Cut(kv, "="); exported[k] == "" {
					out = append(out, kv)
				}
			}
			for k, v := range exported {
				out = append(out, k+"="+v)
			}
			return out
		}
	}
	if s.Plugins != nil {
		s.Plugins(eng, shared)
	}
	return eng
}

// Options completes run options given by the caller with the
// configuration's settings.
func (s *Session) Options(o run.Options) run.Options {
	c := s.Config
	o.MergeHashes, o.Gathering, o.NoInjectFacts, o.ShowCustomStats = c.MergeHashes, c.Gathering, !c.InjectFacts, c.ShowCustomStats
	o.Forks, o.WarnOnMissingHandler = c.Forks, !c.ErrorOnMissingHandler
	o.AllowBrokenConditionals = c.AllowBrokenConditionals
	if len(s.Env) > 0 {
		o.BaseEnv = s.Env
	}
	o.NoDeprecationWarnings = !c.DeprecationWarnings
	return o
}

// NewLoader returns a playbook loader with the configuration's role and
// variable settings, rendering load-time templates with eng and opts'
// extra vars.
func (s *Session) NewLoader(eng *template.Engine, opts run.Options) *playbook.Loader {
	c := s.Config
	l := playbook.NewLoader(s.Modules, c.RolesPath)
	l.CollectionsPaths = c.CollectionsPaths
	l.ModulePath = c.ModulePath
	l.MergeHashes = c.MergeHashes
	l.PrivateRoleVars = c.PrivateRoleVars
	l.ExtraVars = opts.ExtraVars
	l.Render = run.LoaderRenderer(eng, c.MergeHashes)
	return l
}

// Load prepares a run of books with opts: a template engine and loader,
// the inventory (sources it cannot parse are warnings on disp, as
// ansible-playbook gives them), and the playbooks. A playbook that does
// not load is the error; it is not shown.
func (s *Session) Load(books []string, opts run.Options, disp run.Display) (*Run, error) {
	opts = s.Options(opts)
	shared, eng := s.Shared, s.Engine
	if shared == nil {
		shared = module.NewShared()
	}
	if eng == nil {
		eng = s.NewEngine(shared)
	}
	eng.Vault = s.Vault
	shared.Vault = s.Vault
	r := &Run{Options: opts, Shared: shared, session: s}
	if s.PythonPlugins != nil {
		// The loader is made below: the resolver asks it for the
		// directories of the roles loaded when it resolves a name.
		loaded := func(kind string) []string { return r.Loader.PluginDirs(kind) }
		res, stop := s.PythonPlugins(loaded, s.Config.PluginPaths, func() []string { return r.Loader.CollectionRoots() })
		eng, r.stopPlugins = eng.WithResolver(res), stop
	}
	r.Engine, r.Loader = eng, s.NewLoader(eng, opts)
	r.Loader.Vault = s.Vault
	var err error
	r.Inventory, r.InventoryParsed, err = s.loadInventory(disp)
	if err != nil {
		r.Close()
		return r, err
	}
	// ansible-playbook checks --limit against the inventory before it
	// loads the playbooks (CLI.get_host_list).
	if err := r.Inventory.CheckLimit(opts.Limit); err != nil {
		r.Close()
		return r, err
	}
	for _, book := range books {
		pb, err := r.Loader.LoadPlaybook(book)
		if err != nil {
			r.Close()
			return r, err
		}
		r.Playbooks = append(r.Playbooks, pb)
	}
	return r, nil
}

// loadInventory parses the run's inventory sources, warning as
// ansible-playbook does about sources it cannot parse and about an
// inventory without hosts.
func (s *Session) loadInventory(disp run.Display) (*inventory.Inventory, []string, error) {
	c := s.Config
	inv := inventory.New()
	inv.Vault = s.Vault
	inv.PatternMismatch, inv.MergeHashes = c.HostPatternMismatch, c.MergeHashes
	warn := func(msg string) { disp.Warn(diag.Warn(msg, nil)) }
	inv.SetWarn(warn)
	var parsedMsgs []string
	var refused error
	// fail ends the run on a source no plugin parsed
	// (INVENTORY_ANY_UNPARSED_IS_FAILED).
	fail := func(abs string) {
		if refused == nil {
			refused = &diag.Diagnostic{Severity: diag.Error, Summary: "Completely failed to parse inventory source " + abs, Code: diag.ExitFailure}
		}
	}
	// An unreadable source is named by its absolute path (unfrackpath).
	unparsed := func(src string) {
		abs := py.Abspath(py.ExpandUser(py.ExpandVars(src, os.LookupEnv), os.LookupEnv))
		if c.InventoryAnyUnparsedIsFailed {
			fail(abs)
			return
		}
		warn("Unable to parse " + abs + " as an inventory source")
	}
	inv.Deprecate = disp.Warn
	// failed shows ansible-core's warnings for a source no plugin
	// parsed; one cfzt-runner refuses (an inventory plugin configuration)
	// ends the run after them.
	failed := func(se *inventory.SourceError) {
		for _, f := range se.Failures {
			warn(f.Warning())
		}
		if se.Refused || c.InventoryAnyUnparsedIsFailed {
			fail(se.Source)
		} else {
			warn(se.Error())
		}
	}
	parsed := 0
	for _, src := range c.InventorySources(s.Inventory, s.Fallback) {
		if _, err := os.Stat(src); err != nil && !strings.Contains(src, ",") {
			if src != DefaultInventory {
				unparsed(src)
			}
			if refused != nil {
				return inv, parsedMsgs, refused
			}
			continue
		}
		err := inv.AddSource(src)
		for _, se := range inv.SourceErrors() {
			failed(se)
		}
		var se *inventory.SourceError
		if errors.As(err, &se) {
			failed(se)
		}
		if refused != nil {
			return inv, parsedMsgs, refused
		}
		switch {
		case se != nil:
			continue
		case err != nil:
			if unparsed(src); refused != nil {
				return inv, parsedMsgs, refused
			}
			continue
		}
		parsed++
		parsedMsgs = append(parsedMsgs, inv.ParsedMessage(src))
	}
	switch {
	case parsed == 0 && c.InventoryUnparsedIsFailed:
		return inv, parsedMsgs, &diag.Diagnostic{Severity: diag.Error, Summary: "No inventory was parsed, please check your configuration and options.", Code: diag.ExitFailure}
	case parsed == 0 && c.InventoryUnparsedWarning:
		warn("No inventory was parsed, only implicit localhost is available")
	}
	if len(inv.Hosts()) == 0 && c.LocalhostWarning {
		warn("provided hosts list is empty, only localhost is available. Note that the implicit localhost does not match 'all'")
	}
	return inv, parsedMsgs, nil
}

// Runner returns the runner of the run: it runs the playbooks in turn,
// with host state, facts and counters carried over.
func (r *Run) Runner(disp run.Display, observer run.Observer, stop <-chan struct{}) *run.Runner {
	s := r.session
	stdout := s.Stdout
	if stdout == nil {
		stdout = io.Discard
	}
	return &run.Runner{Engine: r.Engine, Modules: s.Modules, Loader: r.Loader, Display: disp, Observer: observer,
		Inventory: r.Inventory, ReloadInventory: func() *inventory.Inventory { inv, _, _ := s.loadInventory(disp); return inv }, Stdout: stdout, Shared: r.Shared, Stop: stop, ConfigFile: s.Config.FileValue(), Opts: r.Options}
}

// Execute runs the playbooks in one runner, as ansible-playbook does: a
// failed playbook stops the rest, and so does a stop. It returns the exit
// status of the last playbook that ran.
func (r *Run) Execute(ctx context.Context, disp run.Display, observer run.Observer, stop <-chan struct{}) int {
	// The run's helpers end with it, or as soon as it is cancelled or
	// stopped (a plugin that never returns does not hold the run).
	ended := make(chan struct{})
	defer func() { close(ended); r.Close() }()
	go func() {
		select {
		case <-ctx.Done():
			r.Close()
		case <-stop:
			r.Close()
		case <-ended:
		}
	}()
	runner := r.Runner(disp, observer, stop)
	code := 0
	for _, pb := range r.Playbooks {
		if stopped(stop) {
			break
		}
		r.Inventory.AddVarsDir(pb.Dir)
		if code = runner.Run(ctx, pb); code != 0 {
			break
		}
	}
	return code
}

func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}
