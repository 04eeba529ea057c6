package sdk

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Parameters are the extra variables a reconcile of obj runs with,
// exactly as ansible-operator passes them to ansible-runner:
//   - every spec field as a top-level variable, its keys snake_cased
//     (recursively) unless snakeCaseParameters is false;
//   - ansible_operator_meta: {name, namespace};
//   - _<group>_<kind> (dots and dashes made underscores, kind lower-cased):
//     the whole object as read, and _<group>_<kind>_spec: its spec;
//   - the watch's vars, then on deletion the finalizer's vars, on top.
//
// With markUnsafe every string of the spec variables and of the raw
// object is marked unsafe (never templated). A missing spec is an empty
// one.
func (w *Watch) Parameters(obj *unstructured.Unstructured, finalizing bool) *value.Dict {
	spec, ok := value.FromGo(obj.Object["spec"]).(*value.Dict)
	if !ok {
		spec = value.NewDict(0)
	}
	params := value.NewDict(spec.Len() + 8)
	fields := any(spec)
	if w.SnakeCaseParameters {
		fields = snakeKeys(spec)
	}
	fields.(*value.Dict).Each(func(k string, v any) bool {
		if w.MarkUnsafe {
			v = markUnsafe(v)
		}
		params.Set(k, v)
		return true
	})
	params.Set("ansible_operator_meta", value.DictOf("name", obj.GetName(), "namespace", obj.GetNamespace()))
	key := ObjectVar(w.GVK.Group, w.GVK.Kind)
	raw, rawSpec := value.FromGo(obj.Object), any(spec)
	if w.MarkUnsafe {
		raw, rawSpec = markUnsafe(raw), markUnsafe(spec)
	}
	params.Set(key, raw)
	params.Set(key+"_spec", rawSpec)
	if w.Vars != nil {
		params.Update(w.Vars)
	}
	if finalizing && w.Finalizer != nil && w.Finalizer.Vars != nil {
		params.Update(w.Finalizer.Vars)
	}
	return params
}

// ObjectVar is the variable holding the raw object: "_<group>_<kind>" with
// the kind lower-cased and dots and dashes replaced by underscores
// ("_cache_example_com_memcached").
func ObjectVar(group, kind string) string {
	return strings.NewReplacer(".", "_", "-", "_").Replace("_" + group + "_" + strings.ToLower(kind))
}

// markUnsafe marks every string in v as unsafe, recursively.
func markUnsafe(v any) any {
	switch x := v.(type) {
	case string:
		return value.Unsafe(x)
	case *value.Dict:
		out := value.NewDict(x.Len())
		x.Each(func(k string, e any) bool { out.Set(k, markUnsafe(e)); return true })
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = markUnsafe(e)
		}
		return out
	}
	return v
}
