package sdk

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Job is one run of a role or playbook for one object.
type Job struct {
	// Playbook or Role is what runs (Playbook wins when both are set).
	Playbook, Role string
	// Vars are the run's extra variables (see Watch.Parameters).
	Vars      *value.Dict
	Verbosity int
	// Log receives the run's task events at Level; LogKV identifies the
	// object in every line.
	Log   *Logger
	Level LogLevel
	LogKV []any
}

// Runner runs jobs. ctx carries the run's owner (see k8s.WithOwner);
// cancelling it interrupts the run.
type Runner interface {
	Run(ctx context.Context, job Job) Outcome
}

// EngineRunner runs jobs with cfzt-runner's engine, composed as the
// command line composes it: a fresh loader and inventory per run, a shared
// module registry, template engine and module state (API clients). As
// ansible-runner does for ansible-operator, a role runs in a generated
// play on localhost (facts gathered unless ANSIBLE_GATHERING=explicit),
// and the inventory is localhost with ansible_connection=local unless
// Inventory names sources (ANSIBLE_INVENTORY).
type EngineRunner struct {
	Modules   *module.Registry
	Engine    *template.Engine
	RolesPath []string
	// Inventory sources; empty means the generated localhost inventory.
	Inventory []string
	// Shared is module state kept across runs (Kubernetes clients and
	// their discovery cache).
	Shared *module.Shared
	// Stdout receives what modules print directly (pause).
	Stdout io.Writer
	// WorkDir holds the generated inventory and role plays.
	WorkDir string
	// GatherFacts is the role plays' gather_facts.
	GatherFacts bool
	// ExtraVars, Tags and SkipTags come from --ansible-args; ExtraVars
	// override the job's variables, as a later -e does.
	ExtraVars      *value.Dict
	Tags, SkipTags []string
	// ConfigFile is the ansible.cfg in use, or nil.
	ConfigFile any
	// Now is the clock of Outcome.Completed (nil: time.Now).
	Now func() time.Time

	mu        sync.Mutex
	rolePlays map[string]string
	inventory string
}

// Run runs one job to its end.
func (r *EngineRunner) Run(ctx context.Context, job Job) Outcome {
	now := r.Now
	if now == nil {
		now = time.Now
	}
	disp := &jobDisplay{log: job.Log, level: job.Level, verbosity: job.Verbosity, kv: job.LogKV, now: now}
	path := job.Playbook
	if path == "" {
		p, err := r.rolePlay(job.Role)
		if err != nil {
			return Outcome{Err: err}
		}
		path = p
	}
	loader := playbook.NewLoader(r.Modules, r.RolesPath)
	pb, err := loader.LoadPlaybook(path)
	if err != nil {
		disp.Error(err)
		return Outcome{Err: err, Failures: disp.out.Failures}
	}
	inv := run.NewInventory()
	sources := r.Inventory
	if len(sources) == 0 {
		src, err := r.localInventory()
		if err != nil {
			return Outcome{Err: err}
		}
		sources = []string{src}
	}
	for _, src := range sources {
		if err := inv.AddSource(src); err != nil {
			return Outcome{Err: err}
		}
	}
	inv.AddVarsDir(pb.Dir)
	stdout := r.Stdout
	if stdout == nil {
		stdout = io.Discard
	}
	runner := &run.Runner{Engine: r.Engine, Modules: r.Modules, Loader: loader, Display: disp, Inventory: inv,
		Stdout: stdout, Shared: r.Shared, ConfigFile: r.ConfigFile,
		Opts: run.Options{Verbosity: job.Verbosity, ExtraVars: r.extraVars(job.Vars), Tags: r.Tags, SkipTags: r.SkipTags}}
	runner.Run(ctx, pb)
	return disp.out
}

// rolePlay returns the generated play that runs a role, writing it once.
func (r *EngineRunner) rolePlay(role string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.rolePlays[role]; ok {
		return p, nil
	}
	sum := sha256.Sum256([]byte(role))
	dir := filepath.Join(r.WorkDir, "roles-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	quoted := value.JSON(role, value.JSONOptions{})
	src := fmt.Sprintf("- hosts: localhost\n  gather_facts: %t\n  roles:\n    - role: %s\n", r.GatherFacts, quoted)
	p := filepath.Join(dir, "main.yml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		return "", err
	}
	if r.rolePlays == nil {
		r.rolePlays = map[string]string{}
	}
	r.rolePlays[role] = p
	return p, nil
}

// localInventory writes (once) the inventory ansible-operator gives
// ansible-runner: localhost with the local connection.
func (r *EngineRunner) localInventory() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inventory != "" {
		return r.inventory, nil
	}
	dir := filepath.Join(r.WorkDir, "inventory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, "hosts")
	if err := os.WriteFile(p, []byte("localhost ansible_connection=local\n"), 0o644); err != nil {
		return "", err
	}
	r.inventory = p
	return p, nil
}

// extraVars are the job's variables with --ansible-args' -e on top.
func (r *EngineRunner) extraVars(job *value.Dict) *value.Dict {
	if r.ExtraVars == nil || r.ExtraVars.Len() == 0 {
		return job
	}
	out := job.Copy()
	out.Update(r.ExtraVars)
	return out
}
