package run

import (
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// resolveTemplatedAction returns t with its templated action name
// (`action: "{{ mod }}"`) rendered with the host's variables and resolved
// to a module, as ansible-core does when it post-validates the task for
// each host. t itself is shared by every host, so the result is a copy; an
// action that does not render or resolve is left as written, and running it
// fails (see once).
func (tr *taskRun) resolveTemplatedAction(t *playbook.Task) *playbook.Task {
	if !t.TemplatedAction {
		return t
	}
	name, err := tr.r.Engine.Render(t.Action, tr.sc, tr.opt)
	if err != nil {
		return t
	}
	info, ok := tr.r.Modules.Lookup(value.Str(name))
	if !ok {
		return t
	}
	c := *t
	c.Module, c.Action, c.Info = info.Name, value.Str(name), info
	return &c
}

// unresolvedAction is the failure of a task whose action names no module.
func unresolvedAction(t *playbook.Task) error {
	return fmt.Errorf("Cannot resolve '%s' to an action or module.", t.Action)
}

// unimplementedModule is the failure of a task whose module ansible-core
// has and cfzt-runner does not implement.
func unimplementedModule(t *playbook.Task) string {
	return fmt.Sprintf("cfzt-runner does not implement the module '%s'. It is an Ansible module, so the playbook loads; only a task that runs it fails. See the README's list of modules.", t.Info.FQCN)
}

// moduleOf is the module that runs t's action, nil if none does.
func (r *Runner) moduleOf(t *playbook.Task) module.Module {
	return r.Modules.Module(t.Action)
}

// assertConditions is assert's `that` as its action finalizes it: left as
// written, so that each condition is evaluated (and warned about) as a
// conditional, except a string that is one whole template resolving to a
// list, which gives that list.
func (tr *taskRun) assertConditions(that any, sc *scope, opt template.Options) any {
	s, ok := that.(string)
	if !ok || !playbook.WholeTemplate(s) {
		return that
	}
	if v, err := tr.r.Engine.Render(s, sc, opt); err == nil {
		if l, isList := v.([]any); isList {
			return l
		}
	}
	return that
}

// rejectRawParams fails a task that gives loose words ("msg=a b") to an
// action that takes none, unless they are one whole template (which may
// give the arguments), as ansible-core does when it finalizes the args.
func rejectRawParams(t *playbook.Task) error {
	raw, ok := t.Args.Get("_raw_params")
	if !ok || playbook.TakesRawParams(t.Info) {
		return nil
	}
	if s, isStr := raw.(string); !isStr || s == "" || playbook.WholeTemplate(s) {
		return nil
	}
	msg := fmt.Sprintf("Action '%s' does not support raw params.", t.Info.FQCN)
	return diag.Chain("Task failed.", t.Pos, &diag.Diagnostic{Summary: msg, Origin: diag.At(t.ModulePos)})
}
