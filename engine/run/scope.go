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
	// templated marks values from trusted sources (playbooks, roles,
	// vars files, inventory, extra vars), rendered on use. The values of
	// other layers are data (module results, registered output, facts,
	// magic variables), never rendered; where the two kinds meet in one
	// value (`vars`, `hostvars`, hash_behaviour=merge), the data is
	// wrapped in value.Untrusted.
	templated bool
	// trustedNames, in a data layer, names the values that are trusted
	// strings without templates all the same (set_fact's literals).
	trustedNames map[string]bool
}

// scope is the variable view of one task on one host: layers from lowest
// to highest precedence, flattened only at lookup time.
type scope struct {
	layers []layer
	// hostvars builds the `hostvars` magic variable on first use;
	// hostOrigin says where hostvars[host][name] (at path) was written.
	hostvars   func() *value.Dict
	hostOrigin func(host, name string, path []any) (value.Pos, bool)
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

// addData adds a data layer in which the values named by trusted are
// trusted strings (see layer.trustedNames).
func (s *scope) addData(d *value.Dict, trusted map[string]bool) {
	if d != nil && d.Len() > 0 {
		s.layers = append(s.layers, layer{d: d, trustedNames: trusted})
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
	trusted := []bool{s.layers[top].templated}
	templated, data := trusted[0], !trusted[0]
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
		trusted = append(trusted, s.layers[i].templated)
		templated = templated || s.layers[i].templated
		data = data || !s.layers[i].templated
	}
	if templated && data {
		// The merged dict is rendered on use: the parts from data keep
		// their mark, key by key.
		for i, t := range trusted {
			if !t {
				parts[i] = value.UntrustedLeaves(parts[i])
			}
		}
	}
	merged := parts[len(parts)-1]
	for i := len(parts) - 2; i >= 0; i-- {
		merged = value.MergeHash(merged, parts[i], true, "replace")
	}
	return merged, templated, true
}

// Trusted implements template.Trust: whether the value of name comes
// from a trusted layer (parts of it may still be marked as data).
func (s *scope) Trusted(name string) bool {
	for i := len(s.layers) - 1; i >= 0; i-- {
		v, ok := s.layers[i].d.Get(name)
		if !ok {
			continue
		}
		if d, isDict := v.(*value.Dict); isDict && s.merge {
			// A merge with trusted dicts is a trusted view whose data
			// is marked.
			_, templated, _ := s.mergedLookup(name, i, d)
			return templated
		}
		return s.layers[i].templated || s.layers[i].trustedNames[name]
	}
	return name == "vars" || name == "hostvars" && s.hostvars != nil
}

// Origin implements template.Origins: where the value of name (or the
// element at path inside it) was written, from the loader's records.
func (s *scope) Origin(name string, path []any) (value.Pos, bool) {
	ds := make([]*value.Dict, len(s.layers))
	for i, l := range s.layers {
		ds[i] = l.d
	}
	if pos, known := originIn(ds, name, path); known {
		return pos, true
	}
	switch {
	case name == "vars" && len(path) > 0:
		if k, isStr := path[0].(string); isStr {
			return s.Origin(k, path[1:])
		}
	case name == "hostvars" && len(path) > 1 && s.hostOrigin != nil:
		h, isStr := path[0].(string)
		k, keyStr := path[1].(string)
		if isStr && keyStr {
			return s.hostOrigin(h, k, path[2:])
		}
	}
	return value.Pos{}, false
}

// originIn is where the value of name (or the element at path inside it)
// in the highest of layers that has it was written.
func originIn(layers []*value.Dict, name string, path []any) (value.Pos, bool) {
	for i := len(layers) - 1; i >= 0; i-- {
		v, ok := layers[i].Get(name)
		if !ok {
			continue
		}
		pos, known := playbook.OriginOf(layers[i], name)
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
			case value.Untrusted:
				return originIn([]*value.Dict{value.DictOf("v", c.V)}, "v", path)
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
	n := &scope{layers: make([]layer, len(s.layers), len(s.layers)+1), hostvars: s.hostvars, hostOrigin: s.hostOrigin, static: s.static, deprecated: s.deprecated, merge: s.merge}
	copy(n.layers, s.layers)
	n.layers = append(n.layers, layer{d: d, templated: templated})
	return n
}

// withData returns a copy of s with an extra top data layer, in which
// the values trusted names are trusted strings (see layer.trustedNames).
func (s *scope) withData(d *value.Dict, trusted map[string]bool) *scope {
	n := s.with(d, false)
	if n != s && trusted != nil {
		n.layers[len(n.layers)-1].trustedNames = trusted
	}
	return n
}

// flatten merges every layer into one dict (for `vars`), which is
// rendered on use: the values of data layers are marked as data.
func (s *scope) flatten() *value.Dict {
	return flattenLayers(s.layers, s.merge)
}

// flattenLayers merges layers, lowest first, into one dict that is
// rendered on use, marking the values of data layers value.Untrusted.
func flattenLayers(layers []layer, merge bool) *value.Dict {
	out := value.NewDict(32)
	for _, l := range layers {
		if merge {
			d := l.d
			if !l.templated {
				d = value.UntrustedLeaves(d)
			}
			out = playbook.CombineVars(out, d, true)
			continue
		}
		if l.templated {
			l.d.Each(func(k string, v any) bool { out.Set(k, v); return true })
		} else {
			l.d.Each(func(k string, v any) bool {
				if l.trustedNames[k] {
					out.Set(k, v)
				} else {
					out.Set(k, value.Untrusted{V: v})
				}
				return true
			})
		}
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
	case value.Unsafe, value.Untrusted, value.Vaulted:
		// Not static: resolving removes the mark (or decrypts).
		return false
	}
	return true
}
