package command

import "github.com/cfzt/cfzt-runner/engine/module/argspec"

// Specs returns the argument specs this package's modules validate with,
// by fully qualified name, for `cfzt-runner doc`. A module absent here
// checks its arguments in its own code.
func Specs() map[string]*argspec.Spec {
	return map[string]*argspec.Spec{
		"ansible.builtin.command": &commandSpec,
		"ansible.builtin.shell":   shellSpec(),
		"ansible.builtin.script":  &scriptSpec,
	}
}

// shellSpec is the command module's spec as shell reaches it: the shell
// action refuses expand_argument_vars before the module runs.
func shellSpec() *argspec.Spec {
	s := commandSpec
	s.Options = nil
	for _, o := range commandSpec.Options {
		if o.Name != "expand_argument_vars" {
			s.Options = append(s.Options, o)
		}
	}
	return &s
}
