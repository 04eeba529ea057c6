package k8s

import (
	"context"
	"errors"
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// jsonPatchSpec is kubernetes.core.k8s_json_patch's argument_spec: the
// auth and wait options, then its own, in that order.
var jsonPatchSpec = &argspec.Spec{Options: concat(authOptions(), waitOptions(), []opt{
	{Name: "api_version", Default: "v1", Aliases: []string{"api", "version"}},
	{Name: "kind", Type: argspec.Str, Required: true},
	{Name: "namespace", Type: argspec.Str},
	{Name: "name", Type: argspec.Str, Required: true},
	{Name: "patch", Type: argspec.List, Required: true, Elements: argspec.Dict},
	{Name: "hidden_fields", Type: argspec.List, Elements: argspec.Str, Default: []any{}},
})}

// runJSONPatch is kubernetes.core.k8s_json_patch: it sends the RFC 6902
// patch as application/json-patch+json to one existing object. The
// apiserver applies it, so a bad patch (an unknown op, a missing path, a
// failing test op) is refused by the server and nothing is changed.
//
// In check mode the patch is sent with dryRun=All, as kubernetes.core does
// with any kubernetes client that supports server-side dry run (the
// reference installation's does); the local jsonpatch path it keeps for
// older clients is never taken there.
func runJSONPatch(req *module.Request) (*value.Dict, error) {
	p, c, ctx, failed := connect(req, "kubernetes.core.k8s_json_patch", jsonPatchSpec, connectOpts{})
	if failed != nil {
		return failed, nil
	}
	return jsonPatch(ctx, c, p, req.Check, req.Diff), nil
}

// statusFailure is a failed result with kubernetes.core's error, status
// and reason keys of a failed API call.
func statusFailure(msg string, err error) *value.Dict {
	res := value.DictOf("error", "", "status", "", "reason", "")
	var ae *apiError
	if errors.As(err, &ae) && ae.code != 0 {
		res.Set("error", ae.code)
		res.Set("status", ae.code)
		res.Set("reason", ae.Reason())
	}
	res.Set("failed", true)
	res.Set("msg", msg)
	res.Set("changed", false)
	return res
}

func jsonPatch(ctx context.Context, c *Clients, p params, check, diff bool) *value.Dict {
	kind, apiVersion := p.str("kind"), p.str("api_version")
	name, namespace := p.str("name"), p.str("namespace")
	hidden := p.strs("hidden_fields")
	res, err := c.findResource(kind, apiVersion)
	if err != nil {
		return module.FailedResult(failWith("Failed to find exact match for "+apiVersion+"."+kind+" by [kind, name, singularName, shortNames]", err))
	}
	if res == nil {
		return resourceNotFound(kind, apiVersion)
	}
	path := res.path(name, namespace)
	got, err := c.do(ctx, request{verb: "GET", path: path})
	if err != nil {
		return statusFailure(fmt.Sprintf("%s %s: Failed to retrieve requested object: %s", kind, name, err), err)
	}
	existing, _ := got.obj.(*value.Dict)
	if existing == nil {
		existing = value.NewDict(0)
	}
	q := map[string][]string{}
	if check {
		q["dryRun"] = []string{"All"}
	}
	patched, err := c.do(ctx, request{verb: "PATCH", path: path, query: q,
		contentType: "application/json-patch+json", body: p["patch"]})
	if err != nil {
		return statusFailure("Failed to patch existing object: "+err.Error(), err)
	}
	obj, _ := patched.obj.(*value.Dict)
	if obj == nil {
		obj = value.NewDict(0)
	}
	result := value.NewDict(4)
	result.Set("result", hideFields(obj, hidden))
	success := true
	if p.bool("wait") && !check {
		pred := waiterFor(res.Kind, "present", typedCondition(p.dict("wait_condition")))
		ok, waited, duration, err := c.wait(ctx, res, query{name: name, namespace: namespace}, pred, p.int("wait_timeout"), p.int("wait_sleep"))
		if err != nil {
			return module.FailedResult(module.Fail(err.Error()))
		}
		success = ok
		if waited == nil {
			waited = value.NewDict(0)
		}
		// The waiter's object replaces the result unhidden, as in
		// kubernetes.core.
		result.Set("result", waited)
		result.Set("duration", duration)
	}
	match, diffs := diffObjects(existing, obj, hidden)
	result.Set("changed", !match)
	if diff {
		result.Set("diff", diffs)
	}
	if !success {
		return module.FailedResult(module.FailDict(result, "Resource update timed out"))
	}
	return result
}

// resourceNotFound is the crash of k8s_json_patch and k8s_scale on a kind
// the API does not serve: they let the Python client's
// ResourceNotFoundError escape, whose text names the last lookup tried.
func resourceNotFound(kind, apiVersion string) *value.Dict {
	lookup := value.DictOf("prefix", nil, "api_version", apiVersion, "short_names", []any{kind})
	return module.Crashed(errors.New("No matches found for " + value.Repr(lookup)))
}
