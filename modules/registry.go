// Package modules holds cfzt-runner's native Ansible modules behind one
// interface, and the registry that resolves short and FQCN names.
package modules

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Request is one module invocation with its rendered arguments.
type Request struct {
	Ctx       context.Context
	Args      *value.Dict
	Module    string
	Host      string
	Check     bool
	Diff      bool
	Verbosity int
	// Vars and Engine let modules such as debug's `var` render templates.
	Vars   template.Vars
	Engine *template.Engine
	// Opt is the template options of the task (search paths).
	Opt template.Options
	// Stdout receives direct output (pause's "Pausing for" line).
	Stdout io.Writer
	// TaskDir is the directory relative paths resolve against.
	TaskDir string
	// Shared holds per-run clients (Kubernetes, HTTP) that modules reuse.
	Shared *Shared
	// Env is the task's merged `environment` keyword, rendered. Modules
	// read it before the process environment (see Getenv).
	Env map[string]string
	// ArgPos is where each argument was written (zero when unknown); KeyPos
	// is where its key was written.
	ArgPos, KeyPos func(key string) value.Pos
	// Cond evaluates a conditional as `when:` does, with 2.19's strict
	// boolean results; pos is where it was written. Nil outside a run.
	Cond func(cond any, pos value.Pos) (bool, error)
	// WarnAt shows a warning at a source position (zero: none).
	WarnAt func(msg string, pos value.Pos)
}

// Getenv looks a variable up in the task environment, then the process's.
func (r *Request) Getenv(name string) (string, bool) {
	if v, ok := r.Env[name]; ok {
		return v, true
	}
	return os.LookupEnv(name)
}

// Module is a native Ansible module.
type Module interface {
	Run(req *Request) (*value.Dict, error)
}

// Func adapts a function to Module.
type Func func(req *Request) (*value.Dict, error)

// Run implements Module.
func (f Func) Run(req *Request) (*value.Dict, error) { return f(req) }

// Registry maps module names to modules.
type Registry struct {
	mods map[string]Module
}

// namespaces whose prefix resolves to the same module as the short name.
var namespaces = []string{"ansible.builtin.", "ansible.legacy.", "kubernetes.core.", "operator_sdk.util.", "ansible.utils.", "community.general.", "ansible.posix."}

// NewRegistry builds a registry from short names. Registering a name twice
// is an error.
func NewRegistry(sets ...map[string]Module) (*Registry, error) {
	r := &Registry{mods: map[string]Module{}}
	for _, set := range sets {
		for name, m := range set {
			if _, dup := r.mods[name]; dup {
				return nil, fmt.Errorf("module %q registered twice", name)
			}
			r.mods[name] = m
		}
	}
	return r, nil
}

// Resolve maps a short or FQCN name to the canonical short name.
func (r *Registry) Resolve(name string) (string, bool) {
	if _, ok := r.mods[name]; ok {
		return name, true
	}
	for _, ns := range namespaces {
		if short, ok := strings.CutPrefix(name, ns); ok {
			if _, ok := r.mods[short]; ok {
				return short, true
			}
		}
	}
	return "", false
}

// Get returns the module with a canonical name.
func (r *Registry) Get(name string) Module { return r.mods[name] }

// Names lists every accepted name, short and FQCN, for suggestions.
func (r *Registry) Names() []string {
	var out []string
	for n := range r.mods {
		out = append(out, n, "ansible.builtin."+n)
	}
	sort.Strings(out)
	return out
}

// Shared carries per-run state that modules share, such as API clients.
type Shared struct {
	mu     sync.Mutex
	values map[string]any
}

// NewShared returns an empty Shared.
func NewShared() *Shared { return &Shared{values: map[string]any{}} }

// Get returns a shared value, building it once with mk.
func (s *Shared) Get(key string, mk func() (any, error)) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.values[key]; ok {
		return v, nil
	}
	v, err := mk()
	if err != nil {
		return nil, err
	}
	s.values[key] = v
	return v, nil
}

// Result starts a result dict with changed set.
func Result(changed bool) *value.Dict {
	return value.DictOf("changed", changed)
}

// Failed returns a failed result with msg.
func Failed(msg any) *value.Dict {
	return value.DictOf("changed", false, "msg", msg, "failed", true)
}
