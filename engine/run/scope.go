package run

import (
	"sync"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
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
	// hostvars builds the `hostvars` magic variable on first use.
	hostvars func() *value.Dict
	// static caches which templated entries hold no template.
	static *staticCache
	// deprecated is told when a deprecated magic variable is read.
	deprecated func(name string)
	// merge is hash_behaviour=merge: a dict merges with the dicts of the
	// same name in lower layers instead of hiding them.
	merge bool
}

// deprecatedVars are magic variables ansible-core 2.19 deprecates, with
// the help text it shows.
var deprecatedVars = map[string]string{"play_hosts": "Use `ansible_play_batch` instead."}

func (s *scope) add(d *value.Dict, templated bool) {
	if d != nil && d.Len() > 0 {
		s.layers = append(s.layers, layer{d: d, templated: templated})
	}
}

// addLevel adds dicts that ansible-core joins into one precedence level
// by plain replacement (the vars of a task and its blocks): under
// hash_behaviour=merge they are collapsed first, so that only different
// levels merge.
func (s *scope) addLevel(ds []*value.Dict, templated bool) {
	if !s.merge {
		for _, d := range ds {
			s.add(d, templated)
		}
		return
	}
	level := value.NewDict(0)
	for _, d := range ds {
		level = playbook.CombineVars(level, d, false)
	}
	s.add(level, templated)
}

// Lookup implements template.Vars. A value from a playbook source that
// holds no template at all is returned as plain data, so that large
// static variables are not walked on every use.
func (s *scope) Lookup(name string) (any, bool, bool) {
	if _, dep := deprecatedVars[name]; dep && s.deprecated != nil {
		s.deprecated(name)
	}
	for i := len(s.layers) - 1; i >= 0; i-- {
		if v, ok := s.layers[i].d.Get(name); ok {
			templated := s.layers[i].templated
			if d, isDict := v.(*value.Dict); isDict && s.merge {
				return s.mergedLookup(name, i, d)
			}
			if templated && s.static.static(s.layers[i].d, name, v) {
				templated = false
			}
			return v, templated, true
		}
	}
	switch name {
	case "vars":
		return s.flatten(), true, true
	case "hostvars":
		if s.hostvars != nil {
			return s.hostvars(), true, true
		}
	}
	return nil, false, false
}

// mergedLookup is Lookup under hash_behaviour=merge for a dict found in
// layer top: the dicts of the same name below it, down to the first
// value that is not a dict, merged recursively, higher layers winning.
// The result is rendered on use if any part may hold templates.
func (s *scope) mergedLookup(name string, top int, d *value.Dict) (any, bool, bool) {
	parts := []*value.Dict{d}
	templated := s.layers[top].templated
	for i := top - 1; i >= 0; i-- {
		v, ok := s.layers[i].d.Get(name)
		if !ok {
			continue
		}
		low, isDict := v.(*value.Dict)
		if !isDict {
			break
		}
		parts = append(parts, low)
		templated = templated || s.layers[i].templated
	}
	merged := parts[len(parts)-1]
	for i := len(parts) - 2; i >= 0; i-- {
		merged = value.MergeHash(merged, parts[i], true, "replace")
	}
	return merged, templated, true
}

// Origin implements template.Origins: where the value of name (or the
// element at path inside it) was written, from the loader's records.
func (s *scope) Origin(name string, path []any) (value.Pos, bool) {
	for i := len(s.layers) - 1; i >= 0; i-- {
		v, ok := s.layers[i].d.Get(name)
		if !ok {
			continue
		}
		pos, known := playbook.OriginOf(s.layers[i].d, name)
		for _, step := range path {
			switch c := v.(type) {
			case *value.Dict:
				k := value.Str(step)
				e, ok := c.Get(k)
				if !ok {
					return value.Pos{}, false
				}
				pos, known = playbook.OriginOf(c, k)
				v = e
			case []any:
				n, ok := value.AsInt(step)
				if !ok || n < 0 || n >= len(c) {
					return value.Pos{}, false
				}
				v = c[n]
			default:
				return value.Pos{}, false
			}
		}
		return pos, known
	}
	return value.Pos{}, false
}

// with returns a copy of s with an extra top layer.
func (s *scope) with(d *value.Dict, templated bool) *scope {
	if d == nil {
		return s
	}
	n := &scope{layers: make([]layer, len(s.layers), len(s.layers)+1), hostvars: s.hostvars, static: s.static, deprecated: s.deprecated, merge: s.merge}
	copy(n.layers, s.layers)
	n.layers = append(n.layers, layer{d: d, templated: templated})
	return n
}

// flatten merges every layer into one dict (for hostvars and `vars`).
func (s *scope) flatten() *value.Dict {
	out := value.NewDict(32)
	for _, l := range s.layers {
		if s.merge {
			out = playbook.CombineVars(out, l.d, true)
			continue
		}
		l.d.Each(func(k string, v any) bool { out.Set(k, v); return true })
	}
	return out
}

// staticCache remembers, for one run, which layer entries hold no
// template: per layer dict and name, the verdict and the identity of the
// value it was computed for (an entry replaced later is re-checked).
type staticCache struct {
	mu sync.Mutex
	m  map[*value.Dict]map[string]staticEntry
}

type staticEntry struct {
	id     any
	static bool
}

// identity is a cheap identity of a container value.
func identity(v any) any {
	switch x := v.(type) {
	case *value.Dict:
		return x
	case []any:
		if len(x) == 0 {
			return nil
		}
		return [2]any{&x[0], len(x)}
	}
	return nil
}

func (c *staticCache) static(d *value.Dict, name string, v any) bool {
	id := identity(v)
	if c == nil || id == nil {
		return isStatic(v)
	}
	c.mu.Lock()
	if e, ok := c.m[d][name]; ok && e.id == id {
		c.mu.Unlock()
		return e.static
	}
	c.mu.Unlock()
	st := isStatic(v)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[*value.Dict]map[string]staticEntry{}
	}
	if c.m[d] == nil {
		c.m[d] = map[string]staticEntry{}
	}
	c.m[d][name] = staticEntry{id: id, static: st}
	c.mu.Unlock()
	return st
}

// isStatic reports whether v holds no template markers anywhere.
func isStatic(v any) bool {
	return staticShared(v, nil)
}

// staticShared is isStatic remembering the containers already found
// static in *seen, so that a container met again (a YAML alias shares its
// anchor's value) is walked once.
func staticShared(v any, seen *map[any]bool) bool {
	id := identity(v)
	if id != nil && seen != nil && (*seen)[id] {
		return true
	}
	switch x := v.(type) {
	case string:
		return !template.HasMarkers(x)
	case *value.Dict:
		if seen == nil {
			seen = &map[any]bool{}
		}
		ok := true
		x.Each(func(k string, e any) bool {
			ok = !template.HasMarkers(k) && staticShared(e, seen)
			return ok
		})
		if ok {
			(*seen)[id] = true
		}
		return ok
	case []any:
		if seen == nil {
			seen = &map[any]bool{}
		}
		for _, e := range x {
			if !staticShared(e, seen) {
				return false
			}
		}
		if id != nil {
			(*seen)[id] = true
		}
		return true
	case value.Unsafe:
		return false
	}
	return true
}
