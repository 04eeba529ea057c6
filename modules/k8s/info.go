package k8s

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// infoSpec is kubernetes.core.k8s_info's argument_spec, in its order.
var infoSpec = &argspec.Spec{Options: concat(authOptions(), waitOptions(), []opt{
	{Name: "kind", Required: true},
	{Name: "api_version", Default: "v1", Aliases: []string{"api", "version"}},
	{Name: "name"},
	{Name: "namespace"},
	{Name: "label_selectors", Type: argspec.List, Elements: argspec.Str, Default: []any{}},
	{Name: "field_selectors", Type: argspec.List, Elements: argspec.Str, Default: []any{}},
	{Name: "hidden_fields", Type: argspec.List, Elements: argspec.Str},
})}

func runInfo(req *module.Request) (*value.Dict, error) {
	p, c, ctx, failed := connect(req, "kubernetes.core.k8s_info", infoSpec, connectOpts{})
	if failed != nil {
		return failed, nil
	}
	res, err := find(ctx, c, p)
	if err != nil {
		return module.FailedResult(err), nil
	}
	out := value.DictOf("changed", false)
	res.Each(func(k string, v any) bool { out.Set(k, v); return true })
	return out, nil
}

// find is kubernetes.core's K8sService.find: the objects of kind that match
// name, namespace and selectors, optionally waiting for them.
func find(ctx context.Context, c *Clients, p params) (*value.Dict, error) {
	kind, apiVersion := p.str("kind"), p.str("api_version")
	res, err := c.findResource(kind, apiVersion)
	if err != nil {
		return nil, fmt.Errorf("Failed to find API for resource with apiVersion %q and kind %q: %s", apiVersion, kind, err)
	}
	if res == nil {
		return value.DictOf("resources", []any{},
			"msg", fmt.Sprintf("Failed to find API for resource with apiVersion \"%s\" and kind \"%s\"", apiVersion, kind),
			"api_found", false), nil
	}
	result := value.DictOf("resources", []any{}, "api_found", true)
	wait := p.bool("wait")
	timeout := p.int("wait_timeout")
	if !wait {
		timeout = 0
	}
	q := query{name: p.str("name"), namespace: p.str("namespace"), labelSel: p.strs("label_selectors"), fieldSel: p.strs("field_selectors")}
	_, obj, _, err := c.wait(ctx, res, q, exists, timeout, p.int("wait_sleep"))
	if err != nil {
		if errCode(err) == 400 {
			return result, nil
		}
		if strings.HasPrefix(err.Error(), "Exception '") {
			return nil, err
		}
		return nil, fmt.Errorf("Exception '%s' raised while trying to get resource using (name=%s, namespace=%s, label_selectors=%s, field_selectors=%s)",
			pyException(err), noneIfEmpty(q.name), noneIfEmpty(q.namespace), reprStrings(q.labelSel), reprStrings(q.fieldSel))
	}
	if !exists(obj) {
		return result, nil
	}
	d := obj.(*value.Dict)
	fillListItems(d)
	var instances []any
	if items, ok := field(d, "items").([]any); ok && len(items) > 0 {
		instances = items
	} else {
		instances = []any{d}
	}
	hidden := p.strs("hidden_fields")
	if !wait {
		out := make([]any, len(instances))
		for i, in := range instances {
			out[i] = hideFields(in, hidden)
		}
		result.Set("resources", out)
		return result, nil
	}
	pred := waiterFor(res.Kind, "present", p.dict("wait_condition"))
	var out []any
	for _, in := range instances {
		iq := query{name: value.Str(field(in, "metadata", "name")), namespace: strOr(field(in, "metadata", "namespace"), "")}
		ok, got, duration, err := c.wait(ctx, res, iq, pred, timeout, p.int("wait_sleep"))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("Failed to gather information about %s(s) even after waiting for %d seconds", value.Str(field(got, "kind")), duration)
		}
		out = append(out, hideFields(got, hidden))
	}
	result.Set("resources", out)
	return result, nil
}

// pyException renders an API error as the Python client's ApiException.
func pyException(err error) string {
	var ae *apiError
	if errors.As(err, &ae) && ae.code != 0 {
		s := fmt.Sprintf("(%d)\nReason: %s\n", ae.code, ae.Reason())
		if len(ae.body) > 0 {
			s += "HTTP response body: " + py.BytesRepr(ae.body) + "\n"
		}
		return s
	}
	return err.Error()
}

// reprStrings is the repr of a Python list of the strings l.
func reprStrings(l []string) string {
	items := make([]any, len(l))
	for i, s := range l {
		items[i] = s
	}
	return value.Repr(items)
}
