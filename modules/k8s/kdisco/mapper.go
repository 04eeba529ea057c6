package kdisco

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// staticMapper maps the kinds and resources of one snapshot.
type staticMapper struct {
	meta.RESTMapper
}

// RESTMapper returns a mapper over the snapshot's resources. Group
// versions that failed to load are left out. When several versions serve
// a kind and the caller names none, the core v1 group comes first, then
// each group's preferred version, then its other versions.
func (s *Snapshot) RESTMapper() meta.RESTMapper {
	s.mapperOnce.Do(func() { s.mapper = s.buildMapper() })
	return s.mapper
}

func (s *Snapshot) buildMapper() *staticMapper {
	var union meta.MultiRESTMapper
	kinds := []schema.GroupVersionKind{{Version: "v1", Kind: meta.AnyKind}}
	resources := []schema.GroupVersionResource{{Version: "v1", Resource: meta.AnyResource}}
	for _, g := range s.groups {
		for _, v := range g.versions {
			gv := schema.GroupVersion{Group: g.name, Version: v}
			r, ok := s.gvs[gv.String()]
			if !ok || r.err != nil {
				continue
			}
			kinds = append(kinds, gv.WithKind(meta.AnyKind))
			resources = append(resources, gv.WithResource(meta.AnyResource))
			m := meta.NewDefaultRESTMapper([]schema.GroupVersion{gv})
			for _, res := range r.resources {
				scope := meta.RESTScopeRoot
				if res.Namespaced {
					scope = meta.RESTScopeNamespace
				}
				plural := gv.WithResource(res.Name)
				singular := gv.WithResource(res.Singular)
				if res.Singular == "" {
					// Old servers do not list singular names: guess.
					_, singular = meta.UnsafeGuessKindToResource(gv.WithKind(res.Kind))
				}
				// The lower-case kind maps too; the kind is added last so
				// that resources map back to it.
				if lower := strings.ToLower(res.Kind); lower != res.Kind {
					m.AddSpecific(gv.WithKind(lower), plural, singular, scope)
				}
				m.AddSpecific(gv.WithKind(res.Kind), plural, singular, scope)
			}
			union = append(union, m)
		}
	}
	for _, g := range s.groups {
		kinds = append(kinds, schema.GroupVersionKind{Group: g.name, Version: meta.AnyVersion, Kind: meta.AnyKind})
		resources = append(resources, schema.GroupVersionResource{Group: g.name, Version: meta.AnyVersion, Resource: meta.AnyResource})
	}
	return &staticMapper{meta.PriorityRESTMapper{Delegate: union, KindPriority: kinds, ResourcePriority: resources}}
}

// Mapper is a meta.ResettableRESTMapper over a Client's current snapshot.
// With RefreshOnMiss, a kind or resource that is not found refreshes
// discovery once and is looked up again, so that a CRD installed after
// discovery was fetched is found.
type Mapper struct {
	Client        *Client
	RefreshOnMiss bool
}

var _ meta.ResettableRESTMapper = (*Mapper)(nil)

// Reset drops the client's cached discovery.
func (m *Mapper) Reset() { m.Client.Invalidate() }

func mapWith[T any](m *Mapper, f func(meta.RESTMapper) (T, error)) (T, error) {
	s, err := m.Client.Current()
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := f(s.RESTMapper())
	if err != nil && m.RefreshOnMiss && meta.IsNoMatchError(err) {
		if s, err = m.Client.Refresh(s); err != nil {
			var zero T
			return zero, err
		}
		v, err = f(s.RESTMapper())
	}
	return v, err
}

func (m *Mapper) KindFor(r schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	return mapWith(m, func(d meta.RESTMapper) (schema.GroupVersionKind, error) { return d.KindFor(r) })
}

func (m *Mapper) KindsFor(r schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	return mapWith(m, func(d meta.RESTMapper) ([]schema.GroupVersionKind, error) { return d.KindsFor(r) })
}

func (m *Mapper) ResourceFor(r schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	return mapWith(m, func(d meta.RESTMapper) (schema.GroupVersionResource, error) { return d.ResourceFor(r) })
}

func (m *Mapper) ResourcesFor(r schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	return mapWith(m, func(d meta.RESTMapper) ([]schema.GroupVersionResource, error) { return d.ResourcesFor(r) })
}

func (m *Mapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	return mapWith(m, func(d meta.RESTMapper) (*meta.RESTMapping, error) { return d.RESTMapping(gk, versions...) })
}

func (m *Mapper) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	return mapWith(m, func(d meta.RESTMapper) ([]*meta.RESTMapping, error) { return d.RESTMappings(gk, versions...) })
}

func (m *Mapper) ResourceSingularizer(resource string) (string, error) {
	return mapWith(m, func(d meta.RESTMapper) (string, error) { return d.ResourceSingularizer(resource) })
}
