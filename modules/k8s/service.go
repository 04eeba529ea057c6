package k8s

import (
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// serviceSpec is kubernetes.core.k8s_service's argument_spec, in its
// order: the auth options, state and force, resource_definition and src,
// then the Service's own.
var serviceSpec = &argspec.Spec{
	Options: concat(authOptions(), []opt{
		{Name: "state", Default: "present", Choices: []any{"present", "absent"}},
		{Name: "force", Type: argspec.Bool, Default: false},
		{Name: "resource_definition", Type: "list_dict_str", Check: listDictStr, Aliases: []string{"definition", "inline"}},
		{Name: "src", Type: argspec.Path},
		{Name: "apply", Type: argspec.Bool, Default: false},
		{Name: "name", Required: true},
		{Name: "namespace", Required: true},
		{Name: "merge_type", Type: argspec.List, Elements: argspec.Str, Choices: []any{"json", "merge", "strategic-merge"}},
		{Name: "selector", Type: argspec.Dict},
		{Name: "type", Type: argspec.Str, Choices: []any{"NodePort", "ClusterIP", "LoadBalancer", "ExternalName"}},
		{Name: "ports", Type: argspec.List, Elements: argspec.Dict},
	}),
}

// runService is kubernetes.core.k8s_service: a Service built from
// name, namespace, type, ports and selector, over the first document of
// resource_definition or src, which the module's parameters override
// where they are set; then the k8s module's perform_action.
func runService(req *module.Request) (*value.Dict, error) {
	if err := templateOnlyForK8s(req); err != nil {
		return nil, err
	}
	p, c, _, failed := connect(req, "kubernetes.core.k8s_service", serviceSpec, connectOpts{src: true})
	if failed != nil {
		return failed, nil
	}
	svc := newService(req, c, p)
	defs, err := svc.definitions(req)
	if err != nil {
		return definitionsFailed(err)
	}
	own := value.DictOf(
		"kind", "Service",
		"apiVersion", "v1",
		"spec", value.DictOf("type", p["type"], "ports", p["ports"], "selector", p["selector"]),
		"metadata", value.DictOf("name", p["name"], "namespace", p["namespace"]),
	)
	var base *value.Dict
	if len(defs) > 0 {
		base = defs[0]
	} else {
		base = value.NewDict(0)
	}
	res, err := svc.perform(mergeServiceDicts(base, own))
	if err != nil {
		return module.FailedResult(err), nil
	}
	return svc.exit(res), nil
}

// mergeServiceDicts is k8s_service's merge_dicts: a key in both takes
// y's value unless it is falsy (mappings in both are merged the same
// way), so that a parameter left unset keeps the definition's value; a
// key only in y is kept even when it is None (sent as null).
func mergeServiceDicts(x, y *value.Dict) *value.Dict {
	out := value.NewDict(x.Len() + y.Len())
	for _, k := range x.Keys() {
		xv, _ := x.Get(k)
		yv, inY := y.Get(k)
		switch {
		case !inY:
			out.Set(k, xv)
		default:
			xd, xok := xv.(*value.Dict)
			yd, yok := yv.(*value.Dict)
			switch {
			case xok && yok:
				out.Set(k, mergeServiceDicts(xd, yd))
			case value.Truthy(yv):
				out.Set(k, yv)
			default:
				out.Set(k, xv)
			}
		}
	}
	for _, k := range y.Keys() {
		if !x.Has(k) {
			yv, _ := y.Get(k)
			out.Set(k, yv)
		}
	}
	return out
}

// templateOnlyForK8s is the refusal of kubernetes.core's action plugin
// (shared by its modules) when a module other than k8s is given a
// template.
func templateOnlyForK8s(req *module.Request) error {
	if t, ok := req.Args.Get("template"); ok && value.Truthy(t) {
		return module.ActionFail("'template' is only a supported parameter for the 'k8s' module.", nil)
	}
	return nil
}
