package k8s

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// drainSpec is kubernetes.core.k8s_drain's argument_spec: the auth
// options, then its own.
var drainSpec = &argspec.Spec{Options: concat(authOptions(), []opt{
	{Name: "state", Default: "drain", Choices: []any{"cordon", "drain", "uncordon"}},
	{Name: "name", Required: true},
	{Name: "delete_options", Type: argspec.Dict, Default: value.NewDict(0), Options: []opt{
		{Name: "terminate_grace_period", Type: argspec.Int},
		{Name: "force", Type: argspec.Bool, Default: false},
		{Name: "ignore_daemonsets", Type: argspec.Bool, Default: false},
		{Name: "delete_emptydir_data", Type: argspec.Bool, Default: false},
		{Name: "disable_eviction", Type: argspec.Bool, Default: false},
		{Name: "wait_timeout", Type: argspec.Int},
		{Name: "wait_sleep", Type: argspec.Int, Default: 5},
	}},
	{Name: "pod_selectors", Type: argspec.List, Elements: argspec.Str, Aliases: []string{"label_selectors"}},
})}

// runDrain is kubernetes.core.k8s_drain: cordon or uncordon a Node (a
// strategic merge patch of spec.unschedulable), or drain it: cordon,
// then evict (or delete) the pods bound to it, refusing unmanaged pods,
// pods with emptyDir volumes and DaemonSet pods unless told otherwise.
// kubernetes.core's module does not support check mode.
func runDrain(req *module.Request) (*value.Dict, error) {
	args, failed := actionKubeconfig(req, req.Args)
	if failed != nil {
		return failed, nil
	}
	p, msg := validate("kubernetes.core.k8s_drain", drainSpec, args)
	if msg != "" {
		return module.FailedResult(errors.New(msg)), nil
	}
	if req.Check {
		return value.DictOf("changed", false, "skipped", true,
			"msg", "remote module ("+req.Action+") does not support check mode"), nil
	}
	c, err := ClientsFor(req.Host.Shared(), req.Getenv, args)
	if err != nil {
		return module.FailedResult(err), nil
	}
	ctx := req.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	d := &drainer{ctx: ctx, c: c, name: p.str("name"), opts: p.dict("delete_options"), selectors: p.strs("pod_selectors")}
	if d.opts == nil {
		d.opts = value.NewDict(0)
	}
	return d.run(p.str("state")), nil
}

type drainer struct {
	ctx       context.Context
	c         *Clients
	name      string
	opts      *value.Dict
	selectors []string
	changed   bool
	nodePath  string
}

func (d *drainer) opt(k string) any { v, _ := d.opts.Get(k); return v }

func (d *drainer) optBool(k string) bool { b, _ := d.opt(k).(bool); return b }

func (d *drainer) run(state string) *value.Dict {
	res, err := d.c.findResource("Node", "v1")
	if err != nil || res == nil {
		return module.FailedResult(failf("Failed to retrieve node '%s' due to: %v", d.name, err))
	}
	d.nodePath = res.path(d.name, "")
	got, err := d.c.do(d.ctx, request{verb: "GET", path: d.nodePath})
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.code != 0 {
			if ae.Reason() == "Not Found" {
				return module.FailedResult(failf("Node %s not found.", d.name))
			}
			return module.FailedResult(module.FailDict(value.DictOf("status", ae.code), fmt.Sprintf("Failed to retrieve node '%s' due to: %s", d.name, ae.Reason())))
		}
		return module.FailedResult(failf("Failed to retrieve node '%s' due to: %s", d.name, err))
	}
	unschedulable := value.Truthy(field(got.obj, "spec", "unschedulable"))
	switch state {
	case "cordon":
		if unschedulable {
			return value.DictOf("changed", false, "result", "node "+d.name+" already marked unschedulable.")
		}
		if f := d.patchNode(true); f != nil {
			return f
		}
		return value.DictOf("changed", true, "result", "node "+d.name+" marked unschedulable.")
	case "uncordon":
		if !unschedulable {
			return value.DictOf("changed", false, "result", "node "+d.name+" already marked schedulable.")
		}
		if f := d.patchNode(false); f != nil {
			return f
		}
		return value.DictOf("changed", true, "result", "node "+d.name+" marked schedulable.")
	}
	return d.drain(unschedulable)
}

func (d *drainer) patchNode(unschedulable bool) *value.Dict {
	_, err := d.c.do(d.ctx, request{verb: "PATCH", path: d.nodePath, contentType: "application/strategic-merge-patch+json",
		body: value.DictOf("spec", value.DictOf("unschedulable", unschedulable))})
	if err != nil {
		return module.FailedResult(failf("Failed to patch node due to: %s", typedAPIException(err)))
	}
	return nil
}

// podRef is a pod's namespace and name.
type podRef struct{ ns, name string }

func joinPods(l []podRef) string {
	s := make([]string, len(l))
	for i, p := range l {
		s[i] = p.ns + "/" + p.name
	}
	return strings.Join(s, ",")
}

// filterPods sorts the node's pods as kubernetes.core's filter_pods does.
func (d *drainer) filterPods(pods []any) (toDelete []podRef, warnings, errs []string) {
	var daemon, unmanaged, mirror, local []podRef
	for _, it := range pods {
		pod, _ := it.(*value.Dict)
		if pod == nil {
			continue
		}
		ref := podRef{value.Str(field(pod, "metadata", "namespace")), value.Str(field(pod, "metadata", "name"))}
		if ann, ok := field(pod, "metadata", "annotations").(*value.Dict); ok && ann.Has("kubernetes.io/config.mirror") {
			mirror = append(mirror, ref)
			continue
		}
		if ph := field(pod, "status", "phase"); ph == "Succeeded" || ph == "Failed" {
			toDelete = append(toDelete, ref)
			continue
		}
		emptyDir := false
		vols, _ := field(pod, "spec", "volumes").([]any)
		for _, v := range vols {
			if ed := field(v, "emptyDir"); ed != nil {
				emptyDir = true
			}
		}
		if emptyDir {
			local = append(local, ref)
			continue
		}
		owners, _ := field(pod, "metadata", "ownerReferences").([]any)
		if len(owners) == 0 {
			unmanaged = append(unmanaged, ref)
			continue
		}
		// Each owner counts: a pod with two owners is listed twice, as in
		// kubernetes.core.
		for _, o := range owners {
			if field(o, "kind") == "DaemonSet" {
				daemon = append(daemon, ref)
			} else {
				toDelete = append(toDelete, ref)
			}
		}
	}
	if len(unmanaged) > 0 {
		if !d.optBool("force") {
			errs = append(errs, "cannot delete Pods not managed by ReplicationController, ReplicaSet, Job, DaemonSet or StatefulSet (use option force set to yes): "+joinPods(unmanaged)+".")
		} else {
			warnings = append(warnings, "Deleting Pods not managed by ReplicationController, ReplicaSet, Job, DaemonSet or StatefulSet: "+joinPods(unmanaged)+".")
			toDelete = append(toDelete, unmanaged...)
		}
	}
	if len(mirror) > 0 {
		warnings = append(warnings, "cannot delete mirror Pods using API server: "+joinPods(mirror)+".")
	}
	if len(local) > 0 {
		if !d.optBool("delete_emptydir_data") {
			errs = append(errs, "cannot delete Pods with local storage: "+joinPods(local)+".")
		} else {
			warnings = append(warnings, "Deleting Pods with local storage: "+joinPods(local)+".")
			toDelete = append(toDelete, local...)
		}
	}
	if len(daemon) > 0 {
		if !d.optBool("ignore_daemonsets") {
			errs = append(errs, "cannot delete DaemonSet-managed Pods (use option ignore_daemonset set to yes): "+joinPods(daemon)+".")
		} else {
			warnings = append(warnings, "Ignoring DaemonSet-managed Pods: "+joinPods(daemon)+".")
		}
	}
	return toDelete, warnings, errs
}

func (d *drainer) drain(unschedulable bool) *value.Dict {
	var result []string
	if !unschedulable {
		if f := d.patchNode(true); f != nil {
			return f
		}
		result = append(result, "node "+d.name+" marked unschedulable.")
		d.changed = true
	} else {
		result = append(result, "node "+d.name+" already marked unschedulable.")
	}
	revert := func() *value.Dict {
		if d.changed {
			d.changed = false
			return d.patchNode(false)
		}
		return nil
	}
	q := url.Values{"fieldSelector": {"spec.nodeName=" + d.name}}
	if len(d.selectors) > 0 {
		q.Set("labelSelector", strings.Join(d.selectors, ","))
	}
	var pods []podRef
	var warnings []string
	list, err := d.c.do(d.ctx, request{verb: "GET", path: "/api/v1/pods", query: q})
	if err != nil {
		var ae *apiError
		if !errors.As(err, &ae) || ae.code == 0 {
			if f := revert(); f != nil {
				return f
			}
			return module.FailedResult(failf("Failed to list pod from node %s due to: %s", d.name, err))
		}
		if ae.Reason() != "Not Found" {
			if f := revert(); f != nil {
				return f
			}
			return module.FailedResult(module.FailDict(value.DictOf("status", ae.code), fmt.Sprintf("Failed to list pod from node %s due to: %s", d.name, ae.Reason())))
		}
	} else {
		items, _ := field(list.obj, "items").([]any)
		var errs []string
		pods, warnings, errs = d.filterPods(items)
		if len(errs) > 0 {
			if f := revert(); f != nil {
				return f
			}
			return module.FailedResult(failf("Pod deletion errors: %s", strings.Join(errs, " ")))
		}
	}
	if len(pods) > 0 {
		if f := d.evict(pods); f != nil {
			return f
		}
		n := len(pods)
		if to, set := d.opt("wait_timeout").(int); set {
			sleep, _ := d.opt("wait_sleep").(int)
			warn, f := d.waitDeleted(pods, to, sleep)
			if f != nil {
				return f
			}
			if warn != "" {
				warnings = append(warnings, warn)
			}
		}
		result = append(result, fmt.Sprintf("%d Pod(s) deleted from node.", n))
	}
	out := value.DictOf("changed", d.changed, "result", strings.Join(result, " "))
	if len(warnings) > 0 {
		w := make([]any, len(warnings))
		for i, s := range warnings {
			w[i] = s
		}
		out.Set("warnings", w)
		// kubernetes.core passes them to exit_json, which ansible-core
		// 2.19 deprecates.
		out.Set("deprecations", []any{value.DictOf("msg", "Passing `warnings` to `exit_json` or `fail_json` is deprecated.",
			"version", "2.23", "collection_name", "ansible.builtin", "help_text", "Use `AnsibleModule.warn` instead.")})
	}
	return out
}

// podPath is a pod's URL; names and namespaces are escaped as one path
// segment each.
func podPath(p podRef) string {
	return "/api/v1/namespaces/" + url.PathEscape(p.ns) + "/pods/" + url.PathEscape(p.name)
}

// deleteOptions is kubernetes.core's V1DeleteOptions: only a non-zero
// terminate_grace_period makes one (0 counts as unset).
func (d *drainer) deleteOptions() *value.Dict {
	if g, ok := d.opt("terminate_grace_period").(int); ok && g != 0 {
		return value.DictOf("gracePeriodSeconds", g)
	}
	return nil
}

func (d *drainer) evict(pods []podRef) *value.Dict {
	opts := d.deleteOptions()
	for _, p := range pods {
		var err error
		if d.optBool("disable_eviction") {
			rq := request{verb: "DELETE", path: podPath(p)}
			if opts != nil {
				rq.body = opts
			}
			_, err = d.c.do(d.ctx, rq)
		} else {
			body := value.DictOf("apiVersion", "policy/v1", "kind", "Eviction",
				"metadata", value.DictOf("name", p.name, "namespace", p.ns))
			if opts != nil {
				body.Set("deleteOptions", opts)
			}
			_, err = d.c.do(d.ctx, request{verb: "POST", path: podPath(p) + "/eviction", body: body})
		}
		if err != nil {
			var ae *apiError
			if errors.As(err, &ae) && ae.code == 404 {
				continue
			}
			return module.FailedResult(failf("Failed to delete pod %s/%s due to: %s", p.ns, p.name, apiExcMessage(err)))
		}
		d.changed = true
	}
	return nil
}

// apiExcMessage is kubernetes.core's format_dynamic_api_exc: the message
// of a JSON Status body, else the body, else status and reason.
func apiExcMessage(err error) string {
	var ae *apiError
	if !errors.As(err, &ae) || ae.code == 0 {
		return err.Error()
	}
	if len(ae.body) == 0 {
		return fmt.Sprintf("%d Reason: %s", ae.code, ae.Reason())
	}
	var st struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(ae.body, &st) == nil && st.Message != "" {
		return st.Message
	}
	return string(ae.body)
}

// waitDeleted waits, as kubernetes.core's wait_for_pod_deletion, until
// the pods are gone from the node, checking the last one every sleep
// seconds; a timeout of 0 waits without end (until the task's context
// ends). It returns kubernetes.core's warning on a timeout.
func (d *drainer) waitDeleted(pods []podRef, timeout, sleep int) (string, *value.Dict) {
	start := time.Now()
	pods = append([]podRef(nil), pods...)
	for len(pods) > 0 && (timeout == 0 || int(time.Since(start).Seconds()) < timeout) {
		p := pods[len(pods)-1]
		got, err := d.c.do(d.ctx, request{verb: "GET", path: podPath(p)})
		if err != nil {
			var ae *apiError
			if errors.As(err, &ae) && ae.code != 0 {
				if ae.Reason() != "Not Found" {
					return "", module.FailedResult(failf("Exception raised: %s", ae.Reason()))
				}
				pods = pods[:len(pods)-1]
				continue
			}
			return "", module.FailedResult(failf("Exception raised: %s", err))
		}
		if field(got.obj, "spec", "nodeName") != d.name {
			pods = pods[:len(pods)-1]
		}
		select {
		case <-d.ctx.Done():
			return "", module.FailedResult(failf("Exception raised: %s", d.ctx.Err()))
		case <-time.After(time.Duration(sleep) * time.Second):
		}
	}
	if len(pods) == 0 {
		return "", nil
	}
	return "timeout reached while pods were still running.", nil
}
