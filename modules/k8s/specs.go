package k8s

import "github.com/cfzt/cfzt-runner/engine/module/argspec"

// Specs returns the argument specs this package's modules validate with,
// by fully qualified name, for `cfzt-runner doc`. A module absent here
// checks its arguments in its own code.
func Specs() map[string]*argspec.Spec {
	return map[string]*argspec.Spec{
		"kubernetes.core.k8s":              k8sSpec,
		"kubernetes.core.k8s_info":         infoSpec,
		"kubernetes.core.k8s_cluster_info": clusterInfoSpec,
		"kubernetes.core.k8s_json_patch":   jsonPatchSpec,
		"kubernetes.core.k8s_scale":        scaleSpec,
		"kubernetes.core.k8s_taint":        taintSpec,
		"kubernetes.core.k8s_drain":        drainSpec,
		"kubernetes.core.k8s_rollback":     rollbackSpec,
		"kubernetes.core.k8s_service":      serviceSpec,
		"operator_sdk.util.k8s_status":     statusSpec,
	}
}
