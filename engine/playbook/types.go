// Package playbook is the parsed form of playbooks, plays, blocks, tasks
// and roles, with the source position of everything an error may name. It
// holds data only; engine/run executes it.
package playbook

import (
	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Playbook is one playbook file.
type Playbook struct {
	// Arg is the path as given on the command line; Path is absolute.
	Arg   string
	Path  string
	Dir   string
	Plays []*Play
	// Messages are the -vvv notes of loading ("statically imported: ...").
	Messages []string
	// Warnings are problems found while loading that do not stop it.
	Warnings []*diag.Diagnostic
}

// Cond is one `when`/`failed_when`/`changed_when`/`until` condition: a
// Jinja2 expression string or a literal bool.
type Cond struct {
	Expr any
	Pos  value.Pos
}

// Keywords are the task keywords a block passes to its children.
type Keywords struct {
	When         []Cond
	Vars         *value.Dict
	Tags         []string
	IgnoreErrors any
	NoLog        any
	Environment  any
	// ModuleDefaults is the module_defaults keyword as written: a mapping
	// or a list of mappings from module (or group/NAME) to arguments.
	ModuleDefaults any
	CheckMode      any
	Diff           any
	RunOnce        any
	DelegateTo     any
	// DelegateFacts sends the facts a delegated task returns to the
	// host it was delegated to.
	DelegateFacts  any
	AnyErrorsFatal any
	Become         any
	// BecomeUser, BecomeMethod and BecomeFlags are become_user,
	// become_method and become_flags, as written.
	BecomeUser, BecomeMethod, BecomeFlags any
	// Connection is the connection keyword, as written.
	Connection any
	// IgnoreUnreachable is ignore_unreachable, as written.
	IgnoreUnreachable any
	// RemoteUser is remote_user (`user` on a play): the connection's
	// user, which tasks see as ansible_user unless a variable sets that.
	RemoteUser any
	// Notify is inherited by the tasks of a block or an import.
	Notify []string
	// Throttle is validated and, as cfzt-runner runs one host at a time,
	// otherwise has nothing to limit.
	Throttle    any
	ThrottlePos value.Pos
	Set         map[string]bool // which keywords were given explicitly
}

// Item is a *Task or a *Block.
type Item interface{ isItem() }

// Block is a block/rescue/always group, or the implicit block around a
// task list, an import, or a role.
type Block struct {
	Keywords
	Name   string
	Pos    value.Pos
	Block  []Item
	Rescue []Item
	Always []Item
	// Role is set on a role's top-level block; its tasks run as that role.
	Role *RoleInstance
	// IncludeVars are include_tasks/include_role `vars:` (include params).
	IncludeVars *value.Dict
	// Static marks the synthetic block of an import_tasks/import_role.
	Static bool
	// RoleTasks marks the block of Role's own tasks (after its
	// dependencies), the unit that runs once per host unless the role
	// allows duplicates.
	RoleTasks bool
}

func (*Block) isItem() {}

// Task is one task.
type Task struct {
	Keywords
	Name    string
	NamePos value.Pos
	Pos     value.Pos
	File    string
	Module  string // canonical module name, e.g. "debug"
	Action  string // the name as written, e.g. "ansible.builtin.debug"
	// Info is the action's classification, made once at load time.
	Info      module.Info
	ModulePos value.Pos
	Args      *value.Dict
	ArgPos    map[string]value.Pos
	// ArgItemPos is where each item of a list argument was written.
	ArgItemPos map[string][]value.Pos
	// ArgsTemplate is an `args:` keyword given as a template, rendered
	// into the arguments when the task runs.
	ArgsTemplate any
	ArgsPos      value.Pos
	Loop         any
	LoopKind     string // "loop", "with_items", "with_dict", ...
	LoopPos      value.Pos
	HasLoop      bool
	LoopControl  *value.Dict
	// BreakWhen is loop_control.break_when, evaluated after each item.
	BreakWhen []Cond
	Register  string
	// RegisterPos is where the register keyword's value was written.
	RegisterPos value.Pos
	Until       []Cond
	Retries     any
	Delay       any
	// Async is the `async` keyword (seconds a background job may run,
	// 0: run in the foreground) and Poll the `poll` keyword (seconds
	// between status checks, 0: fire and forget); nil when not written.
	// AsyncPos and PollPos are where their values were written.
	Async, Poll       any
	AsyncPos, PollPos value.Pos
	FailedWhen        []Cond
	ChangedWhen       []Cond
	Listen            []string
	// Apply is the block of keywords an include's `apply` gives the
	// included tasks; ApplyErr the error building it raises when the
	// include runs.
	Apply    *Block
	ApplyErr error
	// Role is the role the task belongs to (nil for play tasks).
	Role *RoleInstance
	// Collections is the task's own `collections` search list (nil when
	// it inherits its block's, role's or play's).
	Collections []string
	// BlockCollections is the `collections` list of the task's nearest
	// block that has one: the tasks an include_tasks loads inherit it
	// (the include's own `collections` they do not, as in ansible-core).
	BlockCollections []string
	// TemplatedAction marks an `action:` whose module name is a template:
	// Module and Action hold the template until each host's run resolves it.
	TemplatedAction bool
	// Dir is the directory relative paths in the task resolve against.
	Dir string
	// IncludeDir is set on the tasks a play-level include_tasks loaded: the
	// directory a nested include_tasks joins its file to, uncleaned, as
	// ansible-core joins the play's directory with each parent include's
	// directory, so that "included:" shows "a/./b/../c.yml" as written.
	IncludeDir string
	// UnknownOrigin is set on a task ansible-core builds itself (a role's
	// argument validation): its errors show no source position, but this
	// text, the task's data, instead.
	UnknownOrigin string
	// kvPos is where free-form k=v arguments were written.
	kvPos *value.Pos
	// Implicit marks a task the executor adds (the play's fact
	// gathering): it has no source of its own, so its errors show no
	// origin at all.
	Implicit bool
}

func (*Task) isItem() {}

// Play is one play.
type Play struct {
	Keywords
	Name string
	Pos  value.Pos
	// Dir is the directory of the playbook file the play is written in.
	Dir          string
	Hosts        any
	GatherFacts  any
	VarsFiles    []any
	VarsFilesPos value.Pos
	// VarsFilesItemPos is where each vars_files entry was written, and
	// VarsFilesNamePos where each name of a list entry was.
	VarsFilesItemPos []value.Pos
	VarsFilesNamePos [][]value.Pos
	PreTasks         []Item
	Roles            []*RoleInstance
	Tasks            []Item
	PostTasks        []Item
	Handlers         []Item
	Serial           any
	ForceHandlers    any
	// Order is the order keyword (inventory, sorted, ...);
	// MaxFailPercentage the max_fail_percentage keyword.
	Order             any
	MaxFailPercentage any
	// StaticRoles are roles brought in by import_role; their defaults and
	// vars are visible to the whole play.
	StaticRoles []*RoleInstance
	// Collections is the play's collection search list (the
	// `collections` keyword, with ansible.legacy added).
	Collections []string
	// GatherSubset, GatherTimeout and FactPath are the arguments of the
	// play's fact gathering task, as written (nil when not given).
	GatherSubset, GatherTimeout, FactPath any
}

// section returns the task list of a play section by its key.
func (p *Play) section(key string) *[]Item {
	switch key {
	case "pre_tasks":
		return &p.PreTasks
	case "post_tasks":
		return &p.PostTasks
	case "handlers":
		return &p.Handlers
	}
	return &p.Tasks
}

// LoadedRoles lists the roles loaded with the play: its `roles:`, then
// those import_role brought in.
func (p *Play) LoadedRoles() []*RoleInstance {
	return append(append([]*RoleInstance{}, p.Roles...), p.StaticRoles...)
}

// Role is a role directory, loaded once per name and path.
type Role struct {
	// Name is the role's name without its collection.
	Name string
	// Collection is the collection the role comes from ("" for none).
	Collection string
	Path       string
	// Defaults and Vars are the main defaults and vars files.
	Defaults *value.Dict
	Vars     *value.Dict
	Meta     *value.Dict
	Deps     []*RoleRef
	// AllowDuplicates is meta/main.yml's allow_duplicates.
	AllowDuplicates bool
	// Collections is the search list for the role's unqualified names.
	Collections []string
	// ArgumentSpecs is meta/main.yml's argument_specs.
	ArgumentSpecs *value.Dict
}

// FQName is the role's name with its collection, as banners show it.
func (r *Role) FQName() string {
	if r.Collection == "" {
		return r.Name
	}
	return r.Collection + "." + r.Name
}

// RoleRef is a reference to a role: a play `roles:` entry, a meta
// dependency, or an include_role/import_role.
type RoleRef struct {
	Name string
	// Params are the entry's other keys: role params.
	Params *value.Dict
	// Keywords are the entry's keywords; their Vars are the role's
	// `vars:`, a level below role params.
	Keywords
	Pos                                             value.Pos
	TasksFrom, VarsFrom, DefaultsFrom, HandlersFrom string
	// Public is include_role/import_role's `public` (nil when not given).
	Public any
	// Static is set for roles loaded with the play: `roles:` entries,
	// import_role and their dependencies.
	Static bool
	// FromInclude is set for include_role and import_role.
	FromInclude bool
	// NoValidate is include_role/import_role's rolespec_validate: false,
	// which skips the role's argument validation.
	NoValidate bool
	// AllowDuplicates is include_role/import_role's allow_duplicates,
	// which overrides the role's meta (nil for other references).
	AllowDuplicates *bool
	// Collections is the collection search list for an unqualified name.
	Collections []string
	// Basedir is, for a dependency, the directory holding the role that
	// depends on it, where the dependency is looked for too.
	Basedir string
}

// RoleInstance is a role with the parameters of one reference.
type RoleInstance struct {
	Role   *Role
	Ref    *RoleRef
	Params *value.Dict
	// Vars and Defaults are the files chosen by vars_from/defaults_from.
	Vars     *value.Dict
	Defaults *value.Dict
	Deps     []*RoleInstance
	Tasks    []Item
	Handlers []Item
	Parent   *RoleInstance
	// Dep is set for a role brought in as a meta dependency of Parent.
	Dep bool
	// Public roles show their defaults and vars to the whole play.
	Public bool
	// AllowDuplicates lets the role run again for a host it already ran on.
	AllowDuplicates bool
	// key caches Key, computed once the instance is loaded.
	key string
}

// Name returns the role's name, with its collection.
func (r *RoleInstance) Name() string { return r.Role.FQName() }
