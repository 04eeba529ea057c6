package template

import (
	"slices"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// communityFilters returns the community.general filters that the roles use.
func communityFilters() Library {
	return Library{Collection: "community.general", Filters: map[string]FilterFunc{
		"counter":         filterCounter,
		"dict":            filterDict,
		"dict_kv":         filterDictKV,
		"groupby_as_dict": filterGroupbyAsDict,
		"json_query":      filterJSONQuery,
		"keep_keys":       filterKeepKeys,
		"lists_mergeby":   filterListsMergeby,
		"version_sort":    filterVersionSort,
	}}
}

func filterDict(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("dict_filter").Bind(a); err != nil {
		return nil, err
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	d := value.NewDict(len(items))
	for i, it := range items {
		pair, err := Iterate(it)
		if err != nil {
			return nil, TypeErrorf("cannot convert dictionary update sequence element #%d to a sequence", i)
		}
		if len(pair) != 2 {
			return nil, TypeErrorf("dictionary update sequence element #%d has length %d; 2 is required", i, len(pair))
		}
		if _, ok := py.HashKey(pair[0]); !ok {
			return nil, TypeErrorf("unhashable type: '%s'", value.TypeName(pair[0]))
		}
		d.Set(value.Str(pair[0]), pair[1])
	}
	return d, nil
}

// filterKeepKeys is community.general.keep_keys: each dictionary of a list
// keeps the keys that match target (equal, starts_with, ends_with, or a
// regex that matches at the key's start), with plugin_utils/keys_filter's
// checks and messages.
func filterKeepKeys(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("keep_keys", py.Opt("target", nil), py.Opt("matching_parameter", "equal")).Bind(a)
	if err != nil {
		return nil, err
	}
	target, mp := v[0], value.Str(v[1])
	data, ok := pySequence(in)
	if !ok {
		return nil, Errorf("First argument must be a list. %s is %s", value.Str(in), argClassRepr(in))
	}
	for _, e := range data {
		if _, ok := e.(*value.Dict); !ok {
			return nil, Errorf("The data items must be dictionaries. %s is %s", value.Str(e), argClassRepr(e))
		}
	}
	modes := []string{"equal", "starts_with", "ends_with", "regex"}
	if !slices.Contains(modes, mp) {
		return nil, Errorf("The matching_parameter must be one of %s. matching_parameter=%s", value.Repr(stringsToAny(modes)), mp)
	}
	keep, err := keysMatcher(target, mp)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(data))
	for i, e := range data {
		d := e.(*value.Dict)
		kept := value.NewDict(d.Len())
		d.Each(func(k string, val any) bool {
			if keep(k) {
				kept.Set(k, val)
			}
			return true
		})
		out[i] = kept
	}
	return out, nil
}

// keysMatcher is _keys_filter_target_str: target checked and turned into
// the test a key passes.
func keysMatcher(target any, mp string) (func(string) bool, error) {
	items, ok := pySequence(target)
	if !ok {
		return nil, Errorf("The target must be a string or a list. target is %s.", argClassRepr(target))
	}
	if len(items) == 0 {
		return nil, Errorf("The target can't be empty.")
	}
	var pats []string
	if s, isStr := target.(string); isStr {
		pats = []string{s}
	} else {
		for _, e := range items {
			s, ok := e.(string)
			if !ok {
				if _, list := target.([]any); list {
					return nil, Errorf("The target items must be strings. %s is %s", value.Str(e), argClassRepr(e))
				}
			}
			pats = append(pats, s)
		}
	}
	if mp == "regex" {
		if len(pats) > 1 {
			return nil, Errorf("Single item is required in the target list if matching_parameter=regex.")
		}
		re, err := py.CompilePattern(pats[0], 0)
		if err != nil {
			// Raised while handling re.error: a section of its own.
			return nil, Detachedf("The target must be a valid regex if matching_parameter=regex. target is %s", pats[0])
		}
		return func(k string) bool {
			// re.match: a match that starts at the key's start (the
			// leftmost match starts there whenever one does).
			loc, err := re.FindStringIndex(k)
			return err == nil && loc != nil && loc[0] == 0
		}, nil
	}
	return func(k string) bool {
		for _, p := range pats {
			switch {
			case mp == "equal" && k == p,
				mp == "starts_with" && strings.HasPrefix(k, p),
				mp == "ends_with" && strings.HasSuffix(k, p):
				return true
			}
		}
		return false
	}, nil
}

// pySequence is isinstance(v, Sequence) with the items: a list, a tuple
// or a string (its characters).
func pySequence(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case value.Tuple:
		return []any(x), true
	case string:
		out := make([]any, 0, len(x))
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, true
	}
	return nil, false
}

func stringsToAny(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

func filterDictKV(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("dict_kv", py.Req("key")).Bind(a)
	if err != nil {
		return nil, err
	}
	return value.DictOf(value.Str(v[0]), in), nil
}

func filterListsMergeby(_ *Ctx, in any, a *Args) (any, error) {
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "recursive" && k != "list_merge" {
				return nil, Errorf("'recursive' and 'list_merge' are the only valid keyword arguments.")
			}
		}
	}
	terms := append([]any{in}, a.Pos...)
	if len(terms) < 2 {
		return nil, Errorf("At least one list and index are needed.")
	}
	index, ok := terms[len(terms)-1].(string)
	if !ok {
		return nil, Errorf("First argument after the lists for lists_mergeby must be string. %s is %s", value.Repr(terms[len(terms)-1]), argClassRepr(terms[len(terms)-1]))
	}
	var lists []any
	for _, t := range terms[:len(terms)-1] {
		l, ok := t.([]any)
		if !ok {
			return nil, Errorf("All arguments before the argument index for lists_mergeby must be lists. %s is %s", value.Repr(t), argClassRepr(t))
		}
		lists = append(lists, l)
	}
	recursive, listMerge := false, "replace"
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			x, _ := a.Kw.Get(k)
			switch k {
			case "recursive":
				recursive = value.Truthy(x)
			case "list_merge":
				listMerge = value.Str(x)
			default:
				return nil, Errorf("'recursive' and 'list_merge' are the only valid keyword arguments.")
			}
		}
	}
	merged := value.NewDict(0)
	for _, l := range lists {
		for _, it := range l.([]any) {
			d, ok := it.(*value.Dict)
			if !ok {
				return nil, Errorf("Elements of list arguments for lists_mergeby must be dictionaries. %s is %s", value.Repr(it), argClassRepr(it))
			}
			k, ok := d.Get(index)
			if !ok {
				continue
			}
			ks := value.Str(k)
			if prev, ok := merged.Get(ks); ok {
				merged.Set(ks, value.MergeHash(prev.(*value.Dict), d, recursive, listMerge))
			} else {
				merged.Set(ks, d)
			}
		}
	}
	keys := append([]string(nil), merged.Keys()...)
	sort.Strings(keys)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i], _ = merged.Get(k)
	}
	return out, nil
}

func filterVersionSort(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("version_sort").Bind(a); err != nil {
		return nil, err
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	keys := make([]any, len(items))
	for i, it := range items {
		keys[i] = py.LooseVersion(value.Str(it))
	}
	return py.SortByKeys(items, keys, false)
}

func filterCounter(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("counter").Bind(a); err != nil {
		return nil, err
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	d := value.NewDict(0)
	for _, it := range items {
		k := value.Str(it)
		n, _ := d.Get(k)
		c, _ := n.(int)
		d.Set(k, c+1)
	}
	return d, nil
}

func filterGroupbyAsDict(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("groupby_as_dict", py.Req("attribute")).Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	d := value.NewDict(len(items))
	for _, it := range items {
		e, ok := it.(*value.Dict)
		if !ok {
			return nil, Errorf("Input is not a sequence of mappings")
		}
		k, ok := e.Get(value.Str(v[0]))
		if !ok {
			return nil, Errorf("Element does not have attribute %s", value.Repr(v[0]))
		}
		d.Set(value.Str(k), it)
	}
	return d, nil
}
