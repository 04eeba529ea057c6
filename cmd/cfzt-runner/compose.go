package main

import (
	"io"
	"os"
	"path/filepath"

	"github.com/cfzt/cfzt-runner/engine/config"
	"github.com/cfzt/cfzt-runner/engine/display"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/session"
	"github.com/cfzt/cfzt-runner/operator"
	"github.com/cfzt/cfzt-runner/operator/sdk"
	"github.com/mattn/go-isatty"
)

// mode is how cfzt-runner was started; each composes the engine here.
type mode int

const (
	// modeRun is a one-shot ansible-playbook run.
	modeRun mode = iota
	// modeOperator is the operator runtime (--interval/--watch, and its
	// one-shot JSON run): Kubernetes reads are recorded for --watch and
	// cycles, results and requests are counted on its /metrics.
	modeOperator
	// modeSDK is `cfzt-runner operator`, the ansible-operator drop-in:
	// the operator_sdk.util modules, roles/ beside the working
	// directory, and one template engine and module state for every
	// reconcile.
	modeSDK
)

// composeOptions are what a command line chooses; compose builds the rest.
type composeOptions struct {
	Mode mode
	// Config is the configuration the command line has already read (it
	// parses its flags against it); when nil, compose reads it from Env.
	Config *config.Config
	// Env is the environment, working and home directory the
	// configuration is read from when Config is nil.
	Env config.Environment
	// Inventory are the -i sources; Fallback the sources when neither
	// they nor ANSIBLE_INVENTORY name any (nil: /etc/ansible/hosts).
	Inventory, Fallback []string
	// Direct is where modules print directly (pause); nil discards it.
	Direct io.Writer
}

// composition is the engine of one invocation, as compose built it.
type composition struct {
	Config  *config.Config
	Modules *module.Registry
	Session *session.Session
	// Reads records what Kubernetes reads (module.KubeRead) ran during a
	// cycle; Metrics are the operator's /metrics, counting the process's
	// outbound requests (modeOperator).
	Reads   *operator.ReadRecorder
	Metrics *operator.Metrics
	// SDKMetrics are the drop-in's /metrics, which osdk_metric writes to
	// (modeSDK).
	SDKMetrics *sdk.Metrics
}

// compose is cfzt-runner's one composition root: from the options of a
// command line it builds the configuration, the module registry (every
// module package's entries, the mode's own modules, the runner of module
// files found on the module search path), the metrics and the session
// for the mode. The display is the mode's (textDisplay for the text one).
func compose(o composeOptions) (*composition, error) {
	c := &composition{Config: o.Config}
	if c.Config == nil {
		if c.Config = config.Load(o.Env); c.Config.Err != nil {
			return nil, c.Config.Err
		}
	}
	var wrap func(module.Entry) module.Module
	var own []module.Entry
	switch o.Mode {
	case modeOperator:
		c.Reads, c.Metrics = operator.NewReadRecorder(), operator.NewMetrics()
		wrap = func(e module.Entry) module.Module {
			if e.Flags&module.KubeRead != 0 {
				return c.Reads.Wrap(e.Module)
			}
			return e.Module
		}
		operator.ObserveRequests(c.Metrics)
	case modeSDK:
		c.SDKMetrics = sdk.NewMetrics(version, "unknown")
		own = sdk.ModuleEntries(c.SDKMetrics)
		// roles/ beside the working directory, as the base image's
		// ansible.cfg (roles_path = /opt/ansible/roles) has it.
		c.Config.RolesPath = append(c.Config.RolesPath, filepath.Join(o.Env.Dir, "roles"))
	}
	reg, err := newRegistry(wrap, own)
	if err != nil {
		return nil, err
	}
	c.Modules = reg
	fallback := o.Fallback
	if fallback == nil {
		fallback = []string{session.DefaultInventory}
	}
	c.Session = &session.Session{Config: c.Config, Modules: reg, Plugins: registerPlugins, PythonPlugins: pythonPlugins(o.Env.Exported), Env: o.Env.Exported,
		Inventory: o.Inventory, Fallback: fallback, Stdout: o.Direct}
	if o.Mode == modeSDK {
		// One template engine and one module state for every reconcile:
		// the clients and their discovery caches are shared.
		c.Session.Shared = module.NewShared()
		c.Session.Engine = c.Session.NewEngine(c.Session.Shared)
	}
	return c, nil
}

// textDisplay is the text display (ansible-core's default callback) of
// the run and operator modes, as the configuration asks for it.
func textDisplay(cfg *config.Config, verbose int, out, errw io.Writer) *display.Default {
	return &display.Default{Out: out, Err: errw, Verbose: verbose, Color: useColor(cfg), ConfigMsg: cfg.Message(), ConfigFile: cfg.File,
		HideSkipped: !cfg.DisplaySkippedHosts, HideOK: !cfg.DisplayOKHosts, ResultYAML: cfg.ResultFormat == "yaml",
		CommunityYAML: cfg.StdoutCallback == "community.general.yaml"}
}

// useColor reports whether the text display colours its output.
func useColor(cfg *config.Config) bool {
	return cfg.Color(isatty.IsTerminal(os.Stdout.Fd()))
}

// withSettings is env with the settings given as flags (ansible-operator's
// --ansible-roles-path...) in place of the variables they name; an empty
// value leaves the variable as the process has it.
func withSettings(env config.Environment, settings map[string]string) config.Environment {
	lookup := env.Lookup
	exported := map[string]string{}
	for k, v := range env.Exported {
		exported[k] = v
	}
	for k, v := range settings {
		if v != "" {
			exported[k] = v
		}
	}
	env.Exported = exported
	env.Lookup = func(name string) (string, bool) {
		if v := settings[name]; v != "" {
			return v, true
		}
		return lookup(name)
	}
	return env
}
