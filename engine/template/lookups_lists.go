package template

import "github.com/cfzt/cfzt-runner/engine/value"

// listLookups returns ansible-core's lookups that reshape their terms (the with_<lookup> loops).
func listLookups() family {
	return family{collection: "ansible.builtin", lookups: map[string]LookupFunc{
		"dict":          lookupDict,
		"indexed_items": lookupIndexedItems,
		"items":         lookupItems,
		"list":          lookupList,
		"nested":        lookupNested,
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
		items, err := iterate(t)
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
		items, err := iterate(t)
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

func lookupSubelements(c *Ctx, terms []any, a *Args) ([]any, error) {
	if len(terms) < 2 || len(terms) > 3 {
		return nil, Errorf("subelements lookup expects a list of two or three items, ")
	}
	args := &Args{Pos: []any{terms[1]}}
	if len(terms) == 3 {
		if d, ok := terms[2].(*value.Dict); ok {
			args.Kw = value.NewDict(1)
			args.Kw.Set("skip_missing", kwGet(d, "skip_missing"))
		}
	}
	r, err := filterSubelements(c, terms[0], args)
	if err != nil {
		return nil, err
	}
	items := r.([]any)
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = []any(it.(value.Tuple))
	}
	return out, nil
}
