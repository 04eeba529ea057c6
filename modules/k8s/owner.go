package k8s

import (
	"context"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Owner is the object a run works for. An operator (see operator/sdk)
// attaches it to the run's context with WithOwner; every object the k8s
// module then creates carries a reference to it, as ansible-operator's
// API proxy adds one to every object its roles create (--inject-owner-ref).
type Owner struct {
	APIVersion, Kind, Name, Namespace, UID string
	// ClusterScoped is true when the owner's kind is cluster-scoped.
	ClusterScoped bool
	// Created, when not nil, is told of every object created on the
	// owner's behalf (to watch dependent kinds); byReference is false
	// when the owner was recorded in annotations instead.
	Created func(apiVersion, kind, namespace string, byReference bool)
}

// The annotations that name an owner a reference cannot point to (an
// object in another namespace, or cluster-scoped under a namespaced
// owner), as operator-sdk's handler library writes them.
const (
	AnnotationPrimaryResource     = "operator-sdk/primary-resource"
	AnnotationPrimaryResourceType = "operator-sdk/primary-resource-type"
)

type ownerKey struct{}

// WithOwner returns a context whose k8s creates are owned by o.
func WithOwner(ctx context.Context, o *Owner) context.Context {
	return context.WithValue(ctx, ownerKey{}, o)
}

func ownerFrom(ctx context.Context) *Owner {
	o, _ := ctx.Value(ownerKey{}).(*Owner)
	return o
}

// injectOwner records the run's owner, if any, in a definition about to
// be created in namespace: an ownerReference when the owner is
// cluster-scoped or both live in the same namespace, the primary-resource
// annotations otherwise. Virtual resources (reviews and other kinds that
// cannot be read back) get neither, as ansible-operator's proxy leaves
// them alone.
func (s *service) injectOwner(res *apiResource, def *value.Dict, namespace string) {
	o := ownerFrom(s.ctx)
	if o == nil || res.virtual() {
		return
	}
	md, ok := def.Get("metadata")
	meta, isDict := md.(*value.Dict)
	if !ok || !isDict {
		meta = value.NewDict(2)
	} else {
		meta = meta.Copy()
	}
	def.Set("metadata", meta)
	byRef := o.ClusterScoped || (res.Namespaced && namespace == o.Namespace)
	if byRef {
		refs, _ := meta.Get("ownerReferences")
		list, _ := refs.([]any)
		ref := value.DictOf("apiVersion", o.APIVersion, "kind", o.Kind, "name", o.Name, "uid", o.UID)
		meta.Set("ownerReferences", append(append([]any{}, list...), ref))
	} else {
		ann, _ := meta.Get("annotations")
		a, isDict := ann.(*value.Dict)
		if !isDict {
			a = value.NewDict(2)
		} else {
			a = a.Copy()
		}
		group := o.APIVersion
		if i := strings.Index(group, "/"); i >= 0 {
			group = group[:i]
		} else {
			group = ""
		}
		typ := o.Kind
		if group != "" {
			typ += "." + group
		}
		a.Set(AnnotationPrimaryResource, o.Namespace+"/"+o.Name)
		a.Set(AnnotationPrimaryResourceType, typ)
		meta.Set("annotations", a)
	}
	if o.Created != nil {
		o.Created(res.GroupVersion, res.Kind, namespace, byRef)
	}
}

// virtual reports whether a resource is virtual as ansible-operator's
// proxy decides it: discovery does not list all of get, list and watch
// for it (SelfSubjectAccessReview, TokenReview and the like only take
// create), so there is no object to own or watch.
func (res *apiResource) virtual() bool {
	for _, need := range []string{"get", "list", "watch"} {
		found := false
		for _, v := range res.Verbs {
			if v == need {
				found = true
				break
			}
		}
		if !found {
			return true
		}
	}
	return false
}
