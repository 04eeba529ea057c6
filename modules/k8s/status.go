package k8s

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// statusSpec is operator_sdk.util.k8s_status's argument_spec; conditions
// are checked by validateConditions.
var statusSpec = &argspec.Spec{Options: concat(authOptions(), []opt{
	{Name: "kind", Type: argspec.Str},
	{Name: "name", Type: argspec.Str},
	{Name: "namespace", Type: argspec.Str},
	{Name: "api_version", Type: argspec.Str, Default: "v1", Aliases: []string{"api", "version"}},
	{Name: "status", Type: argspec.Dict},
	{Name: "conditions", Type: argspec.Raw},
	{Name: "force", Type: argspec.Bool, Default: false},
	{Name: "replace_lists", Type: argspec.Bool, Default: false},
})}

// now is the clock for lastTransitionTime; tests replace it.
var now = func() time.Time { return time.Now().UTC() }

var (
	camelCase = regexp.MustCompile(`^(?:[A-Z]*[a-z]*)+$`)
	rfc3339   = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?(\.\d+)?(([+-]\d\d:\d\d)|Z)$`)
)

var conditionKeys = []string{"type", "status", "reason", "message", "lastHeartbeatTime", "lastTransitionTime"}

// validateConditions checks `conditions` as operator_sdk.util's
// condition_array does, turning boolean statuses into "True"/"False".
func validateConditions(v any) ([]any, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New("`conditions` must be a list of objects")
	}
	out := make([]any, 0, len(list))
	for _, item := range list {
		c, ok := item.(*value.Dict)
		if !ok {
			return nil, errors.New("`conditions` must be a list of objects")
		}
		c = c.Copy()
		if b, ok := field(c, "status").(bool); ok {
			c.Set("status", map[bool]string{true: "True", false: "False"}[b])
		}
		var bad error
		c.Each(func(k string, _ any) bool {
			for _, ok := range conditionKeys {
				if k == ok {
					return true
				}
			}
			bad = fmt.Errorf("%s is not a valid field for a condition, accepted fields are %s", k, value.Repr(toAnyList(conditionKeys)))
			return false
		})
		if bad != nil {
			return nil, bad
		}
		for _, k := range []string{"type", "status"} {
			if !truthy(field(c, k)) {
				return nil, fmt.Errorf("Condition `%s` must be set", k)
			}
		}
		switch st := value.Str(field(c, "status")); st {
		case "True", "False", "Unknown":
		default:
			return nil, fmt.Errorf(`Condition `+"`status`"+` must be one of ["True", "False", "Unknown"], not %s`, st)
		}
		if r := field(c, "reason"); truthy(r) && !camelCase.MatchString(value.Str(r)) {
			return nil, errors.New("Condition `reason` must be a single, CamelCase word")
		}
		for _, k := range []string{"lastHeartbeatTime", "lastTransitionTime"} {
			if t := field(c, k); truthy(t) && !rfc3339.MatchString(value.Str(t)) {
				return nil, fmt.Errorf("`%s` must be a RFC3339 compliant datetime string", k)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

func toAnyList(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

// runStatus is operator_sdk.util's k8s_status: it merges `status` and
// `conditions` into an object's status through the /status subresource.
func runStatus(req *module.Request) (*value.Dict, error) {
	p, msg := validate("operator_sdk.util.k8s_status", statusSpec, req.Args)
	if msg != "" {
		return module.FailedResult(errors.New(msg)), nil
	}
	status := value.NewDict(0)
	if d := p.dict("status"); d != nil {
		status = value.DeepCopy(d).(*value.Dict)
	}
	var conditions []any
	if raw := p["conditions"]; raw != nil {
		var err error
		if conditions, err = validateConditions(raw); err != nil {
			return module.FailedResult(fmt.Errorf("argument 'conditions' is of type %s and we were unable to convert to condition_array: %s", value.TypeName(raw), err)), nil
		}
	}
	if len(conditions) > 0 && truthy(field(status, "conditions")) {
		return module.FailedResult(errors.New("You cannot specify conditions in both the `status` and `conditions` parameters")), nil
	}
	if len(conditions) > 0 {
		status.Set("conditions", conditions)
	}
	c, err := ClientsFor(req.Host.Shared(), req.Getenv, req.Args)
	if err != nil {
		return module.FailedResult(err), nil
	}
	ctx := req.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	st := &statusWriter{ctx: ctx, c: c, check: req.Check, replaceLists: p.bool("replace_lists")}
	res, err := st.run(p, status)
	if err != nil {
		return module.FailedResult(err), nil
	}
	return res, nil
}

type statusWriter struct {
	ctx          context.Context
	c            *Clients
	check        bool
	replaceLists bool
}

func (w *statusWriter) query() url.Values {
	if w.check {
		return url.Values{"dryRun": {"All"}}
	}
	return nil
}

func (w *statusWriter) run(p params, status *value.Dict) (*value.Dict, error) {
	kind, apiVersion := p.str("kind"), p.str("api_version")
	res, err := w.c.findResource(kind, apiVersion)
	if err != nil {
		return nil, failWith("Failed to find exact match for "+apiVersion+"."+kind+" by [kind, name, singularName, shortNames]", err)
	}
	if res == nil {
		return nil, failf("Failed to find exact match for %s.%s by [kind, name, singularName, shortNames]", apiVersion, kind)
	}
	if !res.Subresources["status"] {
		version := res.GroupVersion[strings.LastIndex(res.GroupVersion, "/")+1:]
		return nil, failf("Resource %s.%s does not support the status subresource", version, res.Kind)
	}
	name, namespace := p.str("name"), p.str("namespace")
	if !res.Namespaced {
		namespace = ""
	}
	resp, err := w.c.do(w.ctx, request{verb: "GET", path: res.path(name, namespace)})
	if err != nil {
		return nil, failWith("Failed to retrieve requested object", asPyException(err))
	}
	instance, ok := resp.obj.(*value.Dict)
	if !ok {
		return nil, failf("Failed to retrieve requested object: unexpected response")
	}
	old, _ := field(instance, "status").(*value.Dict)
	if old == nil {
		old = value.NewDict(0)
		instance.Set("status", old)
	}
	path := res.path(name, namespace) + "/status"
	if p.bool("force") {
		if value.Equal(old, status) {
			return value.DictOf("result", instance, "changed", false), nil
		}
		instance.Set("status", status)
		resp, err := w.c.do(w.ctx, request{verb: "PUT", path: path, query: w.query(), body: instance})
		if err != nil {
			return nil, failWith("Failed to replace status", asPyException(err))
		}
		return value.DictOf("result", resp.obj, "changed", true), nil
	}
	if w.contains(withoutTransitionTimes(old), status) {
		return value.DictOf("result", instance, "changed", false), nil
	}
	patch := value.DictOf("metadata", value.DictOf("resourceVersion", field(instance, "metadata", "resourceVersion")),
		"status", mergeStatus(old, status))
	resp, err = w.c.do(w.ctx, request{verb: "PATCH", path: path, query: w.query(),
		contentType: "application/merge-patch+json", body: patch})
	if err != nil {
		return nil, failWith("Failed to replace status", asPyException(err))
	}
	return value.DictOf("result", resp.obj, "changed", true), nil
}

// asPyException renders API errors as the Python client's exception text.
func asPyException(err error) error {
	var ae *apiError
	if errors.As(err, &ae) && ae.code != 0 {
		return &pyErr{msg: strings.TrimSuffix(pyException(err), "\n"), api: ae}
	}
	return err
}

type pyErr struct {
	msg string
	api *apiError
}

func (e *pyErr) Error() string { return e.msg }

// Unwrap keeps the API error reachable for its reason.
func (e *pyErr) Unwrap() error { return e.api }

// withoutTransitionTimes copies a status, dropping lastTransitionTime from
// its conditions, so that a condition given without one compares equal.
func withoutTransitionTimes(status *value.Dict) *value.Dict {
	out := value.DeepCopy(status).(*value.Dict)
	conds, _ := field(out, "conditions").([]any)
	for _, c := range conds {
		if d, ok := c.(*value.Dict); ok {
			d.Delete("lastTransitionTime")
		}
	}
	return out
}

// contains tells whether obj already holds everything in subset: dicts
// recursively; lists contain the given items (or, with replace_lists,
// equal them, except conditions, which always merge by type); other
// values are equal.
func (w *statusWriter) contains(obj *value.Dict, subset *value.Dict) bool {
	ok := true
	subset.Each(func(k string, want any) bool {
		have, _ := obj.Get(k)
		switch h := have.(type) {
		case *value.Dict:
			wd, isDict := want.(*value.Dict)
			ok = isDict && w.contains(h, wd)
		case []any:
			wl, isList := want.([]any)
			if !isList {
				ok = false
			} else if w.replaceLists && k != "conditions" {
				ok = value.Equal(h, wl)
			} else {
				for _, item := range wl {
					if !listHas(h, item) {
						ok = false
						break
					}
				}
			}
		default:
			ok = value.Equal(have, want)
		}
		return ok
	})
	return ok
}

func listHas(l []any, item any) bool {
	for _, x := range l {
		if value.Equal(x, item) {
			return true
		}
	}
	return false
}

// mergeStatus merges new conditions into the old ones by type. A condition
// given without lastTransitionTime keeps the old one while its status is
// unchanged and gets the current time when its status changes or it is new.
func mergeStatus(old, status *value.Dict) *value.Dict {
	out := value.DeepCopy(status).(*value.Dict)
	newConds, _ := field(out, "conditions").([]any)
	if len(newConds) == 0 {
		return out
	}
	oldConds, _ := field(old, "conditions").([]any)
	merged := value.DeepCopy(oldConds).([]any)
	if merged == nil {
		merged = []any{}
	}
	stamp := now().Format("2006-01-02T15:04:05Z")
	for _, nc := range newConds {
		c := nc.(*value.Dict)
		idx := -1
		for i, oc := range merged {
			if value.Equal(field(oc, "type"), field(c, "type")) {
				idx = i
				break
			}
		}
		if !c.Has("lastTransitionTime") {
			if idx >= 0 && value.Equal(field(merged[idx], "status"), field(c, "status")) && field(merged[idx], "lastTransitionTime") != nil {
				c.Set("lastTransitionTime", field(merged[idx], "lastTransitionTime"))
			} else {
				c.Set("lastTransitionTime", stamp)
			}
		}
		if idx >= 0 {
			merged[idx] = c
		} else {
			merged = append(merged, c)
		}
	}
	out.Set("conditions", merged)
	return out
}
