// Package playbook is the parsed form of playbooks, plays, blocks, tasks
// and roles, with the source position of everything an error may name. It
// holds data only; engine/run executes it.
package playbook

import (
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
	Warnings []Warning
}

// Warning is a load-time warning with its position and help text.
type Warning struct {
	Msg  string
	Pos  value.Pos
	Help string
	// Deprecated is the ansible-core version that removes the feature.
	Deprecated string
}

// Cond is one `when`/`failed_when`/`changed_when`/`until` condition: a
// Jinja2 expression string or a literal bool.
type Cond struct {
	Expr any
	Pos  value.Pos
}

// Keywords are the task keywords a block passes to its children.
type Keywords struct {
	When           []Cond
	Vars           *value.Dict
	Tags           []string
	IgnoreErrors   any
	NoLog          any
	Environment    any
	CheckMode      any
	Diff           any
	RunOnce        any
	DelegateTo     any
	AnyErrorsFatal any
	Become         any
	Set            map[string]bool // which keywords were given explicitly
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
	// ArgsTemplate is an `args:` keyword given as a template, rendered
	// into the arguments when the task runs.
	ArgsTemplate any
	ArgsPos      value.Pos
	Loop         any
	LoopKind     string // "loop", "with_items", "with_dict", ...
	LoopPos      value.Pos
	HasLoop      bool
	LoopControl  *value.Dict
	Register     string
	Until        []Cond
	Retries      any
	Delay        any
	FailedWhen   []Cond
	ChangedWhen  []Cond
	Notify       []string
	Listen       []string
	// Role is the role the task belongs to (nil for play tasks).
	Role *RoleInstance
	// Dir is the directory relative paths in the task resolve against.
	Dir string
	// kvPos is where free-form k=v arguments were written.
	kvPos *value.Pos
}

func (*Task) isItem() {}

// Play is one play.
type Play struct {
	Keywords
	Name string
	Pos  value.Pos
	// Dir is the directory of the playbook file the play is written in.
	Dir           string
	Hosts         any
	GatherFacts   any
	VarsFiles     []any
	VarsFilesPos  value.Pos
	PreTasks      []Item
	Roles         []*RoleInstance
	Tasks         []Item
	PostTasks     []Item
	Handlers      []Item
	Serial        any
	ForceHandlers any
	// StaticRoles are roles brought in by import_role; their defaults and
	// vars are visible to the whole play.
	StaticRoles []*RoleInstance
}

// Role is a role directory, loaded once per play.
type Role struct {
	Name            string
	Path            string
	Defaults        *value.Dict
	Vars            *value.Dict
	Meta            *value.Dict
	Deps            []*RoleRef
	AllowDuplicates bool
}

// RoleRef is a reference to a role: a play `roles:` entry, a meta
// dependency, or an include_role/import_role.
type RoleRef struct {
	Name   string
	Params *value.Dict // inline keys: role params
	Keywords
	Pos                                             value.Pos
	TasksFrom, VarsFrom, DefaultsFrom, HandlersFrom string
	Public                                          any
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
}

// Name returns the role's name.
func (r *RoleInstance) Name() string { return r.Role.Name }
