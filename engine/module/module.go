// Package module is the contract between the executor and the modules it
// runs: a module receives a narrow Request (its rendered arguments, the run
// modes, the task environment) and reaches the executor only through the
// Host interface (templating, conditionals, warnings, the file search path).
// Modules never import the executor, and the executor never imports a
// module package: cmd/cfzt-runner composes the two through a Registry.
package module

import (
	"context"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Module is a native Ansible module or action plugin.
type Module interface {
	Run(req *Request) (*value.Dict, error)
}

// Func adapts a function to Module.
type Func func(req *Request) (*value.Dict, error)

// Run implements Module.
func (f Func) Run(req *Request) (*value.Dict, error) { return f(req) }

// Request is one invocation of a module with its rendered arguments.
type Request struct {
	Ctx context.Context
	// Name is the module's short name ("command"), FQCN its full name, and
	// Action the name as the task wrote it, which some error messages
	// quote (see LoadName).
	Name, FQCN, Action string
	// Args are the rendered arguments, omitted values already dropped. The
	// module owns this copy.
	Args      *value.Dict
	Check     bool
	Diff      bool
	Verbosity int
	// Env is the task's merged `environment` keyword, rendered. Modules
	// read it before the process environment (see Getenv).
	Env map[string]string
	// BaseEnv is what the run exports beyond the process environment (the
	// operator's flags that ansible-operator would export, such as
	// ANSIBLE_ROLES_PATH): part of every child's environment, under the
	// task's Env, but not the `environment` keyword, which raw refuses.
	BaseEnv map[string]string
	// ModuleFile is the module file found on the module search path
	// (Info.Path) that the external module runner executes; empty for a
	// built-in module.
	ModuleFile string
	// NoLog is the task's no_log, which a module file is told
	// (_ansible_no_log) so that it keeps its arguments out of logs.
	NoLog bool
	// ModuleUtils are the module_utils/ directories of the playbooks and
	// roles loaded so far, which a module file's imports of
	// ansible.module_utils also search.
	ModuleUtils []string
	// Host is the executor's side of the contract for this task and host.
	Host Host
}

// LoadName is the name ansible-core quotes in "Unsupported parameters
// for (NAME) module" for a module run by the generic action: the name as
// the task wrote it.
func (r *Request) LoadName() string { return r.Action }

// LegacyName is that name for a module whose own action plugin runs it as
// ansible.legacy.<name> (command, shell, uri, copy...), whatever the task
// wrote.
func (r *Request) LegacyName() string { return "ansible.legacy." + r.Name }

// BaseDir is the directory ansible-core runs modules in on the local
// connection: the playbook's directory, not the runner's working
// directory nor the task file's. Relative paths in a module's arguments
// resolve against it.
func (r *Request) BaseDir() string {
	if r.Host != nil {
		if d, ok := r.Host.Var("playbook_dir"); ok {
			if s, isStr := d.(string); isStr && s != "" {
				return s
			}
		}
	}
	wd, _ := os.Getwd()
	return wd
}

// Getenv looks a variable up in the task environment, then the run's
// exported variables, then the process's.
func (r *Request) Getenv(name string) (string, bool) {
	if v, ok := r.Env[name]; ok {
		return v, true
	}
	if v, ok := r.BaseEnv[name]; ok {
		return v, true
	}
	return os.LookupEnv(name)
}

// Environ is the environment a child process of the task gets: the
// process environment, the run's exported variables on top, and the
// task's `environment` entries on top of both.
func (r *Request) Environ() []string {
	return r.ProcessEnv(true)
}

// ProcessEnv is Environ, with the task's `environment` entries only when
// withTask is set (raw and the connection's own commands never apply
// them).
func (r *Request) ProcessEnv(withTask bool) []string {
	env := os.Environ()
	over := make(map[string]string, len(r.BaseEnv)+len(r.Env))
	for k, v := range r.BaseEnv {
		over[k] = v
	}
	if withTask {
		for k, v := range r.Env {
			over[k] = v
		}
	}
	return OverlayEnv(env, over)
}

// OverlayEnv is environ (KEY=VALUE entries) with over's variables
// replacing or joining them, in key order after the rest.
func OverlayEnv(environ []string, over map[string]string) []string {
	if len(over) == 0 {
		return environ
	}
	out := make([]string, 0, len(environ)+len(over))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if _, replaced := over[k]; !replaced {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(over))
	for k := range over {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+over[k])
	}
	return out
}

// Host is what a module may ask of the executor while it runs. The
// executor implements it for one task on one inventory host.
type Host interface {
	// Name is the inventory hostname the task runs for.
	Name() string
	// Render renders a template string with the task's variables, keeping
	// the native type of a lone {{ expression }} as Ansible 2.19 does.
	Render(tmpl string) (any, error)
	// Eval evaluates a bare Jinja2 expression with the task's variables.
	Eval(expr string) (any, error)
	// EvalLenient evaluates an expression where undefined values become
	// "<< error N - ... >>" placeholders (debug's `var`); warning is the
	// text to show when any placeholder was made.
	EvalLenient(expr string) (v any, warning string, err error)
	// Cond evaluates a conditional as `when:` does, with 2.19's strict
	// boolean results; pos is where it was written.
	Cond(cond any, pos value.Pos) (bool, error)
	// Var returns a variable visible to the task, rendered.
	Var(name string) (any, bool)
	// Warn shows a [WARNING] at a source position (zero: none).
	Warn(msg string, pos value.Pos)
	// Deprecate shows a [DEPRECATION WARNING]; version is the ansible-core
	// version that removes the feature.
	Deprecate(msg, version string, pos value.Pos)
	// ArgPos is where the value of an argument was written; KeyPos is
	// where its key was written. Both are zero when unknown.
	ArgPos(key string) value.Pos
	KeyPos(key string) value.Pos
	// ArgItemPos is where item i of a list argument was written, or the
	// argument's position when that is unknown.
	ArgItemPos(key string, i int) value.Pos
	// FindFile looks name up on Ansible's search path for the task (the
	// role's subdir, the role, the task file's directory and its subdir,
	// the play's directory and its subdir), as DataLoader.path_dwim_relative_stack
	// does. An absolute name is returned as it is. searched lists the
	// candidates tried, for "Could not find or access" messages.
	FindFile(subdir, name string) (path string, searched []string, found bool)
	// RenderFile renders a template file as the template module and
	// lookup do, with the task's variables plus the template_* variables.
	RenderFile(path string, opt FileTemplate) (string, error)
	// TaskDir is the directory of the file the task was written in.
	TaskDir() string
	// Stdout receives output a module prints directly (pause).
	Stdout() io.Writer
	// Shared holds per-run state modules share, such as API clients.
	Shared() *Shared
}

// FileTemplate are the options of one template file rendering, as the
// template module takes them. The caller sets the effective values (the
// template module's trim_blocks defaults to true, for instance).
type FileTemplate struct {
	// NewlineSequence is "\n" (the zero value means it), "\r", or "\r\n".
	NewlineSequence          string
	TrimBlocks, LStripBlocks bool
	// Delimiters override {% %}, {{ }} and {# #} when not empty.
	BlockStart, BlockEnd       string
	VariableStart, VariableEnd string
	CommentStart, CommentEnd   string
	// Vars are extra variables on top of the task's (template_path,
	// template_host, ansible_managed...).
	Vars *value.Dict
}
