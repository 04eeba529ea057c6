// Package k8s implements kubernetes.core's k8s, k8s_info,
// k8s_cluster_info, k8s_json_patch, k8s_scale, k8s_taint, k8s_drain and
// k8s_rollback (and the others in their own files: k8s_exec, k8s_log,
// k8s_cp, k8s_service) modules and operator_sdk.util's k8s_status natively over
// client-go, with kubernetes.core 6.1's argument names, defaults, result
// keys and failure messages.
package k8s

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Entries registers the Kubernetes modules.
func Entries() []module.Entry {
	// group is kubernetes.core's module_defaults group k8s; none of
	// these action plugins supports async.
	group, noAsync := []string{"kubernetes.core.k8s"}, module.NoAsync
	return []module.Entry{
		{FQCN: "kubernetes.core.k8s", Aliases: []string{"community.kubernetes.k8s"}, Flags: noAsync, Groups: group, Module: module.Func(runK8s)},
		{FQCN: "kubernetes.core.k8s_info", Aliases: []string{"community.kubernetes.k8s_info"}, Flags: noAsync | module.KubeRead, Groups: group, Module: module.Func(runInfo)},
		{FQCN: "kubernetes.core.k8s_cluster_info", Aliases: []string{"community.kubernetes.k8s_cluster_info"}, Flags: noAsync, Module: module.Func(runClusterInfo)},
		{FQCN: "kubernetes.core.k8s_json_patch", Aliases: []string{"community.kubernetes.k8s_json_patch"}, Flags: noAsync, Module: module.Func(runJSONPatch)},
		{FQCN: "kubernetes.core.k8s_scale", Aliases: []string{"community.kubernetes.k8s_scale"}, Flags: noAsync, Groups: group, Module: module.Func(runScale)},
		{FQCN: "kubernetes.core.k8s_taint", Aliases: []string{"community.kubernetes.k8s_taint"}, Module: module.Func(runTaint)},
		{FQCN: "kubernetes.core.k8s_drain", Aliases: []string{"community.kubernetes.k8s_drain"}, Flags: noAsync, Groups: group, Module: module.Func(runDrain)},
		{FQCN: "kubernetes.core.k8s_rollback", Aliases: []string{"community.kubernetes.k8s_rollback"}, Flags: noAsync, Module: module.Func(runRollback)},
		{FQCN: "kubernetes.core.k8s_exec", Aliases: []string{"community.kubernetes.k8s_exec"}, Flags: noAsync, Groups: group, Module: module.Func(runExec)},
		{FQCN: "kubernetes.core.k8s_log", Aliases: []string{"community.kubernetes.k8s_log"}, Flags: noAsync, Groups: group, Module: module.Func(runLog)},
		{FQCN: "kubernetes.core.k8s_cp", Aliases: []string{"community.kubernetes.k8s_cp"}, Flags: noAsync, Groups: group, Module: module.Func(runCp)},
		{FQCN: "kubernetes.core.k8s_service", Aliases: []string{"community.kubernetes.k8s_service"}, Flags: noAsync, Groups: group, Module: module.Func(runService)},
		{FQCN: "operator_sdk.util.k8s_status", Module: module.Func(runStatus)},
	}
}

// failf is module.Fail with a formatted message.
func failf(format string, a ...any) *module.Failure { return module.Fail(fmt.Sprintf(format, a...)) }

// failWith wraps an API error into kubernetes.core's "<what>: <body>",
// with the API's reason as the result's `reason`.
func failWith(what string, err error) *module.Failure {
	var ae *apiError
	if errors.As(err, &ae) && ae.Reason() != "" {
		return module.Fail(what+": "+err.Error(), "reason", ae.Reason())
	}
	return module.Fail(what + ": " + err.Error())
}

// listDictStr is kubernetes.core's list_dict_str type.
func listDictStr(v any) (any, error) {
	switch v.(type) {
	case []any, *value.Dict, string:
		return v, nil
	}
	return nil, errors.New("")
}

// k8sSpec is kubernetes.core.k8s's argument_spec, in its order.
var k8sSpec = &argspec.Spec{
	Options: concat(nameOptions(), []opt{
		{Name: "resource_definition", Type: "list_dict_str", Check: listDictStr, Aliases: []string{"definition", "inline"}},
		{Name: "src", Type: argspec.Path},
	}, authOptions(), waitOptions(), []opt{
		{Name: "merge_type", Type: argspec.List, Elements: argspec.Str, Choices: []any{"merge", "strategic-merge"}},
		{Name: "validate", Type: argspec.Dict, Options: []opt{
			{Name: "fail_on_error", Type: argspec.Bool},
			{Name: "version"},
			{Name: "strict", Type: argspec.Bool, Default: true},
		}},
		{Name: "append_hash", Type: argspec.Bool, Default: false},
		{Name: "apply", Type: argspec.Bool, Default: false},
		{Name: "template", Type: argspec.Raw},
		{Name: "delete_options", Type: argspec.Dict, Options: []opt{
			{Name: "propagationPolicy", Choices: []any{"Foreground", "Background", "Orphan"}},
			{Name: "gracePeriodSeconds", Type: argspec.Int},
			{Name: "preconditions", Type: argspec.Dict, Options: []opt{{Name: "resourceVersion", Type: argspec.Str}, {Name: "uid", Type: argspec.Str}}},
		}},
		{Name: "continue_on_error", Type: argspec.Bool, Default: false},
		{Name: "state", Default: "present", Choices: []any{"present", "absent", "patched"}},
		{Name: "force", Type: argspec.Bool, Default: false},
		{Name: "label_selectors", Type: argspec.List, Elements: argspec.Str},
		{Name: "generate_name"},
		{Name: "server_side_apply", Type: argspec.Dict, Options: []opt{
			{Name: "field_manager", Type: argspec.Str, Required: true},
			{Name: "force_conflicts", Type: argspec.Bool, Default: false},
		}},
		{Name: "delete_all", Type: argspec.Bool, Default: false, Aliases: []string{"all"}},
		{Name: "hidden_fields", Type: argspec.List, Elements: argspec.Str},
	}),
	Rules: argspec.Rules{MutuallyExclusive: [][]string{
		{"resource_definition", "src"},
		{"merge_type", "apply"},
		{"template", "resource_definition"},
		{"template", "src"},
		{"name", "generate_name"},
	}},
}

// service runs one k8s task's API calls.
type service struct {
	ctx    context.Context
	c      *Clients
	p      params
	check  bool
	diff   bool
	hidden []string
	// moduleWarnings are warnings given through AnsibleModule.warn rather
	// than in a result.
	moduleWarnings []string
	dryRun         url.Values
}

func newService(req *module.Request, c *Clients, p params) *service {
	s := &service{ctx: req.Ctx, c: c, p: p, check: req.Check, diff: req.Diff, hidden: p.strs("hidden_fields")}
	if s.ctx == nil {
		s.ctx = context.Background()
	}
	if req.Check {
		s.dryRun = url.Values{"dryRun": {"All"}}
	}
	return s
}

// query returns the dry-run parameter (in check mode) plus extra pairs.
func (s *service) query(kv ...string) url.Values {
	q := url.Values{}
	for k, v := range s.dryRun {
		q[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q
}

func runK8s(req *module.Request) (*value.Dict, error) {
	p, c, _, failed := connect(req, "kubernetes.core.k8s", k8sSpec, connectOpts{src: true})
	if failed != nil {
		return failed, nil
	}
	svc := newService(req, c, p)
	defs, err := svc.definitions(req)
	if err != nil {
		return definitionsFailed(err)
	}
	var results []*value.Dict
	changed := false
	for _, def := range defs {
		res, err := svc.perform(def)
		if err != nil {
			if !p.bool("continue_on_error") {
				return module.FailedResult(err), nil
			}
			res = value.DictOf("changed", false, "result", value.NewDict(0))
			errRes := module.FailedResult(err)
			errRes.Delete("failed")
			errRes.Delete("changed")
			res.Set("error", errRes)
		}
		if value.Truthy(res.Default("changed", false)) {
			changed = true
		}
		results = append(results, res)
	}
	var out *value.Dict
	if len(results) == 1 {
		out = results[0]
	} else {
		list := make([]any, len(results))
		for i, r := range results {
			list[i] = r
		}
		out = value.DictOf("changed", changed, "result", value.DictOf("results", list))
	}
	return svc.exit(out), nil
}

// exit finishes a k8s or k8s_service result as kubernetes.core's
// exit_json call does.
func (svc *service) exit(out *value.Dict) *value.Dict {
	if out.Has("warnings") {
		// kubernetes.core passes the result's warnings to exit_json,
		// which ansible-core 2.19 deprecates.
		out.Set("deprecations", []any{value.DictOf("msg", "Passing `warnings` to `exit_json` or `fail_json` is deprecated.",
			"version", "2.23", "collection_name", "ansible.builtin", "help_text", "Use `AnsibleModule.warn` instead.")})
	}
	if len(svc.moduleWarnings) > 0 {
		// AnsibleModule.warn's warnings come first in the result.
		all := make([]any, 0, len(svc.moduleWarnings))
		for _, w := range svc.moduleWarnings {
			all = append(all, w)
		}
		prev, _ := out.Default("warnings", nil).([]any)
		out.Set("warnings", append(all, prev...))
	}
	return out
}

// perform applies the task's state to one definition, as kubernetes.core's
// perform_action does.
func (s *service) perform(def *value.Dict) (*value.Dict, error) {
	meta, _ := def.Get("metadata")
	md, _ := meta.(*value.Dict)
	name := value.Str(field(md, "name"))
	if field(md, "name") == nil {
		name = ""
	}
	namespace := ""
	if ns := field(md, "namespace"); ns != nil {
		namespace = value.Str(ns)
	}
	state := s.p.str("state")
	kind := value.Str(field(def, "kind"))
	apiVersion := value.Str(field(def, "apiVersion"))

	res, err := s.c.findResource(kind, apiVersion)
	if err != nil {
		return nil, failWith("Failed to find exact match for "+apiVersion+"."+kind+" by [kind, name, singularName, shortNames]", err)
	}
	if res == nil {
		return nil, failf("Failed to find exact match for %s.%s by [kind, name, singularName, shortNames]", apiVersion, kind)
	}
	def.Set("kind", res.Kind)
	def.Set("apiVersion", res.GroupVersion)
	if s.p.bool("append_hash") && (res.Kind == "ConfigMap" || res.Kind == "Secret") && md != nil {
		// kubernetes.core's retrieve names the object by its content.
		if name, err = appendHash(def, md, name); err != nil {
			return nil, err
		}
	}

	existing, err := s.retrieve(res, name, namespace)
	if err != nil {
		return nil, err
	}
	result := value.DictOf("changed", false, "result", value.NewDict(0))
	var instance any = value.NewDict(0)
	var warnings []string
	method := ""
	selectors := s.p.strs("label_selectors")

	if state == "absent" {
		method = "delete"
		if exists(existing) && strings.HasSuffix(value.Str(field(existing, "kind")), "List") {
			var list []any
			for _, item := range field(existing, "items").([]any) {
				r, err := s.delete(res, value.Str(field(item, "metadata", "name")), strOr(field(item, "metadata", "namespace"), namespace), existing)
				if err != nil {
					return nil, err
				}
				list = append(list, r)
			}
			instance = list
		} else {
			instance, err = s.delete(res, name, namespace, existing)
			if err != nil {
				return nil, err
			}
		}
		result.Set("method", method)
		if exists(existing) {
			result.Set("changed", true)
		}
	} else {
		if len(selectors) > 0 && !matchesSelectors(def, selectors) {
			result.Set("msg", fmt.Sprintf("resource 'kind=%s,name=%s,namespace=%s' filtered by label_selectors.", kind, noneIfEmpty(name), noneIfEmpty(namespace)))
			return result, nil
		}
		switch {
		case s.p.bool("apply"):
			method = "apply"
			instance, warnings, err = s.apply(res, def, namespace, existing)
		case existing == nil:
			if state == "patched" {
				result.Set("warnings", []any{fmt.Sprintf("resource 'kind=%s,name=%s' was not found but will not be created as 'state' parameter has been set to '%s'", kind, noneIfEmpty(name), state)})
				return result, nil
			}
			method = "create"
			instance, warnings, err = s.create(res, def, namespace)
			result.Set("changed", true)
		case s.p.bool("force"):
			method = "replace"
			instance, warnings, err = s.replace(res, def, name, namespace)
		default:
			method = "update"
			instance, warnings, err = s.update(res, def, name, namespace)
		}
		if err != nil {
			return nil, err
		}
		result.Set("method", method)
	}
	if len(warnings) > 0 {
		w := make([]any, len(warnings))
		for i, x := range warnings {
			w[i] = x
		}
		result.Set("warnings", w)
	}

	success := true
	if s.p.bool("wait") && !s.check {
		q := query{name: name, namespace: namespace, labelSel: selectors}
		if method != "delete" {
			q = query{name: value.Str(field(instance, "metadata", "name")), namespace: strOr(field(instance, "metadata", "namespace"), ""), labelSel: selectors}
		}
		pred := waiterFor(res.Kind, state, typedCondition(s.p.dict("wait_condition")))
		ok, obj, duration, err := s.c.wait(s.ctx, res, q, pred, s.p.int("wait_timeout"), s.p.int("wait_sleep"))
		if err != nil {
			return nil, module.Fail(err.Error())
		}
		success = ok
		result.Set("duration", duration)
		if method != "delete" {
			if obj == nil {
				obj = value.NewDict(0)
			}
			instance = obj
		}
	}

	if method != "create" && method != "delete" {
		ex, _ := existing.(*value.Dict)
		if ex == nil {
			ex = value.NewDict(0)
		}
		in, _ := instance.(*value.Dict)
		if in == nil {
			in = value.NewDict(0)
		}
		match, diff := diffObjects(ex, in, s.hidden)
		if match && diff.Len() > 0 {
			appendWarning(result, "No meaningful diff was generated, but the API may not be idempotent (only metadata.generation or metadata.resourceVersion were changed)")
		}
		result.Set("changed", !match)
		if s.diff {
			result.Set("diff", diff)
		}
	}
	result.Set("result", hideFields(instance, s.hidden))
	if !success {
		return nil, module.FailDict(result, fmt.Sprintf(`"%s" "%s": Timed out waiting on resource`, res.Kind, noneIfEmpty(name)))
	}
	return result, nil
}

func appendWarning(result *value.Dict, w string) {
	list, _ := result.Default("warnings", nil).([]any)
	result.Set("warnings", append(list, w))
}

// noneIfEmpty renders a name or namespace the module leaves unset ("") as
// the Python module prints its None.
func noneIfEmpty(s string) string {
	if s == "" {
		return "None"
	}
	return s
}

// strOr is str(v), or def when v is None.
func strOr(v any, def string) string {
	if v == nil {
		return def
	}
	return value.Str(v)
}

// retrieve gets the live object (or the selected list); nil when absent.
func (s *service) retrieve(res *apiResource, name, namespace string) (any, error) {
	selectors := s.p.strs("label_selectors")
	if name == "" && len(selectors) == 0 {
		return nil, nil
	}
	obj, err := s.c.get(s.ctx, res, query{name: name, namespace: namespace, labelSel: selectors})
	if err != nil {
		if errCode(err) == 405 {
			return nil, nil
		}
		return nil, failWith("Failed to retrieve requested object", err)
	}
	if d, ok := obj.(*value.Dict); ok {
		fillListItems(d)
	}
	return obj, nil
}

// fillListItems sets apiVersion and kind on a List's items, as the Python
// client's ResourceInstance does.
func fillListItems(d *value.Dict) {
	kind := value.Str(field(d, "kind"))
	items, ok := field(d, "items").([]any)
	if !strings.HasSuffix(kind, "List") || !ok {
		return
	}
	for _, it := range items {
		if item, ok := it.(*value.Dict); ok {
			if !item.Has("apiVersion") {
				item.Set("apiVersion", field(d, "apiVersion"))
			}
			if !item.Has("kind") {
				item.Set("kind", strings.TrimSuffix(kind, "List"))
			}
		}
	}
}

func (s *service) namespaceFor(res *apiResource, namespace string) (string, error) {
	if res.Namespaced && namespace == "" {
		return "", fmt.Errorf("Namespace is required for %s.%s", res.GroupVersion, res.Kind)
	}
	return namespace, nil
}

func (s *service) create(res *apiResource, def *value.Dict, namespace string) (any, []string, error) {
	ns, err := s.namespaceFor(res, namespace)
	if err != nil {
		return nil, nil, failWith("Failed to create object", err)
	}
	s.injectOwner(res, def, ns)
	resp, err := s.c.do(s.ctx, request{verb: "POST", path: res.path("", ns), query: s.query(), body: def})
	if err != nil {
		if errCode(err) == 409 {
			name := value.Str(field(def, "metadata", "name"))
			// kubernetes.core warns through module.warn here, not in
			// the result's warnings.
			s.moduleWarnings = append(s.moduleWarnings, name+" was not found, but creating it returned a 409 Conflict error. This can happen                         if the resource you are creating does not directly create a resource of the same kind.")
			return value.NewDict(0), nil, nil
		}
		return nil, nil, failWith("Failed to create object", err)
	}
	return resp.obj, resp.warnings, nil
}

func (s *service) replace(res *apiResource, def *value.Dict, name, namespace string) (any, []string, error) {
	ns, err := s.namespaceFor(res, namespace)
	if err != nil {
		return nil, nil, failWith("Failed to replace object", err)
	}
	resp, err := s.c.do(s.ctx, request{verb: "PUT", path: res.path(name, ns), query: s.query(), body: def})
	if err != nil {
		return nil, nil, failWith("Failed to replace object", err)
	}
	return resp.obj, resp.warnings, nil
}

// builtinGroups serve strategic merge patch; custom resources never do,
// so their patches go straight to a JSON merge patch.
var builtinGroups = map[string]bool{
	"": true, "apps": true, "batch": true, "autoscaling": true, "policy": true,
	"rbac.authorization.k8s.io": true, "networking.k8s.io": true, "storage.k8s.io": true,
	"admissionregistration.k8s.io": true, "apiextensions.k8s.io": true, "apiregistration.k8s.io": true,
	"scheduling.k8s.io": true, "coordination.k8s.io": true, "node.k8s.io": true, "discovery.k8s.io": true,
	"flowcontrol.apiserver.k8s.io": true, "certificates.k8s.io": true, "events.k8s.io": true,
	"resource.k8s.io": true, "internal.apiserver.k8s.io": true, "storagemigration.k8s.io": true,
}

func (res *apiResource) group() string {
	g, _, ok := strings.Cut(res.GroupVersion, "/")
	if !ok {
		return ""
	}
	return g
}

// update patches the live object with each merge type in turn until one
// is accepted (default: strategic merge, then JSON merge).
func (s *service) update(res *apiResource, def *value.Dict, name, namespace string) (any, []string, error) {
	ns, err := s.namespaceFor(res, namespace)
	if err != nil {
		return nil, nil, failWith("Failed to patch object", err)
	}
	types := s.p.strs("merge_type")
	if len(types) == 0 {
		types = []string{"strategic-merge", "merge"}
		if !builtinGroups[res.group()] {
			types = []string{"merge"}
		}
	}
	var last error
	for _, mt := range types {
		resp, err := s.c.do(s.ctx, request{verb: "PATCH", path: res.path(name, ns), query: s.query(),
			contentType: "application/" + mt + "-patch+json", body: def})
		if err == nil {
			return resp.obj, resp.warnings, nil
		}
		last = failWith("Failed to patch object", err)
	}
	return nil, nil, last
}

func (s *service) delete(res *apiResource, name, namespace string, existing any) (any, error) {
	if !exists(existing) {
		return value.NewDict(0), nil
	}
	selectors := s.p.strs("label_selectors")
	if name == "" && len(selectors) == 0 {
		return nil, failf("Failed to delete object: At least one of name|label_selector|field_selector is required")
	}
	if res.Namespaced && namespace == "" && len(selectors) == 0 {
		return nil, failf("Failed to delete object: At least one of namespace|label_selector|field_selector is required")
	}
	q := s.query()
	if name == "" {
		q.Set("labelSelector", strings.Join(selectors, ","))
	}
	rq := request{verb: "DELETE", path: res.path(name, namespace), query: q}
	if opts := s.p.dict("delete_options"); opts != nil && !s.check {
		body := value.DictOf("apiVersion", "v1", "kind", "DeleteOptions")
		opts.Each(func(k string, v any) bool {
			if v != nil {
				body.Set(k, v)
			}
			return true
		})
		rq.body = body
	}
	resp, err := s.c.do(s.ctx, rq)
	if err != nil {
		return nil, failWith("Failed to delete object", err)
	}
	return resp.obj, nil
}
