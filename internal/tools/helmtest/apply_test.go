package helmtest

import (
	"context"
	"encoding/json"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

// applyObject server-side-applies obj as admin (field manager "helm-test"),
// with dryRun=All when dryRun is set. Namespaced objects without a
// namespace are an error, as in Helm (the caller sets the release's).
func applyObject(ctx context.Context, c *kubetest.Cluster, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error) {
	mapper, err := c.RESTMapper()
	if err != nil {
		return nil, err
	}
	gvk := obj.GroupVersionKind()
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		mapper.Reset()
		mapping, err = mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, err
	}
	dyn, err := c.Dynamic()
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, err
	}
	opts := metav1.PatchOptions{FieldManager: "helm-test", Force: ptr(true)}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	res := dyn.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		return res.Namespace(obj.GetNamespace()).Patch(ctx, obj.GetName(), types.ApplyPatchType, data, opts)
	}
	return res.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, opts)
}

// isNamespaced reports whether a kind the chart renders is namespaced.
func isNamespaced(kind string) bool {
	switch kind {
	case "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "Namespace":
		return false
	}
	return true
}

func ptr[T any](v T) *T { return &v }
