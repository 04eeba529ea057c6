package py

import (
	"sort"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Sort sorts in place with Python ordering.
func Sort(items []any, reverse bool) error {
	var err error
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if reverse {
			a, b = b, a
		}
		n, e := value.Compare(a, b)
		if e != nil && err == nil {
			err = Errorf("%s", e.Error())
		}
		return n < 0
	})
	return err
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
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := keys[idx[i]], keys[idx[j]]
		if reverse {
			a, b = b, a
		}
		n, e := value.Compare(a, b)
		if e != nil && err == nil {
			err = Errorf("%s", e.Error())
		}
		return n < 0
	})
	if err != nil {
		return nil, err
	}
	out := make([]any, len(items))
	for i, k := range idx {
		out[i] = items[k]
	}
	return out, nil
}
