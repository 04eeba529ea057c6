package playbook

import (
	"runtime"
	"sync"
	"weak"

	"github.com/cfzt/cfzt-runner/engine/value"
	"gopkg.in/yaml.v3"
)

// Origins remember where the values of YAML mappings were written, so
// that messages such as 2.19's broken-conditional error can name the
// source of a variable's value. Entries go away with their dict.
var origins sync.Map // weak.Pointer[value.Dict] -> map[string]value.Pos

// SetOrigin records the source position of d[key].
func SetOrigin(d *value.Dict, key string, pos value.Pos) {
	setOrigin(d, key, pos, value.Pos{})
}

func setOrigin(d *value.Dict, key string, pos, keyPos value.Pos) {
	if d == nil || pos.IsZero() {
		return
	}
	wp := weak.Make(d)
	m, loaded := origins.Load(wp)
	if !loaded {
		var fresh any
		fresh, loaded = origins.LoadOrStore(wp, &originMap{pos: map[string]value.Pos{}})
		m = fresh
		if !loaded {
			runtime.AddCleanup(d, func(wp weak.Pointer[value.Dict]) { origins.Delete(wp) }, wp)
		}
	}
	om := m.(*originMap)
	om.mu.Lock()
	om.pos[key] = pos
	if !keyPos.IsZero() {
		if om.keys == nil {
			om.keys = map[string]value.Pos{}
		}
		om.keys[key] = keyPos
	}
	om.mu.Unlock()
}

type originMap struct {
	mu  sync.Mutex
	pos map[string]value.Pos
	// keys are where the keys themselves were written.
	keys map[string]value.Pos
}

// KeyOriginOf returns where the key k of d was written.
func KeyOriginOf(d *value.Dict, key string) (value.Pos, bool) {
	return lookupOrigin(d, func(om *originMap) map[string]value.Pos { return om.keys }, key)
}

// OriginOf returns the recorded source position of d[key].
func OriginOf(d *value.Dict, key string) (value.Pos, bool) {
	return lookupOrigin(d, func(om *originMap) map[string]value.Pos { return om.pos }, key)
}

// lookupOrigin finds key in the positions table of d that which selects.
func lookupOrigin(d *value.Dict, which func(*originMap) map[string]value.Pos, key string) (value.Pos, bool) {
	if d == nil {
		return value.Pos{}, false
	}
	m, ok := origins.Load(weak.Make(d))
	if !ok {
		return value.Pos{}, false
	}
	om := m.(*originMap)
	om.mu.Lock()
	defer om.mu.Unlock()
	p, ok := which(om)[key]
	return p, ok
}

// RecordOrigins walks a YAML node and the value loaded from it, recording
// the position of every mapping value. An anchored node is walked once:
// its aliases share its value (value.FromYAML), whose origins are those of
// the anchor.
func RecordOrigins(file string, n *yaml.Node, v any) {
	recordOrigins(file, n, v, nil)
}

func recordOrigins(file string, n *yaml.Node, v any, seen map[*yaml.Node]bool) map[*yaml.Node]bool {
	if n == nil {
		return seen
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Anchor != "" {
		if seen[n] {
			return seen
		}
		if seen == nil {
			seen = map[*yaml.Node]bool{}
		}
		seen[n] = true
	}
	switch x := v.(type) {
	case *value.Dict:
		if n.Kind != yaml.MappingNode {
			return seen
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, vn := n.Content[i], n.Content[i+1]
			e, ok := x.Get(k.Value)
			if !ok {
				continue
			}
			setOrigin(x, k.Value, value.NodePos(file, vn), value.NodePos(file, k))
			seen = recordOrigins(file, vn, e, seen)
		}
	case []any:
		if n.Kind != yaml.SequenceNode || len(n.Content) != len(x) {
			return seen
		}
		for i, e := range x {
			seen = recordOrigins(file, n.Content[i], e, seen)
		}
	}
	return seen
}
