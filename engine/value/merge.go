package value

// MergeHash returns y merged into x, keys of y winning, without changing
// either: ansible-core's merge_hash, which both the combine filter and the
// "merge" hash behaviour of variable precedence use. With recursive, two
// dicts under the same key are merged in turn; listMerge says what happens
// to two lists under the same key (replace, keep, append, prepend,
// append_rp or prepend_rp).
func MergeHash(x, y *Dict, recursive bool, listMerge string) *Dict {
	if x.Len() == 0 || Equal(x, y) {
		return y.Copy()
	}
	if y.Len() == 0 {
		return x
	}
	x = x.Copy()
	if !recursive && listMerge == "replace" {
		x.Update(y)
		return x
	}
	y.Each(func(k string, yv any) bool {
		xv, ok := x.Get(k)
		if !ok {
			x.Set(k, yv)
			return true
		}
		xd, xIsD := xv.(*Dict)
		yd, yIsD := yv.(*Dict)
		if xIsD && yIsD {
			if recursive {
				x.Set(k, MergeHash(xd, yd, recursive, listMerge))
			} else {
				x.Set(k, yv)
			}
			return true
		}
		xl, xIsL := xv.([]any)
		yl, yIsL := yv.([]any)
		if xIsL && yIsL {
			x.Set(k, mergeLists(xl, yl, listMerge))
			return true
		}
		x.Set(k, yv)
		return true
	})
	return x
}

// mergeLists combines two lists under the same key as merge_hash's
// list_merge option says; x has the lower precedence.
func mergeLists(x, y []any, listMerge string) []any {
	switch listMerge {
	case "keep":
		return x
	case "append":
		return append(append([]any{}, x...), y...)
	case "prepend":
		return append(append([]any{}, y...), x...)
	case "append_rp":
		return append(withoutAny(x, y), y...)
	case "prepend_rp":
		return append(append([]any{}, y...), withoutAny(x, y)...)
	}
	return y
}

// withoutAny returns the elements of x that are not equal to any of y.
func withoutAny(x, y []any) []any {
	out := []any{}
	for _, e := range x {
		found := false
		for _, o := range y {
			if Equal(e, o) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, e)
		}
	}
	return out
}
