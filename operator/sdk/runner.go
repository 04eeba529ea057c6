package sdk

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/session"
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
// command line composes it (engine/session): a fresh loader and inventory
// per run, the session's module registry, template engine and module
// state (API clients). As ansible-runner does for ansible-operator, a role
// runs in a generated play on localhost (facts gathered unless
// GatherFacts is off), and the inventory is localhost with
// ansible_connection=local unless ANSIBLE_INVENTORY names sources.
type EngineRunner struct {
	// Session composes the runs; its fallback inventory is LocalInventory.
	Session *session.Session
	// WorkDir holds the generated inventory and role plays.
	WorkDir string
	// GatherFacts is the role plays' gather_facts.
	GatherFacts bool
	// Options are the options of every run (extra vars, tags and skip
	// tags from --ansible-args); a job's extra vars are below these, as a
	// later -e overrides an earlier one.
	Options run.Options
	// Now is the clock of Outcome.Completed (nil: time.Now).
	Now func() time.Time

	mu        sync.Mutex
	rolePlays map[string]string
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
	opts := r.Options
	opts.Verbosity, opts.ExtraVars = job.Verbosity, r.extraVars(job.Vars)
	loaded, err := r.Session.Load([]string{path}, opts, disp)
	if err != nil {
		disp.ControllerError(err)
		return Outcome{Err: err, Failures: disp.out.Failures}
	}
	loaded.Execute(ctx, disp, nil, nil)
	return disp.out
}

// rolePlay returns the generated play that runs a role, writing it once.
// As ansible-runner runs a role for ansible-operator (`--role NAME
// --roles-path DIR`), the play names the role by its directory's base
// name, found through a roles/ link beside the play, so that its tasks
// are "name : task" (not the full path) and role_name is the base name;
// the engine resolves the link, so role_path is the role's directory.
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
	ref := role
	if base := filepath.Base(role); filepath.IsAbs(role) && base != "/" && base != "." && base != ".." {
		if err := os.MkdirAll(filepath.Join(dir, "roles"), 0o755); err != nil {
			return "", err
		}
		link := filepath.Join(dir, "roles", base)
		if err := os.Symlink(role, link); err != nil && !os.IsExist(err) {
			return "", err
		}
		ref = base
	}
	quoted := value.JSON(ref, value.JSONOptions{})
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

// LocalInventory writes, in workDir, the inventory ansible-operator gives
// ansible-runner (localhost with the local connection) and returns its
// path: the fallback inventory source of an EngineRunner's session.
func LocalInventory(workDir string) (string, error) {
	dir := filepath.Join(workDir, "inventory")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, "hosts")
	if err := os.WriteFile(p, []byte("localhost ansible_connection=local\n"), 0o644); err != nil {
		return "", err
	}
	return p, nil
}

// extraVars are the job's variables with --ansible-args' -e on top.
func (r *EngineRunner) extraVars(job *value.Dict) *value.Dict {
	extra := r.Options.ExtraVars
	if extra == nil || extra.Len() == 0 {
		return job
	}
	out := job.Copy()
	out.Update(extra)
	return out
}
