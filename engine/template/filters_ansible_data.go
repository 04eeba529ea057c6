package template

import (
	"math"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ansibleDataFilters returns ansible-core's filters that reshape lists and dicts.
func ansibleDataFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"combine":     filterCombine,
		"dict2items":  filterDict2items,
		"extract":     filterExtract,
		"flatten":     filterFlatten,
		"items2dict":  filterItems2dict,
		"subelements": filterSubelements,
		"zip":         filterZip,
		"zip_longest": filterZipLongest,
	}}
}

func combineDicts(terms []any, kw *value.Dict, kwErr string) (any, error) {
	recursive, listMerge := false, any("replace")
	if kw != nil {
		for _, k := range kw.Keys() {
			v, _ := kw.Get(k)
			switch k {
			case "recursive":
				recursive = value.Truthy(v)
			case "list_merge":
				listMerge = v
			default:
				return nil, Errorf("%s", kwErr)
			}
		}
	}
	dicts := flattenList(terms, 1, true)
	if len(dicts) == 0 {
		return value.NewDict(0), nil
	}
	if len(dicts) == 1 {
		return dicts[0], nil
	}
	lm, _ := listMerge.(string)
	switch lm {
	case "replace", "keep", "append", "prepend", "append_rp", "prepend_rp":
	default:
		return nil, Errorf("merge_hash: 'list_merge' argument can only be equal to 'replace', 'keep', 'append', 'prepend', 'append_rp' or 'prepend_rp'")
	}
	result := dicts[len(dicts)-1]
	for i := len(dicts) - 2; i >= 0; i-- {
		x, xok := dicts[i].(*value.Dict)
		y, yok := result.(*value.Dict)
		if !xok || !yok {
			resultName := lazyTypeName(result)
			if i < len(dicts)-2 {
				resultName = value.TypeName(result) // a merged dict, not an argument
			}
			return nil, Errorf("failed to combine variables, expected dicts but got a '%s' and a '%s'.", lazyTypeName(dicts[i]), resultName)
		}
		result = value.MergeHash(x, y, recursive, lm)
	}
	return result, nil
}

func filterCombine(_ *Ctx, in any, a *Args) (any, error) {
	terms := append([]any{in}, a.Pos...)
	return combineDicts(terms, a.Kw, "'recursive' and 'list_merge' are the only valid keyword arguments")
}

func filterDict2items(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("dict_to_list_of_dict_key_value_elements", py.Opt("key_name", "key"), py.Opt("value_name", "value")).Bind(a)
	if err != nil {
		return nil, err
	}
	d, ok := in.(*value.Dict)
	if !ok {
		return nil, Errorf("dict2items requires a dictionary, got %s instead.", argClassRepr(in))
	}
	out := make([]any, 0, d.Len())
	d.Each(func(k string, x any) bool {
		out = append(out, value.DictOf(value.Str(v[0]), k, value.Str(v[1]), x))
		return true
	})
	return out, nil
}

func filterItems2dict(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("list_of_dict_key_value_elements_to_dict", py.Opt("key_name", "key"), py.Opt("value_name", "value")).Bind(a)
	if err != nil {
		return nil, err
	}
	items, ok := listOrTuple(in)
	if !ok {
		return nil, Errorf("items2dict requires a list, got %s instead.", argClassRepr(in))
	}
	out := value.NewDict(len(items))
	for _, it := range items {
		d, ok := it.(*value.Dict)
		if !ok {
			return nil, Detachedf("items2dict requires a list of dictionaries, got %s instead.", value.Str(in))
		}
		k, ok1 := d.Get(value.Str(v[0]))
		x, ok2 := d.Get(value.Str(v[1]))
		if !ok1 || !ok2 {
			return nil, Detachedf("items2dict requires each dictionary in the list to contain the keys '%s' and '%s', got %s instead.", value.Str(v[0]), value.Str(v[1]), value.Str(in))
		}
		if _, ok := py.HashKey(k); !ok {
			return nil, Detachedf("items2dict requires a list of dictionaries, got %s instead.", value.Str(in))
		}
		out.Set(value.Str(k), x)
	}
	return out, nil
}

// flattenList is Ansible's flatten: levels < 0 means all levels.
func flattenList(items []any, levels int, skipNulls bool) []any {
	out := []any{}
	for _, el := range items {
		if skipNulls && (el == nil || el == "None" || el == "null") {
			continue
		}
		var sub []any
		switch x := el.(type) {
		case []any:
			sub = x
		case value.Tuple:
			sub = x
		default:
			out = append(out, el)
			continue
		}
		switch {
		case levels < 0:
			out = append(out, flattenList(sub, -1, skipNulls)...)
		case levels >= 1:
			out = append(out, flattenList(sub, levels-1, skipNulls)...)
		default:
			out = append(out, el)
		}
	}
	return out
}

func filterFlatten(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("flatten", py.OptNone("levels"), py.Opt("skip_nulls", true)).Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	levels := -1
	if v[0] != nil {
		switch x := v[0].(type) {
		case float64:
			levels = int(x)
			if x < 1 {
				levels = 0
			}
		default:
			n, ok := value.AsInt(x)
			if !ok {
				return nil, TypeErrorf("'>=' not supported between instances of '%s' and 'int'", value.TypeName(x))
			}
			levels = max(n, 0)
		}
	}
	return flattenList(items, levels, value.Truthy(v[1])), nil
}

func zipArgs(in any, a *Args) ([][]any, error) {
	all := append([]any{in}, a.Pos...)
	lists := make([][]any, len(all))
	for i, x := range all {
		items, err := Iterate(x)
		if err != nil {
			return nil, TypeErrorf("'%s' object is not iterable", value.TypeName(x))
		}
		lists[i] = items
	}
	return lists, nil
}

func filterZip(_ *Ctx, in any, a *Args) (any, error) {
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "strict" {
				return nil, TypeErrorf("'%s' is an invalid keyword argument for zip()", k)
			}
		}
	}
	lists, err := zipArgs(in, a)
	if err != nil {
		return nil, err
	}
	return zipTuples(lists, false, nil), nil
}

func filterZipLongest(_ *Ctx, in any, a *Args) (any, error) {
	var fill any
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "fillvalue" {
				return nil, TypeErrorf("zip_longest() got an unexpected keyword argument")
			}
			fill, _ = a.Kw.Get(k)
		}
	}
	lists, err := zipArgs(in, a)
	if err != nil {
		return nil, err
	}
	return zipTuples(lists, true, fill), nil
}

// zipTuples is zip(*lists), or with longest itertools.zip_longest(*lists,
// fillvalue=fill): a list of tuples.
func zipTuples(lists [][]any, longest bool, fill any) []any {
	n := 0
	if !longest && len(lists) > 0 {
		n = math.MaxInt
	}
	for _, l := range lists {
		if longest {
			n = max(n, len(l))
		} else {
			n = min(n, len(l))
		}
	}
	out := make([]any, n)
	for i := range out {
		t := make(value.Tuple, len(lists))
		for j, l := range lists {
			if i < len(l) {
				t[j] = l[i]
			} else {
				t[j] = fill
			}
		}
		out[i] = t
	}
	return out
}

func filterExtract(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("extract", py.Req("container"), py.OptNone("morekeys")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	keys := []any{in}
	switch m := v[1].(type) {
	case nil:
	case []any:
		keys = append(keys, m...)
	default:
		keys = append(keys, m)
	}
	cur := v[0]
	for _, k := range keys {
		if cur, err = getItem(cur, k); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

func filterSubelements(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("subelements", py.Req("subelements"), py.Opt("skip_missing", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	var elements []any
	switch x := in.(type) {
	case *value.Dict:
		x.Each(func(_ string, e any) bool { elements = append(elements, e); return true })
	case []any:
		elements = x
	default:
		return nil, Errorf("obj must be a list of dicts or a nested dict")
	}
	var subs []any
	switch s := v[0].(type) {
	case []any:
		subs = s
	case string:
		for _, p := range strings.Split(s, ".") {
			subs = append(subs, p)
		}
	default:
		return nil, Errorf("subelements must be a list or a string")
	}
	out := []any{}
	for _, el := range elements {
		vals := el
		var last any
		for _, sub := range subs {
			last = sub
			d, ok := vals.(*value.Dict)
			if !ok {
				return nil, Errorf("the key %s should point to a dictionary, got '%s'", value.Str(sub), value.Str(vals))
			}
			x, found := d.Get(value.Str(sub))
			if !found {
				if value.Truthy(v[1]) {
					vals = []any{}
					break
				}
				return nil, Detachedf("could not find %s key in iterated item %s", value.Repr(sub), value.Repr(vals))
			}
			vals = x
		}
		list, ok := vals.([]any)
		if !ok {
			return nil, Errorf("the key %s should point to a list, got %s", value.Repr(last), value.Repr(vals))
		}
		for _, x := range list {
			out = append(out, value.Tuple{el, x})
		}
	}
	return out, nil
}
