package sdk

import (
	"context"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/cfzt/cfzt-runner/modules/k8s"
)

// dependents are the watches on the kinds a controller's runs created,
// started the first time a run creates an object of a kind (as
// ansible-operator's proxy starts them). A change to a dependent queues
// its owner: found through an ownerReference to the watched kind, or the
// operator-sdk/primary-resource annotations.
type dependents struct {
	c       *Controller
	ctx     context.Context
	mu      sync.Mutex
	started map[schema.GroupVersionKind]bool
}

func newDependents(c *Controller) *dependents {
	return &dependents{c: c, started: map[schema.GroupVersionKind]bool{}}
}

// start sets the context dependent informers run in.
func (d *dependents) start(ctx context.Context) {
	d.mu.Lock()
	d.ctx = ctx
	d.mu.Unlock()
}

// created is k8s.Owner.Created: it starts watching the kind of an object a
// run created, unless dependents are not watched, the kind is
// blacklisted, its namespace is not watched, or (owner in annotations) it
// is cluster-scoped without watchClusterScopedResources.
func (d *dependents) created(apiVersion, kind, namespace string, byRef bool) {
	w := d.c.Watch
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || !w.WatchDependentResources {
		return
	}
	gvk := gv.WithKind(kind)
	for _, b := range w.Blacklist {
		if b == gvk {
			return
		}
	}
	if !d.c.Env.watches(namespace) && !(namespace == "" && len(d.c.Env.Namespaces) == 0) {
		return
	}
	if !byRef && namespace == "" && !w.WatchClusterScopedResources {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.started[gvk] || d.ctx == nil {
		return
	}
	m, err := d.c.Env.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return
	}
	d.started[gvk] = true
	namespaced := m.Scope.Name() == meta.RESTScopeNameNamespace
	d.c.Env.Log.Info("proxy", "Watching child resource", "kind", gvk.String(), "enqueue_kind", w.GVK.String())
	for _, ns := range d.c.Env.namespaces(namespaced) {
		inf := newInformer(listWatch(d.c.Env.Dyn, m.Resource, ns, ""), m.Resource.String())
		inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			UpdateFunc: func(old, cur any) {
				if dependentChanged(old, cur) {
					d.enqueueOwners(cur)
				}
			},
			DeleteFunc: d.enqueueOwners,
		})
		go inf.RunWithContext(d.ctx)
	}
}

// dependentChanged is operator-sdk's DependentPredicate for updates:
// anything but status and resourceVersion changed.
func dependentChanged(old, cur any) bool {
	o, ok1 := old.(*unstructured.Unstructured)
	n, ok2 := cur.(*unstructured.Unstructured)
	if !ok1 || !ok2 {
		return true
	}
	strip := func(u *unstructured.Unstructured) map[string]any {
		c := u.DeepCopy()
		delete(c.Object, "status")
		c.SetResourceVersion("")
		return c.Object
	}
	return !equality.Semantic.DeepEqual(strip(o), strip(n))
}

// enqueueOwners queues the watched objects that own obj.
func (d *dependents) enqueueOwners(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	w := d.c.Watch
	for _, ref := range u.GetOwnerReferences() {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil || ref.Kind != w.GVK.Kind || gv.Group != w.GVK.Group {
			continue
		}
		ns := u.GetNamespace()
		if !d.c.Namespaced {
			ns = ""
		}
		d.c.queue.Add(key{ns, ref.Name})
	}
	ann := u.GetAnnotations()
	typ := w.GVK.Kind
	if w.GVK.Group != "" {
		typ += "." + w.GVK.Group
	}
	if ann[k8s.AnnotationPrimaryResourceType] == typ {
		ns, name, found := strings.Cut(ann[k8s.AnnotationPrimaryResource], "/")
		if !found {
			ns, name = metav1.NamespaceNone, ns
		}
		d.c.queue.Add(key{ns, name})
	}
}
