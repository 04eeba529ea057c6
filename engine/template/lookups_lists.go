package template

import (
	"crypto/rand"
	"math/big"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// listLookups returns ansible-core's lookups that reshape their terms (the with_<lookup> loops).
func listLookups() Library {
	return Library{Collection: "ansible.builtin", Lookups: map[string]LookupFunc{
		"dict":          lookupDict,
		"indexed_items": lookupIndexedItems,
		"items":         lookupItems,
		"list":          lookupList,
		"nested":        lookupNested,
		"cartesian":     lookupCartesian,
		"random_choice": lookupRandomChoice,
		"subelements":   lookupSubelements,
		"together":      lookupTogether,
	}}
}

func flattenOnce(terms []any) []any {
	out := []any{}
	for _, t := range terms {
		switch x := t.(type) {
		case []any:
			out = append(out, x...)
		case value.Tuple:
			out = append(out, x...)
		default:
			out = append(out, t)
		}
	}
	return out
}

func lookupItems(_ *Ctx, terms []any, _ *Args) ([]any, error) { return flattenOnce(terms), nil }

func lookupList(_ *Ctx, terms []any, _ *Args) ([]any, error) { return terms, nil }

func lookupIndexedItems(_ *Ctx, terms []any, _ *Args) ([]any, error) {
	items := flattenOnce(terms)
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = value.Tuple{i, it}
	}
	return out, nil
}

func lookupDict(_ *Ctx, terms []any, _ *Args) ([]any, error) {
	out := []any{}
	for _, t := range terms {
		d, ok := t.(*value.Dict)
		if !ok {
			return nil, Errorf("the 'dict' lookup plugin expects a dictionary, got '%s' of type %s)", value.Str(t), argClassRepr(t))
		}
		d.Each(func(k string, v any) bool {
			out = append(out, value.DictOf("key", k, "value", v))
			return true
		})
	}
	return out, nil
}

func lookupTogether(_ *Ctx, terms []any, _ *Args) ([]any, error) {
	if len(terms) == 0 {
		return nil, Errorf("with_together requires at least one element in each list")
	}
	lists := make([][]any, len(terms))
	n := 0
	for i, t := range terms {
		items, err := Iterate(t)
		if err != nil {
			items = []any{t}
		}
		lists[i] = items
		n = max(n, len(items))
	}
	out := make([]any, n)
	for i := 0; i < n; i++ {
		row := make([]any, len(lists))
		for j, l := range lists {
			if i < len(l) {
				row[j] = l[i]
			}
		}
		out[i] = row
	}
	return out, nil
}

func lookupNested(_ *Ctx, terms []any, _ *Args) ([]any, error) {
	if len(terms) == 0 {
		return nil, Errorf("with_nested requires at least one element in the nested list")
	}
	result := [][]any{{}}
	for _, t := range terms {
		items, err := Iterate(t)
		if err != nil {
			items = []any{t}
		}
		var next [][]any
		for _, r := range result {
			for _, x := range items {
				next = append(next, append(append([]any{}, r...), x))
			}
		}
		result = next
	}
	out := make([]any, len(result))
	for i, r := range result {
		out[i] = r
	}
	return out, nil
}

// lookupCartesian is community.general.cartesian: the cartesian product
// of the terms (each listified: a string or a scalar is a list of one),
// each combination flattened one level as LookupBase._flatten does. A
// product longer than py.MaxListLen is a MemoryError, not an exhausted
// machine.
func lookupCartesian(_ *Ctx, terms []any, _ *Args) ([]any, error) {
	if len(terms) == 0 {
		return nil, Errorf("with_cartesian requires at least one element in each list")
	}
	lists := make([][]any, len(terms))
	total := 1
	for i, t := range terms {
		switch x := t.(type) {
		case string:
			lists[i] = []any{x}
		default:
			items, err := Iterate(t)
			if err != nil {
				items = []any{t}
			}
			lists[i] = items
		}
		if total *= len(lists[i]); total > py.MaxListLen {
			return nil, fromPy(py.MemoryError())
		}
	}
	out := make([]any, 0, total)
	combo := make([]int, len(lists))
	for total > 0 {
		picked := make([]any, len(lists))
		for i, l := range lists {
			picked[i] = l[combo[i]]
		}
		out = append(out, flattenOnce(picked))
		i := len(lists) - 1
		for ; i >= 0; i-- {
			if combo[i]++; combo[i] < len(lists[i]) {
				break
			}
			combo[i] = 0
		}
		if i < 0 {
			break
		}
	}
	return out, nil
}

// lookupSubelements pairs each dict of terms[0] (a list, or a dict's
// values) with each item of the list its terms[1] key (a dotted path)
// holds; the pair's dict is a copy without that key, as ansible-core pops
// it. Items whose skipped is set are left out; terms[2] may set
// skip_missing.
func lookupSubelements(_ *Ctx, terms []any, _ *Args) ([]any, error) {
	fail := func(msg string) error {
		return Errorf("%s", strings.TrimSpace("subelements lookup expects a list of two or three items, "+msg))
	}
	if len(terms) < 2 || len(terms) > 3 {
		return nil, fail("")
	}
	path, isStr := terms[1].(string)
	var elements []any
	switch x := terms[0].(type) {
	case []any:
		elements = x
	case *value.Dict:
		if skipped, _ := x.Get("skipped"); skipped != nil && skipped != false {
			return []any{}, nil
		}
		x.Each(func(_ string, v any) bool { elements = append(elements, v); return true })
	default:
		isStr = false
	}
	if !isStr {
		return nil, fail("first a dict or a list, second a string pointing to the subkey")
	}
	skipMissing := false
	if len(terms) == 3 {
		flags, ok := terms[2].(*value.Dict)
		if !ok {
			return nil, fail("the optional third item must be a dict with flags ['skip_missing']")
		}
		skipMissing, _ = py.LenientBoolean(kwGet(flags, "skip_missing"))
	}
	out := []any{}
	for _, e := range elements {
		item, ok := e.(*value.Dict)
		if !ok {
			return nil, Errorf("subelements lookup expects a dictionary, got '%s'", value.Str(e))
		}
		if skipped, _ := item.Get("skipped"); skipped != nil && skipped != false {
			continue
		}
		item, list, err := popSubelements(item, strings.Split(path, "."), skipMissing)
		if err != nil {
			return nil, err
		}
		for _, sub := range list {
			out = append(out, []any{item, sub})
		}
	}
	return out, nil
}

// popSubelements returns a copy of item without the list at the dotted
// keys, and that list. A missing key (or one that is not a dict on the
// way) fails unless skipMissing, which skips that key as ansible-core
// does.
func popSubelements(item *value.Dict, keys []string, skipMissing bool) (*value.Dict, []any, error) {
	root := item.Copy()
	cur := root
	for i, k := range keys {
		v, ok := cur.Get(k)
		if !ok {
			if skipMissing {
				continue
			}
			return nil, nil, Errorf("could not find '%s' key in iterated item '%s'", k, value.Str(cur))
		}
		if i < len(keys)-1 {
			d, isDict := v.(*value.Dict)
			if !isDict {
				if skipMissing {
					continue
				}
				return nil, nil, Errorf("the key %s should point to a dictionary, got '%s'", k, value.Str(v))
			}
			d = d.Copy()
			cur.Set(k, d)
			cur = d
			continue
		}
		l, isList := v.([]any)
		if !isList {
			return nil, nil, Errorf("the key %s should point to a list, got '%s'", k, value.Str(v))
		}
		cur.Delete(k)
		return root, l, nil
	}
	return root, nil, nil
}

// lookupRandomChoice picks one of the terms with a secure random source,
// as secrets.choice does; without terms it returns none.
func lookupRandomChoice(_ *Ctx, terms []any, _ *Args) ([]any, error) {
	if len(terms) == 0 {
		return []any{}, nil
	}
	n, err := rand.Int(rand.Reader, big.NewInt(int64(len(terms))))
	if err != nil {
		return nil, Errorf("Unable to choose random term: %s", err.Error())
	}
	return []any{terms[n.Int64()]}, nil
}
