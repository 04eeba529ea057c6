package run

import (
	"github.com/cfzt/cfzt-runner/engine/value"
)

// layer is one level of Ansible's variable precedence.
type layer struct {
	d *value.Dict
	// templated marks values from playbook sources, rendered on use.
	templated bool
}

// scope is the variable view of one task on one host: layers from lowest
// to highest precedence, flattened only at lookup time.
type scope struct {
	layers []layer
}

func (s *scope) add(d *value.Dict, templated bool) {
	if d != nil && d.Len() > 0 {
		s.layers = append(s.layers, layer{d: d, templated: templated})
	}
}

// Lookup implements template.Vars.
func (s *scope) Lookup(name string) (any, bool, bool) {
	for i := len(s.layers) - 1; i >= 0; i-- {
		if v, ok := s.layers[i].d.Get(name); ok {
			return v, s.layers[i].templated, true
		}
	}
	return nil, false, false
}

// with returns a copy of s with an extra top layer.
func (s *scope) with(d *value.Dict, templated bool) *scope {
	n := &scope{layers: make([]layer, len(s.layers), len(s.layers)+1)}
	copy(n.layers, s.layers)
	n.add(d, templated)
	return n
}

// flatten merges every layer into one dict (for hostvars and `vars`).
func (s *scope) flatten() *value.Dict {
	out := value.NewDict(32)
	for _, l := range s.layers {
		l.d.Each(func(k string, v any) bool { out.Set(k, v); return true })
	}
	return out
}
