// Package uri implements ansible.builtin's uri and slurp modules natively.
package uri

import "github.com/cfzt/cfzt-runner/modules"

// Modules returns the HTTP and file modules by short name.
func Modules() map[string]modules.Module {
	return map[string]modules.Module{}
}
