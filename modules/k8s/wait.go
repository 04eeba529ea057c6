package k8s

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// predicate tells whether a fetched object (nil when absent) is what a
// wait is for.
type predicate func(obj any) bool

// field walks dicts by keys; nil when a key is missing.
func field(obj any, keys ...string) any {
	for _, k := range keys {
		d, ok := obj.(*value.Dict)
		if !ok {
			return nil
		}
		obj, _ = d.Get(k)
	}
	return obj
}

func truthy(v any) bool { return v != nil && value.Truthy(v) }

func eq(a, b any) bool { return value.Equal(a, b) }

func orZero(v any) any {
	if v == nil {
		return 0
	}
	return v
}

// exists is true for an object, or a List with items.
func exists(obj any) bool {
	d, ok := obj.(*value.Dict)
	if !ok || d.Len() == 0 {
		return false
	}
	if strings.HasSuffix(value.Str(field(d, "kind")), "List") {
		items, _ := field(d, "items").([]any)
		return len(items) > 0
	}
	return true
}

func absent(obj any) bool { return !exists(obj) }

func deploymentReady(o any) bool {
	st := field(o, "status")
	return truthy(st) &&
		eq(field(o, "spec", "replicas"), orZero(field(st, "replicas"))) &&
		eq(field(st, "availableReplicas"), field(st, "replicas")) &&
		eq(field(st, "observedGeneration"), field(o, "metadata", "generation")) &&
		!truthy(field(st, "unavailableReplicas"))
}

func podReady(o any) bool {
	st := field(o, "status")
	cs, ok := field(st, "containerStatuses").([]any)
	if !truthy(st) || !ok {
		return false
	}
	for _, c := range cs {
		if !truthy(field(c, "ready")) {
			return false
		}
	}
	return true
}

func daemonSetReady(o any) bool {
	st := field(o, "status")
	want := field(st, "desiredNumberScheduled")
	return truthy(st) && want != nil &&
		eq(orZero(field(st, "updatedNumberScheduled")), want) &&
		eq(field(st, "numberReady"), want) &&
		eq(field(st, "observedGeneration"), field(o, "metadata", "generation")) &&
		!truthy(field(st, "unavailableReplicas"))
}

func statefulSetReady(o any) bool {
	st := field(o, "status")
	gen := orZero(field(o, "metadata", "generation"))
	replicas := field(o, "spec", "replicas")
	if value.Str(field(o, "spec", "updateStrategy", "type")) == "OnDelete" {
		return truthy(st) && eq(field(st, "observedGeneration"), gen) && eq(field(st, "replicas"), replicas)
	}
	return truthy(st) && value.Str(field(o, "spec", "updateStrategy", "type")) == "RollingUpdate" &&
		eq(field(st, "observedGeneration"), gen) &&
		eq(field(st, "updateRevision"), field(st, "currentRevision")) &&
		eq(orZero(field(st, "updatedReplicas")), replicas) &&
		eq(orZero(field(st, "readyReplicas")), replicas) &&
		eq(field(st, "replicas"), replicas)
}

func clusterOperatorReady(o any) bool {
	if !exists(o) {
		return false
	}
	status := map[string]string{}
	conds, _ := field(o, "status", "conditions").([]any)
	for _, c := range conds {
		status[value.Str(field(c, "type"))] = value.Str(field(c, "status"))
	}
	return status["Degraded"] == "False" && status["Progressing"] == "False" && status["Available"] == "True"
}

var readyPredicates = map[string]predicate{
	"DaemonSet":       daemonSetReady,
	"Deployment":      deploymentReady,
	"Pod":             podReady,
	"StatefulSet":     statefulSetReady,
	"ClusterOperator": clusterOperatorReady,
}

// conditionMet is kubernetes.core's custom_condition for wait_condition.
func conditionMet(cond *value.Dict) predicate {
	return func(o any) bool {
		conds, _ := field(o, "status", "conditions").([]any)
		if !truthy(field(o, "status")) || len(conds) == 0 {
			return false
		}
		// A wait_condition without type compares each condition's type
		// with None, as upstream does: nothing matches, so the wait times
		// out.
		want := field(cond, "type")
		if want == nil {
			return false
		}
		var match any
		for _, c := range conds {
			if value.Str(field(c, "type")) == value.Str(want) {
				match = c
				break
			}
		}
		if match == nil {
			return false
		}
		reason := field(cond, "reason")
		wantStatus := field(cond, "status")
		if value.Str(field(match, "status")) == "Unknown" {
			// As upstream: with the reason option unset, Unknown never matches.
			if value.Str(wantStatus) == "Unknown" && truthy(reason) {
				return value.Equal(field(match, "reason"), reason)
			}
			return false
		}
		got := value.Str(field(match, "status")) == "True"
		b, _ := argspec.LenientBoolean(wantStatus)
		if got != b {
			return false
		}
		if truthy(reason) {
			return value.Equal(field(match, "reason"), reason)
		}
		return true
	}
}

// waiterFor picks the predicate of a wait, as get_waiter does.
func waiterFor(kind string, state string, cond *value.Dict) predicate {
	if state == "absent" {
		return absent
	}
	// get_waiter tests the validated dict, whose sub-options are always
	// there: any wait_condition, even one without type, is a custom one
	// (k8s_info passes it as it is; k8s and k8s_json_patch drop one
	// without type first, see typedCondition).
	if cond != nil {
		return conditionMet(cond)
	}
	if p, ok := readyPredicates[kind]; ok {
		return p
	}
	return exists
}

// typedCondition is wait_condition as the k8s and k8s_json_patch
// modules give it to get_waiter: nil unless it has a type.
func typedCondition(cond *value.Dict) *value.Dict {
	if cond != nil && truthy(field(cond, "type")) {
		return cond
	}
	return nil
}

// query selects objects of a resource.
type query struct {
	name, namespace    string
	labelSel, fieldSel []string
}

func (q query) values() url.Values {
	v := url.Values{}
	if len(q.labelSel) > 0 {
		v.Set("labelSelector", strings.Join(q.labelSel, ","))
	}
	if len(q.fieldSel) > 0 {
		v.Set("fieldSelector", strings.Join(q.fieldSel, ","))
	}
	return v
}

// get fetches one object or a list; nil when it is not found.
func (c *Clients) get(ctx context.Context, r *apiResource, q query) (any, error) {
	resp, err := c.do(ctx, request{verb: "GET", path: r.path(q.name, q.namespace), query: q.values()})
	if err != nil {
		if errCode(err) == 404 {
			return nil, nil
		}
		return nil, err
	}
	return resp.obj, nil
}

// wait polls until pred holds or timeout seconds pass, checking at once
// and then every sleep seconds, as kubernetes.core's Waiter does. It
// returns whether pred held, the last object and the whole seconds waited.
func (c *Clients) wait(ctx context.Context, r *apiResource, q query, pred predicate, timeout, sleep int) (bool, any, int, error) {
	start := time.Now()
	var obj any
	var lastErr error
	elapsed := 0
	for first := true; ; first = false {
		if !first {
			if time.Since(start) >= time.Duration(timeout)*time.Second {
				break
			}
			select {
			case <-time.After(time.Duration(sleep) * time.Second):
			case <-ctx.Done():
				return false, obj, elapsed, ctx.Err()
			}
			elapsed = int(time.Since(start) / time.Second)
		}
		got, err := c.get(ctx, r, q)
		lastErr = nil
		if err != nil {
			var ae *apiError
			if errors.As(err, &ae) && ae.code != 0 {
				return false, nil, elapsed, err
			}
			// A transport error is retried; as in kubernetes.core's
			// Waiter, the predicate sees the last object fetched (nil
			// before the first), so a dropped connection does not look
			// like an absent object.
			lastErr = err
		} else {
			obj = got
		}
		if pred(obj) {
			break
		}
		if timeout <= 0 {
			break
		}
	}
	if lastErr != nil {
		return false, nil, elapsed, fmt.Errorf("Exception '%s' raised while trying to get resource using %s", lastErr, q.pyParams())
	}
	return pred(obj), obj, elapsed, nil
}

// pyParams renders the query as the Python dict kubernetes.core prints.
func (q query) pyParams() string {
	d := value.NewDict(4)
	if q.name != "" {
		d.Set("name", q.name)
	}
	if q.namespace != "" {
		d.Set("namespace", q.namespace)
	}
	if len(q.labelSel) > 0 {
		d.Set("label_selector", strings.Join(q.labelSel, ","))
	}
	if len(q.fieldSel) > 0 {
		d.Set("field_selector", strings.Join(q.fieldSel, ","))
	}
	return value.Repr(d)
}
