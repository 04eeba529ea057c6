package k8s

import (
	"context"
	"errors"
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// taintSpec is kubernetes.core.k8s_taint's argument_spec: the auth
// options, then its own. taints has no suboptions: each taint is the
// dict as given.
var taintSpec = &argspec.Spec{Options: concat(authOptions(), []opt{
	{Name: "state", Type: argspec.Str, Default: "present", Choices: []any{"present", "absent"}},
	{Name: "name", Type: argspec.Str, Required: true},
	{Name: "taints", Type: argspec.List, Required: true, Elements: argspec.Dict},
	{Name: "replace", Type: argspec.Bool, Default: false},
})}

// runTaint is kubernetes.core.k8s_taint: it adds, updates or removes
// taints of a Node by a strategic merge patch of spec.taints, which
// replaces the whole list. The result is the patched Node as the Python
// client's to_dict() (pyToDict), empty after a removal or in check mode.
func runTaint(req *module.Request) (*value.Dict, error) {
	p, c, ctx, failed := connect(req, "kubernetes.core.k8s_taint", taintSpec, connectOpts{})
	if failed != nil {
		return failed, nil
	}
	return taint(ctx, c, p, req.Check), nil
}

// taintSame is kubernetes.core's equality of two taints: the same key,
// and the same effect when both name one.
func taintSame(a, b *value.Dict) (bool, error) {
	ak, okA := a.Get("key")
	bk, okB := b.Get("key")
	if !okA || !okB {
		// kubernetes.core indexes the dicts and dies with a KeyError.
		return false, errors.New("'key'")
	}
	if !value.Equal(ak, bk) {
		return false, nil
	}
	ae, okA := a.Get("effect")
	be, okB := b.Get("effect")
	if okA && okB {
		return value.Equal(ae, be), nil
	}
	return true, nil
}

// taintsMinus is the taints of a that match none of b.
func taintsMinus(a, b []*value.Dict) ([]*value.Dict, error) {
	var out []*value.Dict
	for _, x := range a {
		found := false
		for _, y := range b {
			same, err := taintSame(x, y)
			if err != nil {
				return nil, err
			}
			if same {
				found = true
				break
			}
		}
		if !found {
			out = append(out, x)
		}
	}
	return out, nil
}

// taintValueChanges reports whether a taint of a matches one of b with
// another value.
func taintValueChanges(a, b []*value.Dict) (bool, error) {
	for _, x := range a {
		for _, y := range b {
			same, err := taintSame(x, y)
			if err != nil {
				return false, err
			}
			if same && !value.Equal(x.Default("value", nil), y.Default("value", nil)) {
				return true, nil
			}
		}
	}
	return false, nil
}

func taintDicts(l any) []*value.Dict {
	items, _ := l.([]any)
	out := make([]*value.Dict, 0, len(items))
	for _, it := range items {
		if d, ok := it.(*value.Dict); ok {
			out = append(out, d)
		}
	}
	return out
}

func taintList(parts ...[]*value.Dict) []any {
	out := []any{}
	for _, p := range parts {
		for _, d := range p {
			out = append(out, d)
		}
	}
	return out
}

func taint(ctx context.Context, c *Clients, p params, check bool) *value.Dict {
	name := p.str("name")
	wanted := taintDicts(p["taints"])
	res, err := c.findResource("Node", "v1")
	if err != nil || res == nil {
		return module.FailedResult(failf("Failed to retrieve node '%s' due to: %v", name, err))
	}
	path := res.path(name, "")
	got, err := c.do(ctx, request{verb: "GET", path: path})
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.code != 0 {
			if ae.Reason() == "Not Found" {
				return module.FailedResult(failf("Node '%s' has not been found.", name))
			}
			return module.FailedResult(module.FailDict(value.DictOf("status", ae.code), fmt.Sprintf("Failed to retrieve node '%s' due to: %s", name, ae.Reason())))
		}
		return module.FailedResult(failf("Failed to retrieve node '%s' due to: %s", name, err))
	}
	node := pyToDict(got.obj, "Node").(*value.Dict)
	existing := taintDicts(field(node, "spec", "taints"))

	result := value.DictOf("result", value.NewDict(0))
	done := func(changed bool) *value.Dict {
		out := value.DictOf("changed", changed)
		result.Each(func(k string, v any) bool { out.Set(k, v); return true })
		return out
	}
	patch := func(taints []any) (*value.Dict, *value.Dict) {
		r, err := c.do(ctx, request{verb: "PATCH", path: path, contentType: "application/strategic-merge-patch+json",
			body: value.DictOf("spec", value.DictOf("taints", taints))})
		if err != nil {
			return nil, module.FailedResult(failf("Failed to patch node due to: %s", typedAPIException(err)))
		}
		return pyToDict(r.obj, "Node").(*value.Dict), nil
	}
	crash := func(err error) *value.Dict { return module.Crashed(errors.New("KeyError: " + err.Error())) }

	missing, err := taintsMinus(wanted, existing)
	if err != nil {
		return crash(err)
	}
	if p.str("state") == "present" {
		update := len(missing) > 0
		if !update {
			if update, err = taintValueChanges(existing, wanted); err != nil {
				return crash(err)
			}
			if !update {
				result.Set("result", node)
				return done(false)
			}
		}
		if check {
			return done(true)
		}
		var taints []any
		if len(missing) > 0 && p.bool("replace") {
			taints = taintList(wanted)
		} else {
			kept, err := taintsMinus(existing, wanted)
			if err != nil {
				return crash(err)
			}
			taints = taintList(kept, wanted)
		}
		patched, failed := patch(taints)
		if failed != nil {
			return failed
		}
		result.Set("result", patched)
		return done(true)
	}
	// absent
	if len(existing) == 0 {
		result.Set("result", node)
	}
	remove := len(missing) == 0
	if !remove {
		// Some of the taints are there: kubernetes.core removes them.
		kept, err := taintsMinus(existing, wanted)
		if err != nil {
			return crash(err)
		}
		remove = len(kept) < len(existing)
	}
	if !remove {
		return done(false)
	}
	if check {
		return done(true)
	}
	kept, err := taintsMinus(existing, wanted)
	if err != nil {
		return crash(err)
	}
	if _, failed := patch(taintList(kept)); failed != nil {
		return failed
	}
	return done(true)
}

// typedAPIException is the text of the Python client's ApiException from
// its typed API (CoreV1Api): status, reason and the response body as
// text. kubernetes.core's text also has the response headers between
// reason and body; they are not kept here (they carry a date and
// request ids).
func typedAPIException(err error) string {
	var ae *apiError
	if errors.As(err, &ae) && ae.code != 0 {
		s := fmt.Sprintf("(%d)\nReason: %s\n", ae.code, ae.Reason())
		if len(ae.body) > 0 {
			s += "HTTP response body: " + string(ae.body) + "\n"
		}
		return s
	}
	return err.Error()
}
