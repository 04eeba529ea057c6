package kubetest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
)

// FieldManager is the server-side apply field manager used by ApplyYAML.
const FieldManager = "kubetest"

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

type clients struct {
	dynamic   dynamic.Interface
	discovery discovery.DiscoveryInterface
	mapper    meta.ResettableRESTMapper
}

func (c *Cluster) adminClients() (*clients, error) {
	c.clientsOnce.Do(func() {
		dc, err := discovery.NewDiscoveryClientForConfig(c.AdminConfig)
		if err != nil {
			c.clientsErr = err
			return
		}
		dyn, err := dynamic.NewForConfig(c.AdminConfig)
		if err != nil {
			c.clientsErr = err
			return
		}
		c.clients = &clients{
			dynamic:   dyn,
			discovery: dc,
			mapper:    restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)),
		}
	})
	return c.clients, c.clientsErr
}

// Dynamic returns a dynamic client authenticated as admin.
func (c *Cluster) Dynamic() (dynamic.Interface, error) {
	cl, err := c.adminClients()
	if err != nil {
		return nil, err
	}
	return cl.dynamic, nil
}

// RESTMapper returns the discovery-backed RESTMapper that ApplyYAML uses.
// Call Reset on it after installing a CRD (WaitForCRD does that).
func (c *Cluster) RESTMapper() (meta.ResettableRESTMapper, error) {
	cl, err := c.adminClients()
	if err != nil {
		return nil, err
	}
	return cl.mapper, nil
}

// ApplyYAML applies every document of a multi-document YAML (or JSON) stream
// as admin with server-side apply (field manager "kubetest", forcing
// conflicts), in order. Namespaced objects without a namespace go to
// "default". A CustomResourceDefinition is waited for (WaitForCRD) before
// the next document, so a stream may define a CRD and then use it.
func (c *Cluster) ApplyYAML(ctx context.Context, yaml string) error {
	cl, err := c.adminClients()
	if err != nil {
		return err
	}
	objs, err := decodeYAML(yaml)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if err := c.applyOne(ctx, cl, obj); err != nil {
			return fmt.Errorf("kubetest: applying %s %s: %w", obj.GetKind(), objectName(obj), err)
		}
		if obj.GroupVersionKind().GroupKind() == (schema.GroupKind{Group: crdGVR.Group, Kind: "CustomResourceDefinition"}) {
			if err := c.WaitForCRD(ctx, obj.GetName()); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Cluster) applyOne(ctx context.Context, cl *clients, obj *unstructured.Unstructured) error {
	gvk := obj.GroupVersionKind()
	mapping, err := cl.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		// The kind may have been installed since discovery was cached,
		// and discovery may lag a CRD becoming established by a moment.
		deadline := time.Now().Add(10 * time.Second)
		for meta.IsNoMatchError(err) && time.Now().Before(deadline) {
			cl.mapper.Reset()
			if mapping, err = cl.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err == nil {
				break
			}
			if err := sleep(ctx, 200*time.Millisecond); err != nil {
				return err
			}
		}
	}
	if err != nil {
		return err
	}
	var ri dynamic.ResourceInterface = cl.dynamic.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := obj.GetNamespace()
		if ns == "" {
			ns = metav1.NamespaceDefault
			obj.SetNamespace(ns)
		}
		ri = cl.dynamic.Resource(mapping.Resource).Namespace(ns)
	}
	_, err = ri.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
	return err
}

// WaitForCRD waits until the CustomResourceDefinition name (for example
// "widgets.example.com") is Established and its served versions appear in
// discovery, then resets the RESTMapper returned by RESTMapper. Other
// RESTMappers must be reset by their owners.
func (c *Cluster) WaitForCRD(ctx context.Context, name string) error {
	cl, err := c.adminClients()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()

	var state string
	for {
		ok, s, err := crdReady(ctx, cl, name)
		if ok {
			cl.mapper.Reset()
			return nil
		}
		state = s
		if err != nil {
			state = err.Error()
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return fmt.Errorf("kubetest: CRD %s not ready: %s: %w", name, state, err)
		}
	}
}

// crdReady reports whether the CRD is Established and discoverable; the
// string says what is missing.
func crdReady(ctx context.Context, cl *clients, name string) (bool, string, error) {
	crd, err := cl.dynamic.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return false, "not found", nil
		}
		return false, "", err
	}
	if !conditionTrue(crd, "Established") {
		return false, "not Established", nil
	}
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		vname, _, _ := unstructured.NestedString(vm, "name")
		served, _, _ := unstructured.NestedBool(vm, "served")
		if !served {
			continue
		}
		gv := schema.GroupVersion{Group: group, Version: vname}.String()
		list, err := cl.discovery.ServerResourcesForGroupVersion(gv)
		if err != nil {
			return false, gv + " not in discovery", nil
		}
		if !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == plural }) {
			return false, gv + "/" + plural + " not in discovery", nil
		}
	}
	return true, "", nil
}

func conditionTrue(obj *unstructured.Unstructured, typ string) bool {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		cm, _ := c.(map[string]any)
		if cm["type"] == typ && cm["status"] == "True" {
			return true
		}
	}
	return false
}

// decodeYAML splits a multi-document YAML or JSON stream into objects,
// skipping empty documents and expanding kind List.
func decodeYAML(s string) ([]*unstructured.Unstructured, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(s)))
	var out []*unstructured.Unstructured
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("kubetest: reading YAML: %w", err)
		}
		js, err := utilyaml.ToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("kubetest: parsing YAML: %w", err)
		}
		if t := strings.TrimSpace(string(js)); t == "" || t == "null" || t == "{}" {
			continue
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(js); err != nil {
			return nil, fmt.Errorf("kubetest: decoding object: %w", err)
		}
		if obj.IsList() {
			err := obj.EachListItem(func(o runtime.Object) error {
				u, ok := o.(*unstructured.Unstructured)
				if !ok {
					return fmt.Errorf("unexpected list item %T", o)
				}
				out = append(out, u)
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("kubetest: decoding list: %w", err)
			}
			continue
		}
		out = append(out, obj)
	}
}

func objectName(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
