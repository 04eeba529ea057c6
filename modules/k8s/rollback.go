package k8s

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// rollbackSpec is kubernetes.core.k8s_rollback's argument_spec: the auth
// and name options, then the selectors.
var rollbackSpec = &argspec.Spec{Options: concat(authOptions(), nameOptions(), []opt{
	{Name: "label_selectors", Type: argspec.List, Elements: argspec.Str, Default: []any{}},
	{Name: "field_selectors", Type: argspec.List, Elements: argspec.Str, Default: []any{}},
})}

// runRollback is kubernetes.core.k8s_rollback: for each Deployment (or
// DaemonSet) found, the ReplicaSet (ControllerRevision) of the previous
// revision is looked up among those matching the object's
// spec.selector.matchLabels, and its pod template (revision data) is
// patched back into the object.
func runRollback(req *module.Request) (*value.Dict, error) {
	p, c, ctx, failed := connect(req, "kubernetes.core.k8s_rollback", rollbackSpec, connectOpts{})
	if failed != nil {
		return failed, nil
	}
	found, err := find(ctx, c, p)
	if err != nil {
		return module.FailedResult(err), nil
	}
	resources, _ := found.Default("resources", nil).([]any)
	results := []any{}
	changed := false
	for _, r := range resources {
		obj, _ := r.(*value.Dict)
		if obj == nil {
			continue
		}
		res, crash := rollbackOne(ctx, c, p, obj, req.Check)
		if crash != nil {
			return crash, nil
		}
		changed = changed || value.Truthy(res.Default("changed", false))
		results = append(results, res)
	}
	return value.DictOf("changed", changed, "rollback_info", results), nil
}

// keyError is the crash of kubernetes.core indexing a missing key.
func keyError(k string) *value.Dict {
	return module.Crashed(errors.New("KeyError: " + value.Repr(k)))
}

// pyIndex indexes nested dicts as Python's obj[k1][k2]... does.
func pyIndex(obj any, keys ...string) (any, *value.Dict) {
	for _, k := range keys {
		d, ok := obj.(*value.Dict)
		if !ok {
			return nil, module.Crashed(fmt.Errorf("TypeError: 'NoneType' object is not subscriptable"))
		}
		v, ok := d.Get(k)
		if !ok {
			return nil, keyError(k)
		}
		obj = v
	}
	return obj, nil
}

func rollbackOne(ctx context.Context, c *Clients, p params, obj *value.Dict, check bool) (*value.Dict, *value.Dict) {
	kind := p.str("kind")
	var current any
	var crash *value.Dict
	switch kind {
	case "DaemonSet":
		current, crash = pyIndex(obj, "metadata", "generation")
	case "Deployment":
		current, crash = pyIndex(obj, "metadata", "annotations", "deployment.kubernetes.io/revision")
	default:
		return nil, module.FailedResult(failf("Cannot perform rollback on resource of kind %s", kind))
	}
	if crash != nil {
		return nil, crash
	}
	managedKind := "ReplicaSet"
	if kind == "DaemonSet" {
		managedKind = "ControllerRevision"
	}
	matchLabels, crash := pyIndex(obj, "spec", "selector", "matchLabels")
	if crash != nil {
		return nil, crash
	}
	// kubernetes.core passes the matchLabels dict where a list of
	// selectors goes; joining a dict joins its keys, so the selector is
	// "every key exists".
	var sel []any
	if d, ok := matchLabels.(*value.Dict); ok {
		for _, k := range d.Keys() {
			sel = append(sel, k)
		}
	}
	mp := params{"kind": managedKind, "api_version": "apps/v1", "name": "", "namespace": p["namespace"],
		"label_selectors": sel, "field_selectors": []any{}}
	managed, err := find(ctx, c, mp)
	if err != nil {
		return nil, module.FailedResult(err)
	}
	cur, err := pyInt(current)
	if err != nil {
		return nil, module.Crashed(err)
	}
	var prev *value.Dict
	items, _ := managed.Default("resources", nil).([]any)
	for _, it := range items {
		m, _ := it.(*value.Dict)
		annotation := "deployment.kubernetes.io/revision"
		switch value.Str(field(m, "kind")) {
		case "ReplicaSet":
		case "ControllerRevision":
			annotation = "deprecated.daemonset.template.generation"
		default:
			continue
		}
		rev, crash := pyIndex(m, "metadata", "annotations", annotation)
		if crash != nil {
			return nil, crash
		}
		n, err := pyInt(rev)
		if err != nil {
			return nil, module.Crashed(err)
		}
		if n == cur-1 {
			prev = value.DeepCopy(m).(*value.Dict)
			break
		}
	}
	if prev == nil {
		return value.DictOf("changed", false, "warnings", []any{fmt.Sprintf("No rollout history found for resource %s/%s", kind, value.Str(field(obj, "metadata", "name")))}), nil
	}
	var patch any
	var contentType, target string
	if kind == "Deployment" {
		labels, crash := pyIndex(prev, "spec", "template", "metadata", "labels")
		if crash != nil {
			return nil, crash
		}
		ld, _ := labels.(*value.Dict)
		if ld == nil || !ld.Has("pod-template-hash") {
			return nil, keyError("pod-template-hash")
		}
		ld.Delete("pod-template-hash")
		rev, _ := pyIndex(prev, "metadata", "annotations", "deployment.kubernetes.io/revision")
		patch = []any{
			value.DictOf("op", "replace", "path", "/spec/template", "value", field(prev, "spec", "template")),
			value.DictOf("op", "replace", "path", "/metadata/annotations", "value", value.DictOf("deployment.kubernetes.io/revision", rev)),
		}
		contentType, target = "application/json-patch+json", "deployments"
	} else {
		data, crash := pyIndex(prev, "data")
		if crash != nil {
			return nil, crash
		}
		patch = data
		contentType, target = "application/strategic-merge-patch+json", "daemonsets"
	}
	var rolled any = obj
	if !check {
		// kubernetes.core patches the task's name and namespace (not the
		// found object's), with "None" for an unset one. Each is escaped
		// as one path segment here.
		name, ns := p.str("name"), p.str("namespace")
		if name == "" {
			name = "None"
		}
		if ns == "" {
			ns = "None"
		}
		path := "/apis/" + p.str("api_version") + "/namespaces/" + escapeSegment(ns) + "/" + target + "/" + escapeSegment(name)
		r, err := c.do(ctx, request{verb: "PATCH", path: path, contentType: contentType, body: patch})
		if err != nil {
			// kubernetes.core does not catch the client's ApiException.
			return nil, module.Crashed(errors.New(pyException(err)))
		}
		rolled = r.obj
	}
	return value.DictOf("changed", true, "method", "patch", "body", patch, "resources", rolled), nil
}

// escapeSegment escapes s as one URL path segment, "." and ".." included.
func escapeSegment(s string) string {
	return strings.ReplaceAll(url.PathEscape(s), ".", "%2E")
}

// pyInt is Python's int() of a revision: an int, or a string of one.
func pyInt(v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			return 0, fmt.Errorf("ValueError: invalid literal for int() with base 10: %s", value.Repr(x))
		}
		return n, nil
	}
	return 0, fmt.Errorf("TypeError: int() argument must be a string, a bytes-like object or a real number, not '%s'", value.TypeName(v))
}
