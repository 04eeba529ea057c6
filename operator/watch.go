package operator

import (
	"context"
	"sync"

	"github.com/cfzt/cfzt-runner/modules/k8s/kdisco"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// watcher runs one informer per watched kind and namespace and reports
// the changes that should start a cycle.
//
// Which events count:
//   - adds and deletes, except the adds of an informer's initial list (the
//     cycle that follows the informer's start reads those objects anyway);
//   - updates that change anything but metadata.resourceVersion,
//     metadata.managedFields, metadata.generation and status;
//   - status-only updates of the kinds in statusKinds (by default
//     CloudflareTask: the kube_worker collects what the cloudflare_worker
//     writes to a task's status, and the cloudflare_worker picks up tasks
//     that the kube_worker re-queues through status).
//
// Kinds in byName are watched one object at a time when the playbook reads
// them by name (a field selector on metadata.name): only the Services, or
// Deployments, that it reads, which keeps the cache small and needs list and
// watch on those objects only (RBAC resourceNames apply to a list or watch
// with such a selector). For such an object, status-only updates count
// too: it was read for what it says, status included (a LoadBalancer IP, a
// Deployment's ready replicas). A read of these kinds without a name still
// watches the namespace.
//
// Status-only updates of other kinds are ignored: they are what the roles
// write (tenant conditions, OperatorConfig status), and reacting to them
// would make every cycle start the next one. A cycle's own spec or
// metadata writes (e.g. the annotations kube_worker writes back to a
// route) do start one follow-up cycle, which finds nothing to change.
type watcher struct {
	dyn         dynamic.Interface
	mapper      meta.ResettableRESTMapper
	namespaces  []string // empty: all namespaces
	statusKinds map[string]bool
	byName      map[schema.GroupKind]bool
	notify      func(kind string)
	log         Logger

	mu      sync.Mutex
	ctx     context.Context
	started map[informerKey]bool
	missing map[schema.GroupVersionKind]bool // kinds not served (yet)
}

func newWatcher(ctx context.Context, cfg *rest.Config, namespaces, statusKinds []string, byName []schema.GroupKind, notify func(string), log Logger) (*watcher, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := kdisco.NewForConfig(cfg, nil)
	if err != nil {
		return nil, err
	}
	sk := map[string]bool{}
	for _, k := range statusKinds {
		sk[k] = true
	}
	bn := map[schema.GroupKind]bool{}
	for _, k := range byName {
		bn[k] = true
	}
	return &watcher{
		dyn: dyn, mapper: &kdisco.Mapper{Client: dc},
		namespaces: namespaces, statusKinds: sk, byName: bn, notify: notify, log: log, ctx: ctx,
		started: map[informerKey]bool{}, missing: map[schema.GroupVersionKind]bool{},
	}, nil
}

// informerKey is one informer: a kind in a namespace ("" for all), or
// one object of it (name).
type informerKey struct {
	gvk  schema.GroupVersionKind
	ns   string
	name string
}

// ensure starts the informers the targets need and are not running yet.
// A target without a namespace is watched in the configured namespaces
// (all when none are configured); cluster-scoped kinds everywhere. A kind
// the apiserver does not serve yet (a CRD not installed) is retried on the
// next call, after a discovery refresh; one this identity may not list or
// watch is given up with a log line (the cycle still reads it).
func (w *watcher) ensure(targets []Target) {
	w.mu.Lock()
	defer w.mu.Unlock()
	reset := false
	for _, t := range targets {
		gvk := t.GVK
		named := t.Name != "" && w.byName[gvk.GroupKind()]
		if w.started[informerKey{gvk, metav1.NamespaceAll, ""}] ||
			(named && (w.started[informerKey{gvk, t.Namespace, ""}] || w.started[informerKey{gvk, t.Namespace, t.Name}])) {
			continue
		}
		if w.missing[gvk] && !reset {
			w.mapper.Reset()
			reset = true
		}
		m, err := w.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			if !w.missing[gvk] {
				w.log("watch_kind_unavailable", "kind", gvkString(gvk), "error", err.Error())
			}
			w.missing[gvk] = true
			continue
		}
		delete(w.missing, gvk)
		if named {
			ns := t.Namespace
			if m.Scope.Name() != meta.RESTScopeNameNamespace {
				ns = metav1.NamespaceAll
			} else if ns == "" {
				continue // a namespaced object read without its namespace
			}
			if key := (informerKey{gvk, ns, t.Name}); !w.started[key] {
				w.started[key] = true
				w.start(key, m.Resource)
			}
			continue
		}
		namespaces := []string{t.Namespace}
		switch {
		case m.Scope.Name() != meta.RESTScopeNameNamespace:
			namespaces = []string{metav1.NamespaceAll}
		case t.Namespace == "" && len(w.namespaces) > 0:
			namespaces = w.namespaces
		}
		for _, ns := range namespaces {
			if key := (informerKey{gvk, ns, ""}); !w.started[key] {
				w.started[key] = true
				w.start(key, m.Resource)
			}
		}
	}
}

// start runs one informer until the watcher's context ends, or until the
// apiserver refuses this identity the list or watch.
func (w *watcher) start(key informerKey, gvr schema.GroupVersionResource) {
	ctx, cancel := context.WithCancel(w.ctx)
	inf := newInformer(w.dyn, gvr, key.ns, key.name)
	kind := key.gvk.Kind
	where := key.ns
	if where == "" {
		where = "all namespaces"
	}
	named := key.name != ""
	// kv are the log fields naming what this informer watches.
	kv := []any{"kind", gvkString(key.gvk), "namespace", where}
	if named {
		kv = append(kv, "name", key.name)
	}
	inf.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
		if apierrors.IsForbidden(err) {
			w.log("watch_forbidden", append(kv, "error", err.Error())...)
			cancel()
			return
		}
		cache.DefaultWatchErrorHandler(ctx, r, err)
	})
	inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			if !initial {
				w.notify(kind)
			}
		},
		UpdateFunc: func(old, cur any) {
			if w.matters(kind, named, old, cur) {
				w.notify(kind)
			}
		},
		DeleteFunc: func(any) { w.notify(kind) },
	})
	go inf.RunWithContext(ctx)
	// watch_started is logged once the initial list is in: from then on
	// every change starts a cycle. (Objects of that list are not changes.)
	go func() {
		if cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			w.log("watch_started", append(kv, "resource", gvr.Resource)...)
		}
	}()
}

// newInformer returns an informer of the objects of gvr in namespace (""
// for all), or of the one named name when it is not empty, without resync
// or indexes.
func newInformer(dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace, name string) cache.SharedIndexInformer {
	res := dyn.Resource(gvr).Namespace(namespace)
	only := func(opts *metav1.ListOptions) {
		if name != "" {
			opts.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		}
	}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			only(&opts)
			return res.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			only(&opts)
			return res.Watch(ctx, opts)
		},
	}
	return cache.NewSharedIndexInformerWithOptions(cache.ToListWatcherWithWatchListSemantics(lw, dyn),
		&unstructured.Unstructured{}, cache.SharedIndexInformerOptions{ObjectDescription: gvr.String()})
}

// matters reports whether an update should start a cycle (see watcher).
func (w *watcher) matters(kind string, named bool, old, cur any) bool {
	o, ok1 := old.(*unstructured.Unstructured)
	n, ok2 := cur.(*unstructured.Unstructured)
	if !ok1 || !ok2 {
		return true
	}
	if o.GetResourceVersion() == n.GetResourceVersion() {
		return false // a resync, not a change
	}
	if !equality.Semantic.DeepEqual(stripVolatile(o.Object), stripVolatile(n.Object)) {
		return true
	}
	statusChanged := !equality.Semantic.DeepEqual(o.Object["status"], n.Object["status"])
	return statusChanged && (named || w.statusKinds[kind])
}

// stripVolatile copies an object without the fields that change on every
// write or belong to status.
func stripVolatile(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "status" {
			out[k] = v
		}
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		m := make(map[string]any, len(md))
		for k, v := range md {
			switch k {
			case "resourceVersion", "managedFields", "generation":
			default:
				m[k] = v
			}
		}
		out["metadata"] = m
	}
	return out
}

func gvkString(gvk schema.GroupVersionKind) string {
	return gvk.GroupVersion().String() + "/" + gvk.Kind
}
