package main

import (
	"io"
	"os"

	"github.com/cfzt/cfzt-runner/engine/config"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/session"
	"github.com/mattn/go-isatty"
)

// newSession composes the engine for a command line, the one-shot run and
// the operator loop alike: the configuration, the module registry and
// their template plugins, the -i sources (else ANSIBLE_INVENTORY, else
// /etc/ansible/hosts), and where modules print directly.
func newSession(cfg *config.Config, reg *module.Registry, inventory []string, stdout io.Writer) *session.Session {
	return &session.Session{Config: cfg, Modules: reg, Plugins: registerPlugins, PythonPlugins: pythonPlugins,
		Inventory: inventory, Fallback: []string{session.DefaultInventory}, Stdout: stdout}
}

// useColor reports whether the text display colours its output.
func useColor(cfg *config.Config) bool {
	return cfg.Color(isatty.IsTerminal(os.Stdout.Fd()))
}
