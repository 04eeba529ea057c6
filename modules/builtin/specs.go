package builtin

import "github.com/cfzt/cfzt-runner/engine/module/argspec"

// Specs returns the argument specs this package's modules validate with,
// by fully qualified name, for `cfzt-runner doc`. A module absent here
// checks its arguments in its own code.
func Specs() map[string]*argspec.Spec {
	return map[string]*argspec.Spec{
		"ansible.builtin.debug":        debugSpec,
		"ansible.builtin.assert":       assertSpec,
		"ansible.builtin.pause":        pauseSpec,
		"ansible.builtin.async_status": asyncStatusSpec,
	}
}
