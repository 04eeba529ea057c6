package run

import (
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
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

// moduleOf is the module that runs t's action, nil if none does.
func (r *Runner) moduleOf(t *playbook.Task) module.Module {
	return r.Modules.Module(t.Action)
}
