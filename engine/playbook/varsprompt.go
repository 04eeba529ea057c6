package playbook

import (
	"gopkg.in/yaml.v3"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// notInteractiveWarning is ansible-core's warning for a vars_prompt entry
// when stdin is not a terminal.
const notInteractiveWarning = "Not prompting as we are not in interactive mode"

// promptVars sets the play variables vars_prompt asks for. cfzt-runner
// never prompts (it runs unattended, as ansible-playbook does without a
// terminal): a variable -e does not give takes the entry's default as
// text, or "None", with ansible-core's warning.
func (l *Loader) promptVars(p *Play, file string, n *yaml.Node) error {
	v, err := value.FromYAML(file, n)
	if err != nil {
		return err
	}
	entries, _ := v.([]any)
	for _, e := range entries {
		d, ok := e.(*value.Dict)
		if !ok {
			continue
		}
		name := value.Str(d.Default("name", ""))
		if name == "" || (l.ExtraVars != nil && l.ExtraVars.Has(name)) {
			continue
		}
		l.warnings = append(l.warnings, diag.Warn(notInteractiveWarning, nil))
		if p.Vars == nil {
			p.Vars = value.NewDict(1)
		}
		// The answer is text (to_text of the default, "None" without one).
		answer := "None"
		if def := d.Default("default", nil); def != nil {
			answer = value.Str(def)
		}
		p.Vars.Set(name, answer)
	}
	return nil
}
