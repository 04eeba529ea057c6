package py

import (
	"sort"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Sort sorts in place with Python ordering.
func Sort(items []any, reverse bool) error {
	var err error
	less := lessThan(reverse, &err)
	sort.SliceStable(items, func(i, j int) bool { return less(items[i], items[j]) })
	return err
}

// lessThan returns Python's a < b (b < a with reverse) for a sort, keeping
// the first TypeError in *err.
func lessThan(reverse bool, err *error) func(a, b any) bool {
	return func(a, b any) bool {
		if reverse {
			a, b = b, a
		}
		n, e := value.Compare(a, b)
		if e != nil && *err == nil {
			*err = Errorf("%s", e.Error())
		}
		return n < 0
	}
}

// FirstUndefined returns the first Undefined inside v (lists included),
// which a comparison of v would fail on.
func FirstUndefined(v any) (value.Undefined, bool) {
	switch x := v.(type) {
	case value.Undefined:
		return x, true
	case []any:
		for _, e := range x {
			if u, ok := FirstUndefined(e); ok {
				return u, true
			}
		}
	}
	return value.Undefined{}, false
}

// SortByKeys sorts items stably by keys with Python's < (reverse keeps the
// stability, as sorted(reverse=True) does).
func SortByKeys(items, keys []any, reverse bool) ([]any, error) {
	for _, k := range keys {
		if u, ok := FirstUndefined(k); ok {
			return nil, &UndefinedUse{Value: u}
		}
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	var err error
	less := lessThan(reverse, &err)
	sort.SliceStable(idx, func(i, j int) bool { return less(keys[idx[i]], keys[idx[j]]) })
	if err != nil {
		return nil, err
	}
	out := make([]any, len(items))
	for i, k := range idx {
		out[i] = items[k]
	}
	return out, nil
}
