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
	vals []any
	// idx maps a key to its position once the dict has more than
	// smallDict keys; smaller dicts, the vast majority (Kubernetes object
	// metadata, annotations, module arguments), are searched linearly,
	// which is faster than hashing and saves allocating a map.
	idx map[string]int
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
	// A small dict comes in one allocation with room for its entries:
	// templates build many (every dict literal, every combine).
	switch {
	case n <= 0:
		return &Dict{}
	case n <= 2:
		b := &struct {
			d Dict
			k [2]string
			v [2]any
		}{}
		b.d.keys, b.d.vals = b.k[:0], b.v[:0]
		return &b.d
	case n <= 4:
		b := &struct {
			d Dict
			k [4]string
			v [4]any
		}{}
		b.d.keys, b.d.vals = b.k[:0], b.v[:0]
		return &b.d
	case n <= smallDict:
		b := &struct {
			d Dict
			k [smallDict]string
			v [smallDict]any
		}{}
		b.d.keys, b.d.vals = b.k[:0], b.v[:0]
		return &b.d
	}
	return &Dict{keys: make([]string, 0, n), vals: make([]any, 0, n), idx: make(map[string]int, n)}
}

// smallDict is the largest size at which a Dict has no index map.
const smallDict = 8

// find returns the position of k, or -1.
func (d *Dict) find(k string) int {
	if d.idx != nil {
		if i, ok := d.idx[k]; ok {
			return i
		}
		return -1
	}
	for i, key := range d.keys {
		if key == k {
			return i
		}
	}
	return -1
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
	if i := d.find(k); i >= 0 {
		return d.vals[i], true
	}
	return nil, false
}

// Has reports whether k is a key of d.
func (d *Dict) Has(k string) bool {
	_, ok := d.Get(k)
	return ok
}

// Set stores v under k, keeping the position of an existing key.
func (d *Dict) Set(k string, v any) {
	if i := d.find(k); i >= 0 {
		d.vals[i] = v
		return
	}
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
	switch {
	case d.idx != nil:
		d.idx[k] = len(d.keys) - 1
	case len(d.keys) > smallDict:
		d.reindex()
	}
}

// reindex builds the index map of a dict with more than smallDict keys.
func (d *Dict) reindex() {
	if len(d.keys) <= smallDict {
		d.idx = nil
		return
	}
	d.idx = make(map[string]int, len(d.keys))
	for i, k := range d.keys {
		d.idx[k] = i
	}
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
	i := d.find(k)
	if i < 0 {
		return
	}
	if d.typed != nil {
		delete(d.typed, k)
	}
	// New arrays: a Keys slice handed out earlier stays as it was.
	d.keys = append(d.keys[:i:i], d.keys[i+1:]...)
	d.vals = append(d.vals[:i:i], d.vals[i+1:]...)
	if d.idx != nil {
		d.reindex()
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
	keys, vals := d.keys, d.vals
	for i, k := range keys {
		if !fn(k, vals[i]) {
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
