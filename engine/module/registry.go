package module

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/cfzt/cfzt-runner/engine/vault"
)

// Kind tells the executor how to run a task's action. The loader
// classifies every task once, so the executor never compares module names.
type Kind int

// Kinds of actions. Everything but KindModule is performed by the executor
// itself; the Module of such an entry is never called.
const (
	// KindModule is an ordinary module: the executor calls Run.
	KindModule Kind = iota
	KindMeta
	KindIncludeTasks
	KindImportTasks
	KindIncludeRole
	KindImportRole
	KindImportPlaybook
	KindIncludeVars
)

// Flags are per-module traits the executor and the operator honour. A
// module declares its own in its Entry; nothing else compares module names.
type Flags uint32

const (
	// SetsFacts marks set_fact: the facts it returns keep their origin for
	// error messages and may be templated keys.
	SetsFacts Flags = 1 << iota
	// IgnoresFacts marks modules whose `ansible_facts` result key is data
	// to show, not facts to store (debug with `var: ansible_facts`).
	IgnoresFacts
	// ControllerAction marks action plugins that run on the controller
	// only (debug, add_host, group_by...): their failures read "Action
	// failed" rather than "Module failed".
	ControllerAction
	// FreeForm marks modules whose whole string argument is _raw_params
	// (command, shell, include_tasks...) rather than key=value pairs.
	FreeForm
	// CommandLine marks modules whose string argument is a command line
	// (command, shell, raw, script): as ansible-core's parse_kv with
	// check_raw, only their own options (chdir=, creates=...) are taken
	// out of it; every other word stays in _raw_params.
	CommandLine
	// BypassHostLoop marks actions ansible-core runs once per task for
	// the first host rather than once per host (add_host's
	// BYPASS_HOST_LOOP).
	BypassHostLoop
	// InventoryAction marks add_host and group_by, whose results the
	// executor applies to the in-memory inventory before it reports them.
	InventoryAction
	// Unimplemented marks a module ansible-core resolves (engine/module/
	// catalog) but cfzt-runner does not implement: the playbook loads, as
	// it does under ansible-playbook, and only a task that runs it fails.
	Unimplemented
	// NoAsync marks actions whose ansible-core action plugin does not
	// support async: with `async:` set the task fails with "This action
	// (X) does not support async." Every other module runs as a
	// background job.
	NoAsync
	// Connectionless marks controller-only action plugins that never use
	// the host's connection, so a host cfzt-runner cannot reach (or
	// become on) still runs them, as under ansible-core.
	Connectionless
	// ConditionsArg marks assert: its `that` argument is left as written
	// when the task's arguments are finalized, each condition being
	// evaluated (and warned about) as a conditional by the action.
	ConditionsArg
	// ExpressionVar marks debug: its `var` argument is an expression the
	// action evaluates, and one that a template computed is untrusted.
	ExpressionVar
	// KubeRead marks k8s_info: a task of it reads the Kubernetes objects
	// its api_version, kind and namespace arguments name, which the
	// operator records and watches.
	KubeRead
	// Requeues marks operator_sdk.util.requeue_after: its result's
	// `period` asks the operator-sdk runtime to reconcile the object
	// again after that long.
	Requeues
)

// Entry registers one module under its fully qualified name.
type Entry struct {
	// FQCN is the fully qualified name, e.g. "ansible.builtin.command".
	FQCN string
	// Aliases are further names that resolve to this module (redirects of
	// ansible-core's runtime.yml, older collection names).
	Aliases []string
	Kind    Kind
	Flags   Flags
	// Groups are the module_defaults action groups (group/NAME) that
	// hold the module, fully qualified as its collection's
	// meta/runtime.yml declares them ("kubernetes.core.k8s"). ansible-core's
	// own groups that extend a collection's (k8s) are the catalog's
	// (catalog.GroupExtends), not the module's.
	Groups []string
	Module Module
}

// Info is what the loader records about a task's action.
type Info struct {
	// Name is the short name ("command"), FQCN the full one.
	Name, FQCN string
	Kind       Kind
	Flags      Flags
	// Groups are the module_defaults action groups of the module (see
	// Entry.Groups); InGroup answers for a group as a task names it.
	Groups []string
	// Path is the file of a module found on the module search path
	// (library/ directories, ANSIBLE_LIBRARY) rather than built in: the
	// registry's External module runs it.
	Path string
}

// Short returns the last dotted component of the FQCN.
func (e Entry) Short() string { return e.FQCN[strings.LastIndexByte(e.FQCN, '.')+1:] }

// Registry resolves the names a task may use for a module. It is built
// once from entries and read-only afterwards.
type Registry struct {
	byName  map[string]*Entry
	entries []*Entry
	// external runs the modules found on the module search path.
	external Module
}

// WithExternal sets the module that runs module files found on the
// module search path (Info.Path), at composition time.
func (r *Registry) WithExternal(m Module) *Registry {
	r.external = m
	return r
}

// External returns the runner of module files, nil when none was set.
func (r *Registry) External() Module { return r.external }

// Overridable reports whether a module file named like name, found on the
// module search path, replaces what name resolves to. ansible-core looks
// short and ansible.legacy names up in library directories before its
// builtins, but an action plugin of that name (debug, set_fact, include_*)
// still runs as itself, and so do our controller actions and executor
// keywords.
func (r *Registry) Overridable(name string) bool {
	e, ok := r.byName[name]
	if !ok {
		return true
	}
	return e.Kind == KindModule && e.Flags&ControllerAction == 0
}

// NewRegistry builds a registry. An ansible.builtin module also answers to
// its short name and to ansible.legacy.<short>; a module of another
// collection answers to its short name unless a builtin has it. Two
// entries that claim the same name are an error.
func NewRegistry(sets ...[]Entry) (*Registry, error) {
	r := &Registry{byName: map[string]*Entry{}}
	claim := func(name string, e *Entry) error {
		if prev, dup := r.byName[name]; dup && prev != e {
			return fmt.Errorf("module name %q registered twice (%s and %s)", name, prev.FQCN, e.FQCN)
		}
		r.byName[name] = e
		return nil
	}
	var shortOthers []*Entry
	for _, set := range sets {
		for i := range set {
			e := &set[i]
			if !strings.Contains(e.FQCN, ".") || e.Module == nil {
				return nil, fmt.Errorf("module entry %q needs a fully qualified name and a module", e.FQCN)
			}
			r.entries = append(r.entries, e)
			names := append([]string{e.FQCN}, e.Aliases...)
			if strings.HasPrefix(e.FQCN, "ansible.builtin.") {
				names = append(names, e.Short(), "ansible.legacy."+e.Short())
			} else {
				shortOthers = append(shortOthers, e)
			}
			for _, n := range names {
				if err := claim(n, e); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, e := range shortOthers {
		if _, taken := r.byName[e.Short()]; !taken {
			r.byName[e.Short()] = e
		}
	}
	return r, nil
}

// Lookup resolves a name as written in a task.
func (r *Registry) Lookup(name string) (Info, bool) {
	e, ok := r.byName[name]
	if !ok {
		return Info{}, false
	}
	return Info{Name: e.Short(), FQCN: e.FQCN, Kind: e.Kind, Flags: e.Flags, Groups: e.Groups}, true
}

// Entries returns the registered entries, in registration order.
func (r *Registry) Entries() []Entry {
	out := make([]Entry, len(r.entries))
	for i, e := range r.entries {
		out[i] = *e
	}
	return out
}

// Module returns the module registered under a name (short or FQCN).
func (r *Registry) Module(name string) Module {
	if e, ok := r.byName[name]; ok {
		return e.Module
	}
	return nil
}

// Names lists every accepted name, for "did you mean" suggestions.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.byName))
	for n := range r.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Shared carries per-run state that modules share, such as API clients.
type Shared struct {
	mu     sync.Mutex
	values map[string]any
	// Vault holds the run's vault secrets, with which actions decrypt
	// vault-encrypted source files (see DecryptedFile); nil is none.
	Vault *vault.Keyring
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
