// Package value is cfzt-runner's model of Python values as Ansible sees them:
// None (nil), bool, int, float64, string, []any (list), Tuple, *Dict (an
// insertion-ordered dict), plus the template-only Undefined and Omit markers.
// Every other package exchanges data in this model, so that ordering, repr
// and equality behave the way they do in Python.
package value

// Dict is an insertion-ordered mapping with string keys, like a Python dict
// loaded from YAML or JSON.
type Dict struct {
	keys []string
	m    map[string]any
	// typed holds the original key of entries whose key is not a string
	// (YAML's `1:` or `on:`), under the key's str() form.
	typed map[string]any
	// pyType names a mapping type other than dict (see SetTypeName).
	pyType string
}

// SetTypeName makes d report itself as the Python mapping type name in
// messages and type_debug, e.g. "HostVarsVars" for hostvars['host'].
// Copies are plain dicts again.
func (d *Dict) SetTypeName(name string) { d.pyType = name }

// NewDict returns an empty Dict with room for n keys.
func NewDict(n int) *Dict {
	return &Dict{keys: make([]string, 0, n), m: make(map[string]any, n)}
}

// DictOf builds a Dict from alternating key, value arguments.
func DictOf(kv ...any) *Dict {
	d := NewDict(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		d.Set(kv[i].(string), kv[i+1])
	}
	return d
}

// Len returns the number of keys.
func (d *Dict) Len() int {
	if d == nil {
		return 0
	}
	return len(d.keys)
}

// Get returns the value stored under k.
func (d *Dict) Get(k string) (any, bool) {
	if d == nil {
		return nil, false
	}
	v, ok := d.m[k]
	return v, ok
}

// Has reports whether k is a key of d.
func (d *Dict) Has(k string) bool {
	_, ok := d.Get(k)
	return ok
}

// Set stores v under k, keeping the position of an existing key.
func (d *Dict) Set(k string, v any) {
	if _, ok := d.m[k]; !ok {
		d.keys = append(d.keys, k)
	}
	d.m[k] = v
}

// SetKey stores v under a key of any hashable type; a non-string key is
// stored under its str() form and remembered for Key.
func (d *Dict) SetKey(k any, v any) {
	ks, isStr := k.(string)
	if !isStr {
		ks = Str(k)
	}
	d.Set(ks, v)
	if isStr {
		if d.typed != nil {
			delete(d.typed, ks)
		}
		return
	}
	if d.typed == nil {
		d.typed = map[string]any{}
	}
	d.typed[ks] = k
}

// Key returns the original key stored under k: k itself, or the
// non-string key given to SetKey.
func (d *Dict) Key(k string) any {
	if d != nil && d.typed != nil {
		if t, ok := d.typed[k]; ok {
			return t
		}
	}
	return k
}

// HasTypedKeys reports whether some key is not a string.
func (d *Dict) HasTypedKeys() bool { return d != nil && len(d.typed) > 0 }

// Delete removes k.
func (d *Dict) Delete(k string) {
	if _, ok := d.m[k]; !ok {
		return
	}
	delete(d.m, k)
	if d.typed != nil {
		delete(d.typed, k)
	}
	for i, key := range d.keys {
		if key == k {
			d.keys = append(d.keys[:i:i], d.keys[i+1:]...)
			break
		}
	}
}

// Keys returns the keys in insertion order. The slice must not be modified.
func (d *Dict) Keys() []string {
	if d == nil {
		return nil
	}
	return d.keys
}

// Each calls fn for every key in order until fn returns false.
func (d *Dict) Each(fn func(k string, v any) bool) {
	if d == nil {
		return
	}
	for _, k := range d.keys {
		if !fn(k, d.m[k]) {
			return
		}
	}
}

// Copy returns a shallow copy of d.
func (d *Dict) Copy() *Dict {
	c := NewDict(d.Len())
	c.Update(d)
	return c
}

// Update copies every key of o into d, as Python's dict.update does.
func (d *Dict) Update(o *Dict) {
	if !o.HasTypedKeys() {
		o.Each(func(k string, v any) bool { d.Set(k, v); return true })
		return
	}
	o.Each(func(k string, v any) bool { d.SetKey(o.Key(k), v); return true })
}

// Tuple is an immutable Python sequence; it differs from a list only in repr.
type Tuple []any

// Undefined is the value of a variable or attribute that does not exist. It
// carries the message Ansible reports when the value is actually used.
type Undefined struct {
	// Msg is the error reported on use, e.g. "'x' is undefined".
	Msg string
	// Err, when set, is the error this value defers: a lazily rendered
	// template that failed fails with Err where it is used.
	Err error
}

// Omit is the value of Ansible's `omit` variable: a module argument that
// resolves to it is dropped.
type Omit struct{}

// OmitPlaceholder is how `omit` prints when it is turned into a string.
const OmitPlaceholder = "__omit_place_holder__5f8c2b3e1a9d4c7b"

// Default returns the value under k, or def when k is absent.
func (d *Dict) Default(k string, def any) any {
	if v, ok := d.Get(k); ok {
		return v
	}
	return def
}
