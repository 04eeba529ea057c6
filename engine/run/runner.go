// Package run executes loaded playbooks: plays, blocks, tasks, loops,
// handlers and includes, emitting events to a display.
package run

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/inventory"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Options are the run-wide settings from the command line.
type Options struct {
	// BaseEnv are variables every module's environment has beyond the
	// process's own, under the task's `environment`.
	BaseEnv     map[string]string
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
	// MergeHashes is hash_behaviour=merge: dict variables merge across
	// precedence levels instead of replacing each other.
	MergeHashes bool
	// Gathering is DEFAULT_GATHERING: implicit (also when empty),
	// explicit or smart.
	Gathering string
	// NoInjectFacts turns INJECT_FACTS_AS_VARS off: facts are then only
	// in ansible_facts (and ansible_local).
	NoInjectFacts bool
	// WarnOnMissingHandler turns ERROR_ON_MISSING_HANDLER off: a
	// notification no handler answers is a warning.
	WarnOnMissingHandler bool
	// AllowBrokenConditionals is ALLOW_BROKEN_CONDITIONALS: a conditional
	// with a non-boolean result is taken by its truthiness, with a
	// deprecation warning, as ansible-core 2.19 allows.
	AllowBrokenConditionals bool
	// NoDeprecationWarnings is DEPRECATION_WARNINGS=False: the run's
	// deprecation warnings are not shown.
	NoDeprecationWarnings bool
	// ShowCustomStats is SHOW_CUSTOM_STATS: set_stats data is shown
	// after the recap.
	ShowCustomStats bool
	// Step is --step: asked before each task (given as "TASK: name" or
	// "HANDLER: name") whether it runs; an error ends the run.
	Step func(task string) (bool, error)
	// Connection is -c/--connection: the connection of plays and tasks
	// that set none (cfzt-runner runs only "local"; see connection.go).
	Connection string
	// Become, BecomeUser and BecomeMethod are -b/--become, --become-user
	// and --become-method (see become.go).
	Become                   bool
	BecomeUser, BecomeMethod string
	// ConnectionFrom, BecomeFrom and BecomeUserFrom name the setting
	// that gave Connection, Become and BecomeUser, for messages (the
	// command-line options when empty).
	ConnectionFrom, BecomeFrom, BecomeUserFrom string
}

// Runner executes playbooks.
type Runner struct {
	Engine  *template.Engine
	Modules *module.Registry
	Loader  *playbook.Loader
	Display Display
	// Observer, when not nil, is told of every task result.
	Observer  Observer
	Inventory *inventory.Inventory
	// ReloadInventory re-reads the inventory sources for meta:
	// refresh_inventory; nil keeps the inventory as it is.
	ReloadInventory func() *inventory.Inventory
	Opts            Options
	Stdout          io.Writer
	Shared          *module.Shared
	// ConfigFile is the ansible.cfg in use (nil when none), for the
	// ansible_config_file magic variable.
	ConfigFile any
	// Stop, when closed, ends the run between tasks: the running task
	// finishes, no later task or play starts, and the recap is still shown.
	// A nil Stop never fires. Cancelling the context of Run is the hard
	// stop that interrupts the running task too.
	Stop <-chan struct{}
	// AsyncExecutable is the cfzt-runner binary that runs the background
	// jobs of async tasks (asyncjob.ChildCommand); empty means this
	// process's own executable.
	AsyncExecutable string

	ctx   context.Context
	stats map[string]*Stats
	order []string
	hosts map[string]*hostState
	// failedHosts are the failed hosts of the playbook (ansible-core's
	// TaskQueueManager._failed_hosts): they take no part in later plays.
	// result is the exit code of the last batch that ran, which a play
	// that matches no host leaves as it is.
	failedHosts map[string]bool
	result      int
	// startReached is set once --start-at-task has matched.
	startReached bool
	// abort, when set, ends the run at once with this exit code (a parse
	// error in an included file).
	abort int
	// static caches which variables hold no template.
	static staticCache
	// custom are the set_stats data of the run, by host ("_run" for the
	// whole run).
	custom map[string]*value.Dict
}

// hostState is what a run knows about one host.
type hostState struct {
	name string
	// facts are set_fact results and registered variables; incVars are
	// include_vars results, one precedence level below.
	facts   *value.Dict
	incVars *value.Dict
	// trustedFacts names the facts that set_fact gave a string written in
	// the playbook, which stays trusted as an expression (see trust.go).
	trustedFacts map[string]bool
	// cache is the host's fact cache.
	cache *factCache
	// failed is the host's failure state, which the exit code, later
	// plays and meta: clear_host_errors deal with; halted is set when the
	// host runs no more tasks of the section it is in (it failed, and may
	// go on in a rescue or always section).
	failed, halted bool
	// escalated is set when a failing host is failed again before it
	// reached its rescue or always: it skips that section.
	escalated, skipRescue bool
	// removed takes the host out of ansible_play_hosts and
	// ansible_play_batch (ansible-core's play._removed_hosts).
	removed bool
	// ended is set by meta: end_host, end_batch and end_play.
	ended bool
	// unreachable is set when a task could not reach the host: it runs
	// nothing more in this playbook (ansible-core's _unreachable_hosts).
	unreachable bool
	// endRole is set by meta: end_role until the role's block ends.
	endRole *playbook.RoleInstance
}

// Run executes a loaded playbook and returns the exit code. A Runner may
// run several playbooks in turn, as ansible-playbook does with several
// arguments: host state, facts and counters carry over, and each
// playbook ends with the recap so far.
func (r *Runner) Run(ctx context.Context, pb *playbook.Playbook) int {
	r.ctx = ctx
	if r.stats == nil {
		r.stats = map[string]*Stats{}
		r.hosts = map[string]*hostState{}
		r.failedHosts = map[string]bool{}
		r.startReached = r.Opts.StartAt == ""
	}
	if r.Shared == nil {
		r.Shared = module.NewShared()
	}
	r.Inventory.SetWarn(r.warning)
	r.loadWarnings(pb.Warnings)
	r.Loader.Warnings()
	r.Display.PlaybookStart(pb)
	code := 0
	for _, play := range pb.Plays {
		// As ansible-core's, the exit code is the last batch's: hosts that
		// failed before stay failed unless meta: clear_host_errors cleared them.
		c, stop := r.runPlay(pb, play)
		code = c
		if r.abort != 0 {
			return r.abort
		}
		if stop || r.stopping() {
			break
		}
	}
	r.Display.Recap(r.recap())
	r.showCustomStats()
	if e, ok := r.Display.(StatsEnder); ok {
		e.StatsShown()
	}
	if !r.startReached {
		r.controllerError(fmt.Errorf("No matching task \"%s\" found. Note: --start-at-task can only follow static includes.", r.Opts.StartAt))
	}
	return code
}

// loadWarnings shows the loader's warnings.
func (r *Runner) loadWarnings(ws []*diag.Diagnostic) {
	for _, w := range ws {
		r.warn(w)
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
		r.warnReservedKeys(d, d, nil)
	}
}

// warnReservedKeys warns about the keys of d that are reserved names,
// placing each warning where origins records the key, or else at the
// key's value in valuePos (a key=value argument string).
func (r *Runner) warnReservedKeys(d, origins *value.Dict, valuePos map[string]value.Pos) {
	d.Each(func(k string, _ any) bool {
		if !reservedNames[k] || k == "vars" {
			return true
		}
		w := reservedWarning(k)
		if p, ok := playbook.KeyOriginOf(origins, k); ok {
			w.Origin = &p
		} else if p, ok := valuePos[k]; ok {
			w.Origin = &p
		} else if d == r.Opts.ExtraVars {
			// A key=value or JSON -e names no file: ansible-core shows
			// the option and the name.
			w.Origin, w.Note = &value.Pos{File: "<CLI option '-e'>"}, k
		}
		r.warn(w)
		return true
	})
}

// reservedWarning is ansible-core's warning about a variable named as a
// keyword or template global.
func reservedWarning(name string) *diag.Diagnostic {
	return &diag.Diagnostic{Severity: diag.Warning, Summary: fmt.Sprintf("Found variable using reserved name '%s'.", name)}
}

// controllerError shows an error the way ansible-core's display.error
// does (on stderr).
func (r *Runner) controllerError(err error) { r.Display.ControllerError(err) }

// stopping reports whether Stop has fired or the run was cancelled.
func (r *Runner) stopping() bool {
	select {
	case <-r.Stop:
		return true
	default:
	}
	// A cancelled run (SIGINT or SIGTERM) starts no further task.
	return r.ctx != nil && r.ctx.Err() != nil
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
		h = &hostState{name: name, facts: value.NewDict(8), incVars: value.NewDict(0), cache: newFactCache()}
		r.hosts[name] = h
	}
	return h
}

// playState is what one play execution shares between its tasks.
type playState struct {
	pb    *playbook.Playbook
	play  *playbook.Play
	name  string
	hosts []string
	vars  *value.Dict // play vars
	// varsFiles are the vars_files variables of each host (their names
	// may use host variables).
	varsFiles map[string]*value.Dict
	// roles are the play's roles: `roles:`, imported and included ones.
	roles    []*playbook.RoleInstance
	roleDefs *value.Dict // defaults of the play's public roles
	roleVars *value.Dict // vars of the play's public roles
	// allHosts are the hosts the play started with.
	allHosts []string
	// staticHandlers are the handlers of the play's roles, then the play's;
	// handlers is the batch's handler state, which include_role extends.
	staticHandlers [][]*playbook.Task
	handlers       *handlerState
	// root is the frame of the play's own keywords.
	root *frame
	// roleDone lists, per role (its Key), the hosts it ran on.
	roleDone map[string]map[string]bool
	// includedRoles are the roles include_role loaded, once per include
	// run: ansible-core adds each to the play's roles.
	includedRoles []*playbook.RoleInstance
	// batch is the serial batch that runs.
	batch []string
	// endPlay ends the batch (meta: end_batch, end_play, or too many
	// failed hosts); playEnded ends the play (meta: end_play) and
	// breakPlay the playbook (max_fail_percentage).
	endPlay, playEnded, breakPlay bool
}

func (r *Runner) runPlay(pb *playbook.Playbook, play *playbook.Play) (code int, stopPlaybook bool) {
	ps := &playState{pb: pb, play: play, hosts: nil, roleDone: map[string]map[string]bool{},
		vars: play.Vars, roleDefs: value.NewDict(0), roleVars: value.NewDict(0), varsFiles: map[string]*value.Dict{}}
	if ps.vars == nil {
		ps.vars = value.NewDict(0)
	}
	r.Loader.SetPlay(play)
	for _, ri := range play.LoadedRoles() {
		r.addPlayRole(ps, ri)
	}
	if err := r.checkVarsFiles(play); err != nil {
		// ansible-core reports it and ends the play, with the recap.
		r.controllerError(err)
		return diag.ExitCode(err), true
	}
	// The play's hosts and name are templated with the variables known
	// before any host is: these vars_files warn about what they lack.
	hostless, ok := r.hostlessVarsFiles(ps)
	if !ok {
		return r.abort, true
	}
	pscope := r.varsFilesScope(ps, "", hostless).with(ps.roleVars, true)
	hosts, ok := r.playHosts(ps, pscope)
	if !ok {
		return r.abort, true
	}
	ps.varsFiles[""] = hostless
	ps.name = play.Name
	if ps.name == "" {
		ps.name = hostsText(play.Hosts)
	}
	if template.HasMarkers(ps.name) {
		if v, err := r.Engine.Render(ps.name, pscope, template.Options{}); err == nil {
			ps.name = value.Str(v)
		}
	}
	batches, err := r.playBatches(ps, pscope, hosts)
	if err != nil {
		r.fatal(err)
		return r.abort, true
	}
	r.Display.PlayStart(ps.name)
	ps.hosts = hosts
	if len(ps.hosts) == 0 {
		r.Display.NoHostsMatched()
		return r.result, false
	}
	for _, h := range ps.hosts {
		if err := r.loadVarsFiles(ps, h); err != nil {
			r.fatal(err)
			return r.abort, true
		}
	}
	if own := flattenTasks(play.Handlers); len(own) > 0 {
		ps.staticHandlers = append(ps.staticHandlers, own)
	}
	ps.allHosts = append([]string(nil), ps.hosts...)
	layers := []*value.Dict{ps.roleDefs, ps.vars, ps.varsFiles[ps.hosts[0]], ps.roleVars, r.Opts.ExtraVars}
	for _, h := range ps.hosts {
		layers = append(layers, r.Inventory.HostVars(h))
	}
	r.warnReserved(layers...)
	return r.runBatches(ps, batches)
}

// playHosts matches the play's host pattern (templated with sc) and
// --limit; false when the pattern is an error.
func (r *Runner) playHosts(ps *playState, sc *scope) ([]string, bool) {
	pattern := ps.play.Hosts
	if s, ok := pattern.(string); ok && template.HasMarkers(s) {
		if v, err := r.Engine.Render(s, sc, template.Options{}); err == nil {
			pattern = v
		}
	}
	hosts, err := r.Inventory.Match(pattern)
	if err != nil {
		r.fatal(err)
		return nil, false
	}
	kept, err := r.Inventory.Limit(hosts, r.Opts.Limit)
	if err != nil {
		r.fatal(err)
		return nil, false
	}
	return kept, true
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
