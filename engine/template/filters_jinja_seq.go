package template

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// jinjaSeqFilters returns Jinja2's built-in filters on sequences and mappings.
func jinjaSeqFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"attr":     filterAttr,
		"batch":    filterBatch,
		"count":    filterLength,
		"dictsort": filterDictsort,
		"first":    filterFirst,
		"groupby":  filterGroupby,
		"items":    filterItems,
		"join":     filterJoin,
		"last":     filterLast,
		"length":   filterLength,
		"list":     filterList,
		"max":      filterMax,
		"min":      filterMin,
		"reverse":  filterReverse,
		"slice":    filterSlice,
		"sort":     filterSort,
		"sum":      filterSum,
	}}
}

func filterAttr(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_attr", py.Req("name")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	name, ok := v[0].(string)
	if !ok {
		return nil, TypeErrorf("attribute name must be string, not '%s'", value.TypeName(v[0]))
	}
	if py.HasMethod(in, name) {
		return &boundMethod{recv: in, name: name}, nil
	}
	switch o := in.(type) {
	case *namespace:
		if x, ok := o.get(name); ok {
			return x, nil
		}
	case *loopInfo:
		if x, ok := o.attr(name); ok {
			return x, nil
		}
	}
	return noAttr(in, name), nil
}

func filterBatch(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_batch", py.Req("linecount"), py.OptNone("fill_with")).Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	out := []any{}
	var tmp []any
	for _, it := range items {
		if value.Equal(len(tmp), v[0]) {
			out = append(out, tmp)
			tmp = nil
		}
		tmp = append(tmp, it)
	}
	if len(tmp) > 0 {
		if v[1] != nil {
			n, ok := value.AsInt(v[0])
			if !ok {
				return nil, TypeErrorf("unsupported operand type(s) for -: '%s' and 'int'", value.TypeName(v[0]))
			}
			for len(tmp) < n {
				tmp = append(tmp, v[1])
			}
		}
		out = append(out, tmp)
	}
	return out, nil
}

func filterDictsort(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_dictsort", py.Opt("case_sensitive", false), py.Opt("by", "key"), py.Opt("reverse", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	pos := 0
	switch {
	case value.Equal(v[1], "key"):
	case value.Equal(v[1], "value"):
		pos = 1
	default:
		return nil, Errorf(`You can only sort by either "key" or "value"`)
	}
	d, ok := in.(*value.Dict)
	if !ok {
		return nil, TypeErrorf("'%s' object has no attribute 'items'", value.TypeName(in))
	}
	items := make([]any, 0, d.Len())
	keys := make([]any, 0, d.Len())
	d.Each(func(k string, x any) bool {
		items = append(items, value.Tuple{k, x})
		key := []any{k, x}[pos]
		if !value.Truthy(v[0]) {
			key = ignoreCase(key)
		}
		keys = append(keys, key)
		return true
	})
	return py.SortByKeys(items, keys, value.Truthy(v[2]))
}

func filterFirst(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("sync_do_first").Implicit().Bind(a); err != nil {
		return nil, err
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return value.Undefined{Msg: "No first item, sequence was empty."}, nil
	}
	return items[0], nil
}

func filterLast(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_last").Implicit().Bind(a); err != nil {
		return nil, err
	}
	switch in.(type) {
	case []any, value.Tuple, *groupTuple, string, *value.Dict, *py.Range:
	default:
		return nil, TypeErrorf("'%s' object is not reversible", value.TypeName(in))
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return value.Undefined{Msg: "No last item, sequence was empty."}, nil
	}
	return items[len(items)-1], nil
}

func filterGroupby(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("sync_do_groupby", py.Req("attribute"), py.OptNone("default"), py.Opt("case_sensitive", false)).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	cs := value.Truthy(v[2])
	keyOf := attrGetter(v[0], !cs, v[1])
	keys := make([]any, len(items))
	for i, it := range items {
		if keys[i], err = keyOf(it); err != nil {
			return nil, err
		}
	}
	sorted, err := py.SortByKeys(items, keys, false)
	if err != nil {
		return nil, err
	}
	out := []any{}
	var cur []any
	var curKey any
	for _, it := range sorted {
		k, _ := keyOf(it)
		if cur != nil && value.Equal(k, curKey) {
			cur = append(cur, it)
			continue
		}
		if cur != nil {
			out = append(out, &groupTuple{t: value.Tuple{curKey, cur}})
		}
		cur, curKey = []any{it}, k
	}
	if cur != nil {
		out = append(out, &groupTuple{t: value.Tuple{curKey, cur}})
	}
	if !cs {
		real := attrGetter(v[0], false, v[1])
		for _, g := range out {
			t := g.(*groupTuple).t
			k, err := real(t[1].([]any)[0])
			if err != nil {
				return nil, err
			}
			t[0] = k
		}
	}
	return out, nil
}

func filterItems(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_items").Bind(a); err != nil {
		return nil, err
	}
	d, ok := in.(*value.Dict)
	if !ok {
		return nil, TypeErrorf("Can only get item pairs from a mapping.")
	}
	out := make([]any, 0, d.Len())
	d.Each(func(k string, v any) bool { out = append(out, value.Tuple{k, v}); return true })
	return out, nil
}

func filterJoin(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("sync_do_join", py.Opt("d", ""), py.OptNone("attribute")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	var get func(any) (any, error)
	if v[1] != nil {
		get = attrGetter(v[1], false, nil)
	}
	parts := make([]string, len(items))
	for i, it := range items {
		if get != nil {
			if it, err = get(it); err != nil {
				return nil, err
			}
		}
		s, err := toText(it)
		if err != nil {
			return nil, err
		}
		parts[i] = s
	}
	return strings.Join(parts, softStr(v[0])), nil
}

func filterLength(_ *Ctx, in any, a *Args) (any, error) {
	if err := py.OneArg("len", a); err != nil {
		return nil, err
	}
	switch x := in.(type) {
	case *value.Dict:
		return x.Len(), nil
	case string, []any, value.Tuple:
		return seqLen(x), nil
	case *py.Range:
		return x.Len(), nil
	}
	return nil, TypeErrorf("object of type '%s' has no len()", value.TypeName(in))
}

func filterList(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("sync_do_list").Bind(a); err != nil {
		return nil, err
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	return append([]any{}, items...), nil
}

func filterReverse(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_reverse").Bind(a); err != nil {
		return nil, err
	}
	if s, ok := in.(string); ok {
		r := []rune(s)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return string(r), nil
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, Errorf("argument must be iterable")
	}
	out := make([]any, len(items))
	for i, it := range items {
		out[len(items)-1-i] = it
	}
	return out, nil
}

func filterSlice(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("sync_do_slice", py.Req("slices"), py.OptNone("fill_with")).Bind(a)
	if err != nil {
		return nil, err
	}
	seq, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	slices, err := py.Index(v[0])
	if err != nil {
		return nil, err
	}
	if slices == 0 {
		return nil, TypeErrorf("integer division or modulo by zero")
	}
	n := len(seq)
	per := py.FloorDiv(n, slices)
	extra := n - per*slices
	offset := 0
	out := []any{}
	for i := 0; i < slices; i++ {
		start := offset + i*per
		if i < extra {
			offset++
		}
		end := offset + (i+1)*per
		var tmp []any
		for _, j := range py.SliceIndices(n, start, end, 1, true, true) {
			tmp = append(tmp, seq[j])
		}
		if tmp == nil {
			tmp = []any{}
		}
		if v[1] != nil && i >= extra {
			tmp = append(tmp, v[1])
		}
		out = append(out, tmp)
	}
	return out, nil
}

func filterSort(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_sort", py.Opt("reverse", false), py.Opt("case_sensitive", false), py.OptNone("attribute")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	key := multiAttrGetter(v[2], !value.Truthy(v[1]))
	keys := make([]any, len(items))
	for i, it := range items {
		if keys[i], err = key(it); err != nil {
			return nil, err
		}
	}
	return py.SortByKeys(items, keys, value.Truthy(v[0]))
}

func filterSum(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("sync_do_sum", py.OptNone("attribute"), py.Opt("start", 0)).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	acc := v[1]
	if _, isStr := acc.(string); isStr {
		return nil, TypeErrorf("sum() can't sum strings [use ''.join(seq) instead]")
	}
	var get func(any) (any, error)
	if v[0] != nil {
		get = attrGetter(v[0], false, nil)
	}
	for _, it := range items {
		if get != nil {
			if it, err = get(it); err != nil {
				return nil, err
			}
		}
		if u, ok := it.(value.Undefined); ok {
			return nil, UndefinedErr(u)
		}
		if acc, err = py.BinaryOp("+", acc, it); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

func minOrMax(in any, a *Args, fn string, isMax bool) (any, error) {
	v, err := py.Sig(fn, py.Opt("case_sensitive", false), py.OptNone("attribute")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return value.Undefined{Msg: "No aggregated item, sequence was empty."}, nil
	}
	key := attrGetter(v[1], !value.Truthy(v[0]), nil)
	best := items[0]
	bestKey, err := key(best)
	if err != nil {
		return nil, err
	}
	op := "<"
	if isMax {
		op = ">"
	}
	for _, it := range items[1:] {
		k, err := key(it)
		if err != nil {
			return nil, err
		}
		if u, ok := py.FirstUndefined(k); ok {
			return nil, UndefinedErr(u)
		}
		if u, ok := py.FirstUndefined(bestKey); ok {
			return nil, UndefinedErr(u)
		}
		better, err := py.Compare(op, k, bestKey)
		if err != nil {
			return nil, err
		}
		if better {
			best, bestKey = it, k
		}
	}
	return best, nil
}

func filterMax(_ *Ctx, in any, a *Args) (any, error) { return minOrMax(in, a, "do_max", true) }

func filterMin(_ *Ctx, in any, a *Args) (any, error) { return minOrMax(in, a, "do_min", false) }
