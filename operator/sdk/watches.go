// Package sdk runs operators written for operator-sdk's Ansible plugin
// (the ansible-operator binary) unchanged: it reads their watches.yaml,
// watches each kind with an informer, and reconciles every object by
// running its role or playbook natively, with the variables, status
// conditions, finalizers, owner references and metrics that ansible-operator
// gives them.
package sdk

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/value"
	"gopkg.in/yaml.v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Watch is one entry of watches.yaml: a kind and what reconciles it. The
// defaults are ansible-operator's (see defaultWatch).
type Watch struct {
	GVK schema.GroupVersionKind
	// Playbook is an absolute path; Role is the role's directory when it
	// was found, else the name as written (Validate reports it).
	Playbook, Role string
	// Vars are extra variables on top of the object's; values may be
	// templates, rendered when used.
	Vars *value.Dict
	// ReconcilePeriod resyncs every object this often (0: the
	// --reconcile-period default).
	ReconcilePeriod             time.Duration
	ManageStatus                bool
	WatchDependentResources     bool
	WatchClusterScopedResources bool
	SnakeCaseParameters         bool
	WatchAnnotationsChanges     bool
	MarkUnsafe                  bool
	// MaxRunnerArtifacts is accepted for compatibility: no artifacts are
	// written.
	MaxRunnerArtifacts int
	Selector           metav1.LabelSelector
	// Blacklist are dependent kinds never watched.
	Blacklist []schema.GroupVersionKind
	Finalizer *Finalizer
	// MaxConcurrentReconciles and AnsibleVerbosity come from the command
	// line and the MAX_CONCURRENT_RECONCILES_<KIND>_<GROUP> and
	// ANSIBLE_VERBOSITY_<KIND>_<GROUP> variables, not from the file.
	MaxConcurrentReconciles int
	AnsibleVerbosity        int
	// Pos is where the entry starts in watches.yaml.
	Pos value.Pos
}

// Finalizer is a watch's finalizer: its name and what runs on deletion.
// Without a playbook or role the watch's own runs, with Vars on top.
type Finalizer struct {
	Name, Playbook, Role string
	Vars                 *value.Dict
}

// LoadOptions are the command-line defaults and the process environment
// Load applies.
type LoadOptions struct {
	MaxConcurrentReconciles int
	AnsibleVerbosity        int
	// Getenv reads the environment (${VAR} references, per-kind settings,
	// ANSIBLE_ROLES_PATH, ANSIBLE_COLLECTIONS_PATH); nil means os.LookupEnv.
	Getenv func(string) (string, bool)
	// Dir resolves relative playbook and role paths ("" means the working
	// directory), as ansible-operator resolves them from its own.
	Dir string
}

// LoadError is a problem with watches.yaml, at a position when one is known.
type LoadError struct {
	Pos value.Pos
	Msg string
}

func (e *LoadError) Error() string {
	if e.Pos.File == "" {
		return e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.Pos.File, e.Pos.Line, e.Msg)
}

// Load reads a watches file. ${VAR} references are replaced by the
// environment first (an unset variable keeps its reference), as
// ansible-operator does. Keys are matched case-insensitively and unknown
// keys are ignored, as its JSON decoding does; Load returns them as
// warnings. Every entry is validated: a kind needs a version, a kind and
// an existing playbook or role; a finalizer needs a name.
func Load(path string, opts LoadOptions) ([]*Watch, []string, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.LookupEnv
	}
	if opts.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, nil, err
		}
		opts.Dir = wd
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	expanded := os.Expand(string(src), func(name string) string {
		if v, ok := opts.Getenv(name); ok {
			return v
		}
		return "${" + name + "}"
	})
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(expanded), &doc); err != nil {
		return nil, nil, &LoadError{Pos: value.Pos{File: path}, Msg: "invalid YAML: " + err.Error()}
	}
	p := &parser{file: path, opts: opts}
	watches := p.document(&doc)
	if p.err != nil {
		return nil, p.warnings, p.err
	}
	seen := map[schema.GroupVersionKind]bool{}
	for _, w := range watches {
		if seen[w.GVK] {
			return nil, p.warnings, &LoadError{Pos: w.Pos, Msg: "duplicate GVK: " + w.GVK.String()}
		}
		seen[w.GVK] = true
		if err := w.Validate(); err != nil {
			return nil, p.warnings, &LoadError{Pos: w.Pos, Msg: err.Error()}
		}
	}
	return watches, p.warnings, nil
}

// Validate checks that the playbook or role exists, and that a finalizer
// has a name and something to run (its own playbook or role, the watch's,
// or at least vars).
func (w *Watch) Validate() error {
	if err := checkRunnable(w.Playbook, w.Role); err != nil {
		return err
	}
	if f := w.Finalizer; f != nil {
		if f.Name == "" {
			return fmt.Errorf("finalizer must have name")
		}
		if err := checkRunnable(f.Playbook, f.Role); err != nil && (f.Vars == nil || f.Vars.Len() == 0) {
			return fmt.Errorf("finalizer: %w", err)
		}
	}
	return nil
}

func checkRunnable(playbook, role string) error {
	switch {
	case playbook != "":
		if _, err := os.Stat(playbook); err != nil {
			return fmt.Errorf("playbook: %s was not found", playbook)
		}
	case role != "":
		if _, err := os.Stat(role); err != nil {
			return fmt.Errorf("role: %s was not found", role)
		}
	default:
		return fmt.Errorf("must specify Role or Playbook")
	}
	return nil
}

// FinalizerRun returns the playbook and role a deletion runs: the
// finalizer's own, else the watch's.
func (w *Watch) FinalizerRun() (playbook, role string) {
	if f := w.Finalizer; f != nil && (f.Playbook != "" || f.Role != "") {
		return f.Playbook, f.Role
	}
	return w.Playbook, w.Role
}

// String names the watch as ansible-operator's logs and metrics do
// ("group/version, Kind=Kind").
func (w *Watch) String() string { return w.GVK.String() }

// envName is ansible-operator's per-kind variable name:
// PREFIX_<KIND>_<GROUP>, upper-cased, dots replaced by underscores.
func envName(prefix string, gvk schema.GroupVersionKind) string {
	return strings.ToUpper(strings.ReplaceAll(prefix+"_"+gvk.Kind+"_"+gvk.Group, ".", "_"))
}

// resolvePlaybook makes a playbook path absolute against dir.
func resolvePlaybook(dir, p string) string {
	if p != "" && !filepath.IsAbs(p) {
		return filepath.Join(dir, p)
	}
	return p
}

// resolveRole finds a role where ansible-operator looks: an absolute path
// as it is; a namespace.collection.role in every collections path
// (ANSIBLE_COLLECTIONS_PATH, else /usr/share/ansible/collections and
// ~/.ansible/collections); then each ANSIBLE_ROLES_PATH entry, with and
// without a roles/ subdirectory; then roles/ beside dir. The first that
// exists wins; when none does, the name is returned unchanged.
func resolveRole(dir, name string, getenv func(string) (string, bool)) string {
	if name == "" || filepath.IsAbs(name) {
		return name
	}
	var candidates []string
	if parts := strings.Split(name, "."); len(parts) == 3 {
		colls, ok := getenv("ANSIBLE_COLLECTIONS_PATH")
		if !ok || colls == "" {
			colls = "/usr/share/ansible/collections"
			if home, err := os.UserHomeDir(); err == nil {
				colls += ":" + filepath.Join(home, ".ansible/collections")
			}
		}
		for _, c := range strings.Split(colls, ":") {
			candidates = append(candidates, filepath.Join(c, "ansible_collections", parts[0], parts[1], "roles", parts[2]))
		}
	}
	if rp, ok := getenv("ANSIBLE_ROLES_PATH"); ok && rp != "" {
		for _, r := range strings.Split(rp, ":") {
			candidates = append(candidates, filepath.Join(r, name), filepath.Join(r, "roles", name))
		}
	}
	candidates = append(candidates, filepath.Join(dir, "roles", name))
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	return name
}
