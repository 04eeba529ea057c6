package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules"
)

// Options are the run-wide settings from the command line.
type Options struct {
	Check, Diff bool
	Verbosity   int
	Tags        []string
	SkipTags    []string
	StartAt     string
	ExtraVars   *value.Dict
	Forks       int
}

// Runner executes playbooks.
type Runner struct {
	Engine    *template.Engine
	Modules   *modules.Registry
	Loader    *playbook.Loader
	Display   Display
	Inventory *Inventory
	Opts      Options
	Stdout    io.Writer
	Shared    *modules.Shared

	ctx   context.Context
	stats map[string]*Stats
	order []string
	hosts map[string]*hostState
	// startReached is set once --start-at-task has matched.
	startReached bool
	// lastFailure is the failure a rescue/always section sees.
	lastFailure *value.Dict
}

// hostState is what a run knows about one host.
type hostState struct {
	name   string
	facts  *value.Dict // set_fact and registered variables
	failed bool
	// ended is set by meta: end_host.
	ended bool
}

// ExitError carries ansible-playbook's exit status.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Run executes a loaded playbook and returns the exit code.
func (r *Runner) Run(ctx context.Context, pb *playbook.Playbook) int {
	r.ctx = ctx
	r.stats = map[string]*Stats{}
	r.hosts = map[string]*hostState{}
	r.startReached = r.Opts.StartAt == ""
	if r.Shared == nil {
		r.Shared = modules.NewShared()
	}
	r.Display.PlaybookStart(pb)
	code := 0
	for _, play := range pb.Plays {
		c, stop := r.runPlay(pb, play)
		if c > code {
			code = c
		}
		if stop {
			break
		}
	}
	r.Display.Recap(r.recap())
	return code
}

func (r *Runner) recap() []*Stats {
	out := make([]*Stats, 0, len(r.order))
	for _, h := range r.order {
		out = append(out, r.stats[h])
	}
	return out
}

func (r *Runner) stat(host string) *Stats {
	s, ok := r.stats[host]
	if !ok {
		s = &Stats{Host: host}
		r.stats[host] = s
		r.order = append(r.order, host)
	}
	return s
}

func (r *Runner) host(name string) *hostState {
	h, ok := r.hosts[name]
	if !ok {
		h = &hostState{name: name, facts: value.NewDict(8)}
		r.hosts[name] = h
	}
	return h
}

// playState is what one play execution shares between its tasks.
type playState struct {
	pb       *playbook.Playbook
	play     *playbook.Play
	name     string
	hosts    []string
	vars     *value.Dict // play vars
	varsFile *value.Dict
	roleDefs *value.Dict // defaults of every role of the play
	roleVars *value.Dict // vars of every role of the play
	notified map[string]bool
	handlers []*playbook.Task
	// roleSeen dedups roles by name and parameters.
	roleSeen map[string]bool
	// endPlay is set by meta: end_play.
	endPlay bool
}

func (r *Runner) runPlay(pb *playbook.Playbook, play *playbook.Play) (code int, stopPlaybook bool) {
	hosts, err := r.Inventory.Match(play.Hosts)
	if err != nil {
		r.Display.Error(err)
		return 1, true
	}
	ps := &playState{pb: pb, play: play, hosts: nil, notified: map[string]bool{}, roleSeen: map[string]bool{},
		vars: play.Vars, roleDefs: value.NewDict(0), roleVars: value.NewDict(0), varsFile: value.NewDict(0)}
	if ps.vars == nil {
		ps.vars = value.NewDict(0)
	}
	for _, h := range hosts {
		if !r.host(h).failed {
			ps.hosts = append(ps.hosts, h)
		}
	}
	ps.name = play.Name
	if ps.name == "" {
		ps.name = value.Str(play.Hosts)
		if l, ok := play.Hosts.([]any); ok {
			ps.name = joinStr(l, ",")
		}
	}
	if template.HasMarkers(ps.name) && len(ps.hosts) > 0 {
		if v, err := r.Engine.Render(ps.name, r.playScope(ps, ps.hosts[0]), template.Options{}); err == nil {
			ps.name = value.Str(v)
		}
	}
	r.Display.PlayStart(ps.name)
	if len(ps.hosts) == 0 {
		r.Display.Warning("skipping: no hosts matched")
		return 0, false
	}
	if err := r.loadVarsFiles(ps); err != nil {
		r.Display.Error(err)
		return 1, true
	}
	for _, ri := range append(append([]*playbook.RoleInstance{}, play.Roles...), play.StaticRoles...) {
		r.collectRoleVars(ps, ri)
	}
	for _, h := range ps.hosts {
		r.stat(h)
	}
	root := &frame{}
	r.runItems(ps, root, play.PreTasks)
	r.flushHandlers(ps)
	for _, ri := range play.Roles {
		if ps.endPlay {
			break
		}
		r.runRole(ps, root, ri)
	}
	r.runItems(ps, root, play.Tasks)
	r.flushHandlers(ps)
	r.runItems(ps, root, play.PostTasks)
	r.flushHandlers(ps)
	for _, h := range hosts {
		if r.host(h).failed {
			code = 2
		}
	}
	remaining := 0
	for _, h := range hosts {
		if !r.host(h).failed {
			remaining++
		}
	}
	return code, remaining == 0
}

func joinStr(l []any, sep string) string {
	s := ""
	for i, e := range l {
		if i > 0 {
			s += sep
		}
		s += value.Str(e)
	}
	return s
}

func (r *Runner) loadVarsFiles(ps *playState) error {
	for _, vf := range ps.play.VarsFiles {
		names := []any{vf}
		if l, ok := vf.([]any); ok {
			names = l
		}
		var lastErr error
		for _, n := range names {
			name := value.Str(n)
			if template.HasMarkers(name) {
				v, err := r.Engine.Render(name, r.playScope(ps, ps.hosts[0]), template.Options{})
				if err != nil {
					return err
				}
				name = value.Str(v)
			}
			if !filepath.IsAbs(name) {
				name = filepath.Join(ps.pb.Dir, name)
			}
			d, err := r.Loader.LoadVarsFile(name)
			if err != nil {
				lastErr = err
				continue
			}
			ps.varsFile.Update(d)
			lastErr = nil
			break
		}
		if lastErr != nil {
			return lastErr
		}
	}
	return nil
}

// collectRoleVars adds a role's (and its dependencies') defaults and vars
// to the play, where they are visible to every later task.
func (r *Runner) collectRoleVars(ps *playState, ri *playbook.RoleInstance) {
	for _, d := range ri.Deps {
		r.collectRoleVars(ps, d)
	}
	ps.roleDefs.Update(ri.Defaults)
	ps.roleVars.Update(ri.Vars)
}

func roleKey(ri *playbook.RoleInstance) string {
	return ri.Role.Path + "|" + value.JSON(ri.Params, value.JSONOptions{SortKeys: true})
}

// runRole runs a play-level role with its dependencies, once per distinct
// parameter set unless the role allows duplicates.
func (r *Runner) runRole(ps *playState, f *frame, ri *playbook.RoleInstance) {
	key := roleKey(ri)
	if ps.roleSeen[key] && !ri.Role.AllowDuplicates {
		return
	}
	ps.roleSeen[key] = true
	for _, d := range ri.Deps {
		r.runRole(ps, f, d)
	}
	b := &playbook.Block{Keywords: ri.Ref.Keywords, Block: ri.Tasks, Role: ri}
	b.Keywords.Vars = nil
	r.runBlock(ps, f, b)
	ps.handlers = append(ps.handlers, flattenTasks(ri.Handlers)...)
}

func flattenTasks(items []playbook.Item) []*playbook.Task {
	var out []*playbook.Task
	for _, it := range items {
		switch x := it.(type) {
		case *playbook.Task:
			out = append(out, x)
		case *playbook.Block:
			out = append(out, flattenTasks(x.Block)...)
		}
	}
	return out
}

// errStop is returned when a host may run no more tasks in this play.
var errStop = errors.New("host stopped")
