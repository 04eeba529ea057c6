package run

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
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
	// ForceHandlers runs notified handlers even on failed hosts.
	ForceHandlers bool
	// Limit is --limit: a host pattern every play's hosts are cut down to.
	Limit string
}

// Runner executes playbooks.
type Runner struct {
	Engine    *template.Engine
	Modules   *module.Registry
	Loader    *playbook.Loader
	Display   Display
	Inventory *Inventory
	Opts      Options
	Stdout    io.Writer
	Shared    *module.Shared
	// ConfigFile is the ansible.cfg in use (nil when none), for the
	// ansible_config_file magic variable.
	ConfigFile any
	// Stop, when closed, ends the run between tasks: the running task
	// finishes, no later task or play starts, and the recap is still shown.
	// A nil Stop never fires. Cancelling the context of Run is the hard
	// stop that interrupts the running task too.
	Stop <-chan struct{}

	ctx   context.Context
	stats map[string]*Stats
	order []string
	hosts map[string]*hostState
	// startReached is set once --start-at-task has matched.
	startReached bool
	// abort, when set, ends the run at once with this exit code (a parse
	// error in an included file).
	abort int
	// static caches which variables hold no template.
	static staticCache
}

// hostState is what a run knows about one host.
type hostState struct {
	name string
	// facts are set_fact results and registered variables; incVars are
	// include_vars results, one precedence level below.
	facts   *value.Dict
	incVars *value.Dict
	// gathered are the facts of the implicit setup task.
	gathered *value.Dict
	failed   bool
	// ended is set by meta: end_host.
	ended bool
	// endRole is set by meta: end_role until the role's block ends.
	endRole *playbook.RoleInstance
}

// ExitError carries ansible-playbook's exit status.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Run executes a loaded playbook and returns the exit code. A Runner may
// run several playbooks in turn, as ansible-playbook does with several
// arguments: host state, facts and counters carry over, and each
// playbook ends with the recap so far.
func (r *Runner) Run(ctx context.Context, pb *playbook.Playbook) int {
	r.ctx = ctx
	if r.stats == nil {
		r.stats = map[string]*Stats{}
		r.hosts = map[string]*hostState{}
		r.startReached = r.Opts.StartAt == ""
	}
	if r.Shared == nil {
		r.Shared = module.NewShared()
	}
	r.Inventory.SetWarn(r.Display.Warning)
	r.loadWarnings(pb.Warnings)
	r.Loader.Warnings()
	r.Display.PlaybookStart(pb)
	code := 0
	for _, play := range pb.Plays {
		c, stop := r.runPlay(pb, play)
		if c > code {
			code = c
		}
		if r.abort != 0 {
			return r.abort
		}
		if stop || r.stopping() {
			break
		}
	}
	r.Display.Recap(r.recap())
	if !r.startReached {
		r.controllerError(fmt.Errorf("No matching task \"%s\" found. Note: --start-at-task can only follow static includes.", r.Opts.StartAt))
	}
	return code
}

// loadWarnings shows the loader's warnings.
func (r *Runner) loadWarnings(ws []playbook.Warning) {
	for _, w := range ws {
		p := w.Pos
		r.warn(Warning{Msg: w.Msg, Origin: &p, Help: w.Help, Deprecated: w.Deprecated})
	}
}

// reservedNames are the variable names ansible-core warns about
// (ansible.vars.reserved: playbook keywords and template globals).
var reservedNames = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`action always any_errors_fatal args async async_val become become_exe
		become_flags become_method become_user block changed_when check_mode collections connection cycler
		debugger delay delegate_facts delegate_to dict diff environment fact_path failed_when force_handlers
		gather_facts gather_timeout handlers hosts ignore_errors ignore_unreachable joiner lipsum local_action
		lookup loop loop_control loop_with max_fail_percentage module_defaults name namespace no_log notify now
		omit order poll port post_tasks pre_tasks q query range register remote_user rescue retries roles
		run_once serial strategy tags tasks throttle timeout undef until vars vars_files vars_prompt when with_`) {
		reservedNames[n] = true
	}
}

// warnReserved warns about variables that use a reserved name.
func (r *Runner) warnReserved(layers ...*value.Dict) {
	for _, d := range layers {
		d.Each(func(k string, _ any) bool {
			if reservedNames[k] && k != "vars" {
				w := Warning{Msg: fmt.Sprintf("Found variable using reserved name '%s'.", k)}
				if p, ok := playbook.KeyOriginOf(d, k); ok {
					w.Origin = &p
				}
				r.warn(w)
			}
			return true
		})
	}
}

// controllerError shows an error the way ansible-core's display.error
// does (on stderr), when the display supports it.
func (r *Runner) controllerError(err error) {
	if ce, ok := r.Display.(ControllerErrorDisplay); ok {
		ce.ControllerError(err)
	} else {
		r.Display.Error(err)
	}
}

// stopping reports whether Stop has fired.
func (r *Runner) stopping() bool {
	select {
	case <-r.Stop:
		return true
	default:
		return false
	}
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
		h = &hostState{name: name, facts: value.NewDict(8), incVars: value.NewDict(0)}
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
	// allHosts are the hosts the play started with.
	allHosts []string
	// notified maps each notified handler to the hosts that notified it.
	notified map[*playbook.Task][]string
	// handlers are the handlers of the play's roles (and included roles).
	handlers []*playbook.Task
	// root is the frame of the play's own keywords.
	root *frame
	// roleSeen dedups roles by name and parameters.
	roleSeen map[string]bool
	// endPlay is set by meta: end_play.
	endPlay bool
	// flushing is set while handlers run.
	flushing bool
}

func (r *Runner) runPlay(pb *playbook.Playbook, play *playbook.Play) (code int, stopPlaybook bool) {
	ps := &playState{pb: pb, play: play, hosts: nil, notified: map[*playbook.Task][]string{}, roleSeen: map[string]bool{},
		vars: play.Vars, roleDefs: value.NewDict(0), roleVars: value.NewDict(0), varsFile: value.NewDict(0)}
	if ps.vars == nil {
		ps.vars = value.NewDict(0)
	}
	// The play's hosts and name are templated with play-level variables.
	pscope := &scope{}
	pscope.add(ps.vars, true)
	pscope.add(r.Opts.ExtraVars, true)
	pscope.add(value.DictOf("playbook_dir", r.playDir(ps), "ansible_check_mode", r.Opts.Check, "omit", value.Omit{}), false)
	pattern := play.Hosts
	if s, ok := pattern.(string); ok && template.HasMarkers(s) {
		if v, err := r.Engine.Render(s, pscope, template.Options{}); err == nil {
			pattern = v
		}
	}
	hosts, err := r.Inventory.Match(pattern)
	if err != nil {
		r.Display.Error(err)
		return 1, true
	}
	if r.Opts.Limit != "" {
		allowed, _ := r.Inventory.Match(r.Opts.Limit)
		var kept []string
		for _, h := range hosts {
			if containsStr(allowed, h) {
				kept = append(kept, h)
			}
		}
		hosts = kept
	}
	for _, h := range hosts {
		hs := r.host(h)
		// meta: end_host and end_role last for one play only.
		hs.ended, hs.endRole = false, nil
		if !hs.failed {
			ps.hosts = append(ps.hosts, h)
		}
	}
	ps.name = play.Name
	if ps.name == "" {
		ps.name = hostsText(play.Hosts)
	}
	if template.HasMarkers(ps.name) {
		if v, err := r.Engine.Render(ps.name, pscope, template.Options{}); err == nil {
			ps.name = value.Str(v)
		}
	}
	if err := r.checkVarsFiles(play); err != nil {
		r.controllerError(err)
		return 4, true
	}
	r.Display.PlayStart(ps.name)
	if len(ps.hosts) == 0 {
		if nh, ok := r.Display.(NoHostsDisplay); ok {
			nh.NoHostsMatched()
		} else {
			r.Display.Warning("skipping: no hosts matched")
		}
		return 0, false
	}
	if err := r.loadVarsFiles(ps); err != nil {
		r.Display.Error(err)
		return 1, true
	}
	for _, ri := range append(append([]*playbook.RoleInstance{}, play.Roles...), play.StaticRoles...) {
		r.collectRoleVars(ps, ri)
		ps.handlers = append(ps.handlers, roleHandlers(ri)...)
	}
	ps.allHosts = append([]string(nil), ps.hosts...)
	layers := []*value.Dict{ps.roleDefs, ps.vars, ps.varsFile, ps.roleVars, r.Opts.ExtraVars}
	for _, h := range ps.hosts {
		layers = append(layers, r.Inventory.HostVars(h))
	}
	r.warnReserved(layers...)
	root := &frame{kw: &play.Keywords, play: true}
	ps.root = root
	r.gatherFacts(ps)
	r.runItems(ps, root, play.PreTasks)
	r.implicitFlush(ps)
	for _, ri := range play.Roles {
		if ps.endPlay {
			break
		}
		r.runRole(ps, root, ri)
	}
	r.runItems(ps, root, play.Tasks)
	r.implicitFlush(ps)
	r.runItems(ps, root, play.PostTasks)
	r.implicitFlush(ps)
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

// playDir is the directory of the playbook the play was written in
// (the playbook_dir magic variable).
func (r *Runner) playDir(ps *playState) string {
	if ps.play.Dir != "" {
		return ps.play.Dir
	}
	return ps.pb.Dir
}

// checkVarsFiles rejects vars_files entries that are neither strings nor
// lists of strings.
func (r *Runner) checkVarsFiles(play *playbook.Play) error {
	for _, vf := range play.VarsFiles {
		switch x := vf.(type) {
		case string:
		case []any:
			for _, e := range x {
				if _, ok := e.(string); !ok {
					return r.varsFilesErr(play, e)
				}
			}
		default:
			return r.varsFilesErr(play, vf)
		}
	}
	return nil
}

func (r *Runner) varsFilesErr(play *playbook.Play, v any) error {
	p := play.VarsFilesPos
	return &ChainError{Msg: fmt.Sprintf("Invalid `vars_files` value of type '%s'.", value.TypeName(v)), Origin: &p,
		Help: "A `vars_files` value should either be a string or list of strings."}
}

// loadVarsFiles loads the play's vars_files: for a list entry, the first
// file that exists. Files that do not exist are skipped, as ansible-core
// does when it computes play variables.
func (r *Runner) loadVarsFiles(ps *playState) error {
	for _, vf := range ps.play.VarsFiles {
		names := []any{vf}
		if l, ok := vf.([]any); ok {
			names = l
		}
		for _, n := range names {
			name := value.Str(n)
			if template.HasMarkers(name) {
				v, err := r.Engine.Render(name, r.playScope(ps, ps.hosts[0]), template.Options{})
				if err != nil {
					return err
				}
				name = value.Str(v)
			}
			path := name
			if !filepath.IsAbs(path) {
				path = filepath.Join(r.playDir(ps), "vars", name)
				if !fileExists(path) {
					path = filepath.Join(r.playDir(ps), name)
				}
			}
			if !fileExists(path) {
				continue
			}
			d, err := r.Loader.LoadVarsFile(path)
			if err != nil {
				return err
			}
			ps.varsFile.Update(d)
			break
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
	r.runBlock(ps, f, r.roleBlock(ri))
}

// roleBlock is the block a role's tasks run in, with the keywords of the
// reference that brought the role in.
func (r *Runner) roleBlock(ri *playbook.RoleInstance) *playbook.Block {
	b := &playbook.Block{Keywords: ri.Ref.Keywords, Block: ri.Tasks, Role: ri}
	b.Keywords.Vars = nil
	return b
}

// implicitFlush is the flush_handlers meta task ansible-core adds after
// each section of a play; it is tagged `always`.
func (r *Runner) implicitFlush(ps *playState) {
	if ps.endPlay || r.abort != 0 || !TagsSelected([]string{"always"}, r.Opts.Tags, r.Opts.SkipTags) {
		return
	}
	r.flushHandlers(ps)
}

// roleHandlers lists a role's handlers after its dependencies'.
func roleHandlers(ri *playbook.RoleInstance) []*playbook.Task {
	var out []*playbook.Task
	for _, d := range ri.Deps {
		out = append(out, roleHandlers(d)...)
	}
	return append(out, flattenTasks(ri.Handlers)...)
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
