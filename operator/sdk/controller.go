package sdk

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// key names one object to reconcile.
type key struct{ Namespace, Name string }

// Controller reconciles the objects of one watched kind: an informer per
// watched namespace feeds a rate-limited work queue (exponential backoff
// per object after failures, as controller-runtime's default), drained by
// Watch.MaxConcurrentReconciles workers.
type Controller struct {
	Watch *Watch
	// Resource is the watched kind's resource; Namespaced its scope.
	Resource   schema.GroupVersionResource
	Namespaced bool
	Env        *Env

	queue  workqueue.TypedRateLimitingInterface[key]
	stores map[string]cache.Store // by namespace ("" for all)
	deps   *dependents
}

// Env is what every controller of an operator shares.
type Env struct {
	Dyn    dynamic.Interface
	Mapper meta.RESTMapper
	Runner Runner
	// Namespaces are WATCH_NAMESPACE's (empty: all namespaces).
	Namespaces []string
	// ReconcilePeriod is --reconcile-period, for watches without one.
	ReconcilePeriod time.Duration
	// InjectOwner is --inject-owner-ref.
	InjectOwner bool
	Metrics     *Metrics
	Log         *Logger
	Level       LogLevel
	Now         func() time.Time
}

func (e *Env) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// namespaces lists the namespaces to watch a kind in ("" for all).
func (e *Env) namespaces(namespaced bool) []string {
	if !namespaced || len(e.Namespaces) == 0 {
		return []string{metav1.NamespaceAll}
	}
	return e.Namespaces
}

// watches reports whether objects of namespace ns are watched.
func (e *Env) watches(ns string) bool {
	if len(e.Namespaces) == 0 {
		return true
	}
	for _, n := range e.Namespaces {
		if n == ns {
			return true
		}
	}
	return false
}

// Run starts the informers and workers and blocks until ctx ends.
func (c *Controller) Run(ctx context.Context) {
	c.queue = workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[key](),
		workqueue.TypedRateLimitingQueueConfig[key]{Name: c.Watch.GVK.Kind})
	defer c.queue.ShutDown()
	c.deps = newDependents(c)
	c.deps.start(ctx)
	c.stores = map[string]cache.Store{}
	var synced []cache.InformerSynced
	for _, ns := range c.Env.namespaces(c.Namespaced) {
		inf := c.primaryInformer(ns)
		c.stores[ns] = inf.GetStore()
		synced = append(synced, inf.HasSynced)
		go inf.RunWithContext(ctx)
	}
	c.Env.Log.Info("controller", "Watching resource", "Options.Group", c.Watch.GVK.Group, "Options.Version", c.Watch.GVK.Version, "Options.Kind", c.Watch.GVK.Kind)
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return
	}
	workers := max(c.Watch.MaxConcurrentReconciles, 1)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c.work(ctx) {
			}
		}()
	}
	<-ctx.Done()
	c.queue.ShutDown()
	wg.Wait()
}

// work reconciles one queued object; it reports false once the queue is
// shut down.
func (c *Controller) work(ctx context.Context) bool {
	k, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(k)
	// A stop lets the running reconcile finish (the command bounds the
	// wait with --graceful-shutdown-timeout).
	requeue, err := c.reconcile(context.WithoutCancel(ctx), k)
	switch {
	case ctx.Err() != nil:
	case err != nil:
		c.queue.AddRateLimited(k)
	case requeue > 0:
		c.queue.Forget(k)
		c.queue.AddAfter(k, requeue)
	default:
		c.queue.Forget(k)
	}
	return true
}

// listWatch lists and watches a resource in a namespace ("" for all),
// narrowed by a label selector when one is given.
func listWatch(dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, selector string) *cache.ListWatch {
	res := dyn.Resource(gvr).Namespace(ns)
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			opts.LabelSelector = selector
			return res.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.LabelSelector = selector
			return res.Watch(ctx, opts)
		},
	}
}

func newInformer(lw *cache.ListWatch, what string) cache.SharedIndexInformer {
	return cache.NewSharedIndexInformerWithOptions(lw, &unstructured.Unstructured{},
		cache.SharedIndexInformerOptions{ObjectDescription: what})
}

// primaryInformer watches the kind in ns with the watch's selector and
// queues objects as ansible-operator's predicates do: every add and
// delete; updates that change metadata.generation, of objects without a
// generation, or (with watchAnnotationsChanges) of annotations.
func (c *Controller) primaryInformer(ns string) cache.SharedIndexInformer {
	sel := ""
	if s, err := metav1.LabelSelectorAsSelector(&c.Watch.Selector); err == nil && !s.Empty() {
		sel = s.String()
	}
	inf := newInformer(listWatch(c.Env.Dyn, c.Resource, ns, sel), c.Resource.String())
	inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.enqueue(obj) },
		DeleteFunc: func(obj any) { c.enqueue(obj) },
		UpdateFunc: func(old, cur any) {
			if c.updateMatters(old, cur) {
				c.enqueue(cur)
			}
		},
	})
	return inf
}

func (c *Controller) updateMatters(old, cur any) bool {
	o, ok1 := old.(*unstructured.Unstructured)
	n, ok2 := cur.(*unstructured.Unstructured)
	if !ok1 || !ok2 {
		return true
	}
	if n.GetGeneration() == 0 || o.GetGeneration() != n.GetGeneration() {
		return true
	}
	if !c.Watch.WatchAnnotationsChanges {
		return false
	}
	oa, na := o.GetAnnotations(), n.GetAnnotations()
	if len(oa) != len(na) {
		return true
	}
	for k, v := range oa {
		if nv, ok := na[k]; !ok || nv != v {
			return true
		}
	}
	return false
}

func (c *Controller) enqueue(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		c.queue.Add(key{u.GetNamespace(), u.GetName()})
	}
}

// cached returns the informer's copy of an object, or nil.
func (c *Controller) cached(k key) *unstructured.Unstructured {
	ns := metav1.NamespaceAll
	if c.Namespaced && len(c.Env.Namespaces) > 0 {
		ns = k.Namespace
	}
	store := c.stores[ns]
	if store == nil {
		return nil
	}
	id := k.Name
	if k.Namespace != "" {
		id = k.Namespace + "/" + k.Name
	}
	obj, ok, err := store.GetByKey(id)
	if err != nil || !ok {
		return nil
	}
	u, _ := obj.(*unstructured.Unstructured)
	return u
}
