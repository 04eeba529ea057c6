package value

// Copy-on-write mapping: values are not changed in place once made, so a
// container whose elements all map to themselves is returned as it is,
// and only the containers on the path to a change are copied.

// MapList applies fn to every element, copying the list only when an
// element changes, so unchanged containers are shared.
func MapList(x []any, fn func(i int, e any) (any, error)) (any, error) {
	var out []any
	for i, e := range x {
		r, err := fn(i, e)
		if err != nil {
			return nil, err
		}
		if out == nil && !Same(r, e) {
			out = make([]any, len(x))
			copy(out, x[:i])
		}
		if out != nil {
			out[i] = r
		}
	}
	if out == nil {
		return x, nil
	}
	return out, nil
}

// MapDict is MapList for dict values; keys are kept as they are.
func MapDict(x *Dict, fn func(k string, e any) (any, error)) (any, error) {
	var out *Dict
	keys := x.Keys()
	for i, k := range keys {
		e, _ := x.Get(k)
		r, err := fn(k, e)
		if err != nil {
			return nil, err
		}
		if out == nil && !Same(r, e) {
			out = NewDict(len(keys))
			// The mapped dict is the same mapping (hostvars rendered
			// stays HostVars).
			out.pyType = x.pyType
			for _, pk := range keys[:i] {
				pv, _ := x.Get(pk)
				out.Set(pk, pv)
			}
		}
		if out != nil {
			out.Set(k, r)
		}
	}
	if out == nil {
		return x, nil
	}
	return out, nil
}

// Same reports whether a mapped element is the original one, so
// that unchanged containers are shared rather than copied.
func Same(a, b any) bool {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case *Dict:
		y, ok := b.(*Dict)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case nil, bool, int, int64, float64:
		// Identical plain scalars need no copy of their container.
		return a == b
	}
	return false
}
