package k8s

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// scaleSpec is kubernetes.core.k8s_scale's argument_spec, in its order.
var scaleSpec = &argspec.Spec{
	Options: concat([]opt{
		{Name: "replicas", Type: argspec.Int, Required: true},
		{Name: "current_replicas", Type: argspec.Int},
		{Name: "resource_version"},
		{Name: "wait", Type: argspec.Bool, Default: true},
		{Name: "wait_timeout", Type: argspec.Int, Default: 20},
		{Name: "wait_sleep", Type: argspec.Int, Default: 5},
		{Name: "resource_definition", Type: "list_dict_str", Check: listDictStr, Aliases: []string{"definition", "inline"}},
		{Name: "src", Type: argspec.Path},
	}, nameOptions(), authOptions(), []opt{
		{Name: "label_selectors", Type: argspec.List, Elements: argspec.Str, Default: []any{}},
		{Name: "continue_on_error", Type: argspec.Bool, Default: false},
	}),
	Rules: argspec.Rules{MutuallyExclusive: [][]string{{"resource_definition", "src"}}},
}

// scaleFailure is a failure of k8s_scale; extra keys go with it.
func scaleFailure(msg string, extra *value.Dict) *value.Dict {
	return module.FailedResult(module.FailDict(extra, msg))
}

// runScale is kubernetes.core.k8s_scale: it sets spec.replicas of the
// selected objects through their scale subresource (a Job's
// spec.parallelism through a patch of the Job), then optionally waits
// for them to be ready.
func runScale(req *module.Request) (*value.Dict, error) {
	p, c, _, failed := connect(req, "kubernetes.core.k8s_scale", scaleSpec, connectOpts{src: true})
	if failed != nil {
		return failed, nil
	}
	svc := newService(req, c, p)
	defs, err := svc.definitions(req)
	if err != nil {
		return module.FailedResult(err), nil
	}
	if len(defs) == 0 {
		return module.FailedResult(errors.New("list index out of range")), nil
	}
	return svc.scale(defs[0]), nil
}

func (s *service) scale(def *value.Dict) *value.Dict {
	name := strOr(field(def, "metadata", "name"), "")
	namespace := strOr(field(def, "metadata", "namespace"), "")
	kind := strOr(field(def, "kind"), "")
	apiVersion := strOr(field(def, "apiVersion"), "")
	selectors := s.p.strs("label_selectors")
	wait := s.p.bool("wait")
	replicas := s.p.int("replicas")

	ret := value.DictOf("result", value.NewDict(0))
	if s.diff {
		ret.Set("diff", value.NewDict(0))
	}
	if wait {
		ret.Set("duration", 0)
	}
	res, err := s.c.findResource(kind, apiVersion)
	if err != nil {
		return module.FailedResult(failWith("Failed to find exact match for "+apiVersion+"."+kind+" by [kind, name, singularName, shortNames]", err))
	}
	if res == nil {
		return resourceNotFound(kind, apiVersion)
	}
	q := query{name: name, namespace: namespace, labelSel: selectors}
	resp, err := s.c.do(s.ctx, request{verb: "GET", path: res.path(name, namespace), query: q.values()})
	if err != nil {
		if errCode(err) == 404 {
			return module.FailedResult(failf("Failed to retrieve requested object: %s", err))
		}
		return module.FailedResult(failf("%s", pyException(err)))
	}
	existing, _ := resp.obj.(*value.Dict)
	if existing == nil {
		existing = value.NewDict(0)
	}
	items := []any{existing}
	multiple := false
	if strings.HasSuffix(value.Str(field(existing, "kind")), "List") {
		fillListItems(existing)
		items, _ = field(existing, "items").([]any)
		multiple = len(items) > 1
	}
	if multiple {
		ret = value.DictOf("results", []any{})
	}
	changed := false
	addResult := func(r *value.Dict) {
		l, _ := ret.Default("results", nil).([]any)
		ret.Set("results", append(l, r))
	}
	for _, it := range items {
		obj, _ := it.(*value.Dict)
		if obj == nil {
			continue
		}
		objKind := value.Str(field(obj, "kind"))
		objName := value.Str(field(obj, "metadata", "name"))
		objNS := strOr(field(obj, "metadata", "namespace"), "None")
		var count any
		if strings.EqualFold(kind, "job") {
			count = field(obj, "spec", "parallelism")
		} else if spec, ok := field(obj, "spec").(*value.Dict); ok {
			count, _ = spec.Get("replicas")
		}
		if count == nil {
			msg := fmt.Sprintf("Failed to retrieve the available count for object kind=%s name=%s namespace=%s.", objKind, objName, objNS)
			if multiple && s.p.bool("continue_on_error") {
				l, _ := ret.Default("errors", nil).([]any)
				ret.Set("errors", append(l, value.DictOf("error", msg, "failed", true)))
				continue
			}
			return scaleFailure(msg, ret)
		}
		warn := ""
		if rv := s.p.str("resource_version"); rv != "" && rv != strOr(field(obj, "metadata", "resourceVersion"), "None") {
			warn = fmt.Sprintf("expected resource version %s does not match with actual %s for object kind=%s name=%s namespace=%s.",
				rv, strOr(field(obj, "metadata", "resourceVersion"), "None"), objKind, objName, objNS)
		} else if cur, set := s.p["current_replicas"].(int); set && !value.Equal(count, cur) {
			warn = fmt.Sprintf("current replicas %d does not match with actual %s for object kind=%s name=%s namespace=%s.",
				cur, value.Str(count), objKind, objName, objNS)
		}
		// kubernetes.core 6.1 reports a mismatch as a `warning` key (not a
		// module warning): per object with several, else of the task.
		if warn != "" {
			if multiple {
				addResult(value.DictOf("warning", warn, "changed", false))
				continue
			}
			out := value.DictOf("warning", warn)
			ret.Each(func(k string, v any) bool { out.Set(k, v); return true })
			return out
		}
		var result *value.Dict
		if !value.Equal(count, replicas) {
			if strings.EqualFold(kind, "job") {
				result = value.DictOf("changed", true)
				patched := value.DeepCopy(obj).(*value.Dict)
				if spec, ok := field(patched, "spec").(*value.Dict); ok {
					spec.Set("parallelism", replicas)
				}
				if s.check {
					result.Set("result", patched)
				} else {
					r, err := s.c.do(s.ctx, request{verb: "PATCH", path: res.path(objName, strOr(field(obj, "metadata", "namespace"), "")),
						contentType: "application/strategic-merge-patch+json", body: patched})
					if err != nil {
						return module.FailedResult(failf("%s", pyException(err)))
					}
					result.Set("result", r.obj)
				}
			} else {
				var msg string
				result, msg = s.scaleOne(res, obj, replicas, wait)
				if msg != "" {
					return scaleFailure(msg, nil)
				}
				changed = changed || value.Truthy(result.Default("changed", false))
			}
		} else {
			ns := strOr(field(obj, "metadata", "namespace"), "")
			cur, err := s.c.do(s.ctx, request{verb: "GET", path: res.path(objName, ns)})
			if err != nil {
				return module.FailedResult(failf("%s", pyException(err)))
			}
			result = value.DictOf("changed", false, "result", cur.obj)
			if s.diff {
				result.Set("diff", value.NewDict(0))
			}
			if wait {
				result.Set("duration", 0)
			}
		}
		if !multiple {
			return result
		}
		addResult(result)
	}
	out := value.DictOf("changed", changed)
	ret.Each(func(k string, v any) bool { out.Set(k, v); return true })
	return out
}

// scaleOne is kubernetes.core's scale(): a strategic merge patch of the
// scale subresource (a local change in check mode), the object read back
// and, with wait, the kind's readiness awaited. A failure is a message.
func (s *service) scaleOne(res *apiResource, obj *value.Dict, replicas int, wait bool) (*value.Dict, string) {
	name := value.Str(field(obj, "metadata", "name"))
	nsv := field(obj, "metadata", "namespace")
	ns := strOr(nsv, "")
	if !res.Subresources["scale"] {
		return nil, "Cannot perform scale on resource of kind " + res.Kind
	}
	got, err := s.c.do(s.ctx, request{verb: "GET", path: res.path(name, ns)})
	if err != nil {
		return nil, pyException(err)
	}
	existing, _ := got.obj.(*value.Dict)
	if existing == nil {
		existing = value.NewDict(0)
	}
	result := value.NewDict(4)
	var after *value.Dict
	if s.check {
		after = value.DeepCopy(existing).(*value.Dict)
		spec, ok := field(after, "spec").(*value.Dict)
		if !ok {
			spec = value.NewDict(1)
			after.Set("spec", spec)
		}
		spec.Set("replicas", replicas)
		if wait {
			result.Set("duration", 0)
		}
		result.Set("result", after)
	} else {
		body := value.DictOf("kind", value.Str(field(obj, "kind")),
			"metadata", value.DictOf("name", name, "namespace", nsv),
			"spec", value.DictOf("replicas", replicas))
		if _, err := s.c.do(s.ctx, request{verb: "PATCH", path: res.path(name, ns) + "/scale",
			contentType: "application/strategic-merge-patch+json", body: body}); err != nil {
			return nil, "Scale request failed: " + err.Error()
		}
		got, err := s.c.do(s.ctx, request{verb: "GET", path: res.path(name, ns)})
		if err != nil {
			return nil, pyException(err)
		}
		after, _ = got.obj.(*value.Dict)
		if after == nil {
			after = value.NewDict(0)
		}
		result.Set("result", after)
		if wait {
			pred := waiterFor(res.Kind, "present", nil)
			ok, waited, duration, err := s.c.wait(s.ctx, res, query{name: name, namespace: ns}, pred, s.p.int("wait_timeout"), s.p.int("wait_sleep"))
			if err != nil {
				return nil, err.Error()
			}
			if !ok {
				return nil, "Resource scaling timed out"
			}
			if d, isDict := waited.(*value.Dict); isDict {
				after = d
			}
			result.Set("result", after)
			result.Set("duration", duration)
		}
	}
	match, diffs := diffObjects(existing, after, nil)
	result.Set("changed", !match)
	if s.diff {
		result.Set("diff", diffs)
	}
	return result, ""
}
