package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// dumper lists every object of every listable resource, as admin.
type dumper struct {
	disco *discovery.DiscoveryClient
	dyn   dynamic.Interface
}

func newDumper(cfg *rest.Config) (*dumper, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 200, 400
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &dumper{disco: disco, dyn: dyn}, nil
}

// skipped resources: derived from others by controllers or by time
// (events, leases, endpoints), or not objects at all.
var skipResources = map[string]bool{
	"events": true, "leases": true, "endpoints": true, "endpointslices": true,
	"componentstatuses": true,
}

type resource struct {
	gvr        schema.GroupVersionResource
	kind       string
	namespaced bool
}

func (d *dumper) resources() ([]resource, error) {
	lists, err := d.disco.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		return nil, err
	}
	var out []resource
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || skipResources[r.Name] || !hasVerb(r.Verbs, "list") {
				continue
			}
			out = append(out, resource{gvr: gv.WithResource(r.Name), kind: r.Kind, namespaced: r.Namespaced})
		}
	}
	return out, nil
}

func hasVerb(verbs []string, v string) bool {
	for _, x := range verbs {
		if x == v {
			return true
		}
	}
	return false
}

func key(r resource, o *unstructured.Unstructured) string {
	return fmt.Sprintf("%s/%s %s/%s", r.gvr.Group, r.kind, o.GetNamespace(), o.GetName())
}

// keys are the objects present now (before a run), by key with the uid,
// so that an object deleted and made again counts as new.
func (d *dumper) keys(ctx context.Context) (map[string]bool, error) {
	res, err := d.resources()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, r := range res {
		l, err := d.dyn.Resource(r.gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		for i := range l.Items {
			seen[key(r, &l.Items[i])+" "+string(l.Items[i].GetUID())] = true
		}
	}
	return seen, nil
}

// settle waits (at most max) until no namespace is Terminating and no
// object has a deletionTimestamp, so that a deletion the run began is
// compared done rather than half way.
func (d *dumper) settle(ctx context.Context, max time.Duration) {
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		busy := false
		for _, gvr := range []schema.GroupVersionResource{
			{Version: "v1", Resource: "namespaces"},
			{Version: "v1", Resource: "pods"},
		} {
			l, err := d.dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
			if err != nil {
				continue
			}
			for _, o := range l.Items {
				if o.GetDeletionTimestamp() != nil {
					busy = true
				}
			}
		}
		if !busy {
			return
		}
		time.Sleep(time.Second)
	}
}

// dump returns the objects not in before, normalised, each as one line of
// JSON with sorted keys, sorted by key.
func (d *dumper) dump(ctx context.Context, before map[string]bool) ([]string, error) {
	res, err := d.resources()
	if err != nil {
		return nil, err
	}
	type entry struct{ key, json string }
	var entries []entry
	for _, r := range res {
		l, err := d.dyn.Resource(r.gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		for i := range l.Items {
			o := &l.Items[i]
			k := key(r, o)
			if before[k+" "+string(o.GetUID())] {
				continue
			}
			n := normalize(r, o.Object)
			b, err := json.Marshal(n)
			if err != nil {
				return nil, err
			}
			entries = append(entries, entry{normKey(r, n), string(b)})
		}
	}
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].key != entries[j].key {
			return entries[i].key < entries[j].key
		}
		return entries[i].json < entries[j].json
	})
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.json
	}
	return out, nil
}

func normKey(r resource, o map[string]any) string {
	md, _ := o["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	return fmt.Sprintf("%s/%s %s/%s", r.gvr.Group, r.kind, ns, name)
}

var (
	timeRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$`)
	uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	pemRE  = regexp.MustCompile(`-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----\n?`)
	// tokenVolumeRE is the name of the token volume the ServiceAccount
	// admission plugin adds to a pod.
	tokenVolumeRE = regexp.MustCompile(`^kube-api-access-[a-z0-9]{5}$`)
)

// builtinGroup: the status of objects of these groups is written by the
// apiserver and controllers (timing, IPs, counts), not by the playbook.
func builtinGroup(g string) bool {
	return g == "" || !strings.Contains(g, ".") || strings.HasSuffix(g, ".k8s.io")
}

// normalize drops or replaces what a fresh cluster assigns differently
// each time; see README.md for the list.
func normalize(r resource, obj map[string]any) map[string]any {
	o := deepCopy(obj).(map[string]any)
	md, _ := o["metadata"].(map[string]any)
	if md != nil {
		for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "selfLink", "deletionTimestamp"} {
			delete(md, f)
		}
		if builtinGroup(r.gvr.Group) {
			delete(md, "generation")
		}
		if gen, _ := md["generateName"].(string); gen != "" {
			if name, _ := md["name"].(string); strings.HasPrefix(name, gen) {
				md["name"] = gen + "<GENERATED>"
				// A Namespace's own name label.
				if labels, ok := md["labels"].(map[string]any); ok {
					if v, _ := labels["kubernetes.io/metadata.name"].(string); v == name || (strings.HasPrefix(v, gen) && len(v) == len(gen)+5) {
						labels["kubernetes.io/metadata.name"] = gen + "<GENERATED>"
					}
				}
			}
		}
		if refs, ok := md["ownerReferences"].([]any); ok {
			for _, ref := range refs {
				if m, ok := ref.(map[string]any); ok {
					delete(m, "uid")
				}
			}
		}
		if ann, ok := md["annotations"].(map[string]any); ok {
			// Written by the deployment controller (revision, desired and
			// max replicas), at moments that depend on timing: a
			// playbook's write may come before or after them.
			for k := range ann {
				if strings.HasPrefix(k, "deployment.kubernetes.io/") {
					delete(ann, k)
				}
			}
			if len(ann) == 0 {
				delete(md, "annotations")
			}
		}
	}
	if builtinGroup(r.gvr.Group) {
		delete(o, "status")
	}
	if spec, ok := o["spec"].(map[string]any); ok {
		switch r.kind {
		case "Service":
			delete(spec, "clusterIP")
			delete(spec, "clusterIPs")
			if ports, ok := spec["ports"].([]any); ok {
				for _, p := range ports {
					if m, ok := p.(map[string]any); ok {
						delete(m, "nodePort")
					}
				}
			}
		case "Pod":
			// The scheduler binds a pod, before or after the playbook's
			// last write of it.
			delete(spec, "nodeName")
		}
	}
	if r.kind == "ConfigMap" {
		if data, ok := o["data"].(map[string]any); ok {
			if s, ok := data["ca.crt"].(string); ok {
				data["ca.crt"] = pemRE.ReplaceAllString(s, "<PEM>")
			}
		}
	}
	return replaceTimes(o).(map[string]any)
}

func replaceTimes(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = replaceTimes(e)
		}
	case []any:
		for i, e := range x {
			x[i] = replaceTimes(e)
		}
	case string:
		if timeRE.MatchString(x) {
			return "<TIME>"
		}
		// A uid copied elsewhere: a Job's controller-uid label and
		// selector, ...
		if uuidRE.MatchString(x) {
			return "<UID>"
		}
		// The token volume the ServiceAccount admission plugin adds to a
		// pod, named at random (its name and its mount's).
		if tokenVolumeRE.MatchString(x) {
			return "kube-api-access-<GENERATED>"
		}
	}
	return v
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e)
		}
		return s
	}
	return v
}

// diffObjects says where two dumps first differ, or "".
func diffObjects(a, b []string) string {
	am, bm := index(a), index(b)
	var keys []string
	for k := range am {
		keys = append(keys, k)
	}
	for k := range bm {
		if _, ok := am[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		x, inA := am[k]
		y, inB := bm[k]
		switch {
		case !inA:
			return "only cfzt-runner left " + k
		case !inB:
			return "only the oracle left " + k
		case !reflect.DeepEqual(x, y):
			return k + ": " + firstFieldDiff("", x, y)
		}
	}
	return ""
}

func index(objs []string) map[string]any {
	m := map[string]any{}
	var parsed []map[string]any
	gens := map[string]bool{} // generateNames of Namespaces
	for _, s := range objs {
		var o map[string]any
		if json.Unmarshal([]byte(s), &o) != nil {
			continue
		}
		parsed = append(parsed, o)
		if md, _ := o["metadata"].(map[string]any); o["kind"] == "Namespace" && md != nil {
			if g, _ := md["generateName"].(string); g != "" {
				gens[g] = true
			}
		}
	}
	for _, o := range parsed {
		// An object in a namespace named from generateName: its namespace
		// is the generated name, five random characters after the prefix.
		if md, _ := o["metadata"].(map[string]any); md != nil {
			if ns, _ := md["namespace"].(string); ns != "" {
				for g := range gens {
					if strings.HasPrefix(ns, g) && len(ns) == len(g)+5 {
						md["namespace"] = g + "<GENERATED>"
					}
				}
			}
		}
		api, _ := o["apiVersion"].(string)
		kind, _ := o["kind"].(string)
		// Normalised again, so that results recorded before a rule was
		// added compare by the rules of now.
		group := ""
		if i := strings.LastIndex(api, "/"); i >= 0 {
			group = api[:i]
		}
		o = normalize(resource{gvr: schema.GroupVersionResource{Group: group}, kind: kind}, o)
		md, _ := o["metadata"].(map[string]any)
		ns, _ := md["namespace"].(string)
		name, _ := md["name"].(string)
		k := fmt.Sprintf("%s %s %s/%s", api, kind, ns, name)
		for i := 2; ; i++ { // generated names may repeat
			if _, dup := m[k]; !dup {
				break
			}
			k = fmt.Sprintf("%s %s %s/%s#%d", api, kind, ns, name, i)
		}
		m[k] = o
	}
	return m
}

func firstFieldDiff(path string, x, y any) string {
	xm, xok := x.(map[string]any)
	ym, yok := y.(map[string]any)
	if xok && yok {
		var keys []string
		for k := range xm {
			keys = append(keys, k)
		}
		for k := range ym {
			if _, ok := xm[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !reflect.DeepEqual(xm[k], ym[k]) {
				return firstFieldDiff(path+"."+k, xm[k], ym[k])
			}
		}
	}
	xs, xok := x.([]any)
	ys, yok := y.([]any)
	if xok && yok && len(xs) == len(ys) {
		for i := range xs {
			if !reflect.DeepEqual(xs[i], ys[i]) {
				return firstFieldDiff(fmt.Sprintf("%s[%d]", path, i), xs[i], ys[i])
			}
		}
	}
	jx, _ := json.Marshal(x)
	jy, _ := json.Marshal(y)
	return fmt.Sprintf("%s oracle %s, cfzt-runner %s", path, shorten(string(jx), 80), shorten(string(jy), 80))
}
