package template

import (
	"math"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// setFilters returns ansible-core's set filters, and unique.
func setFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"difference":           setFilter("difference"),
		"intersect":            setFilter("intersect"),
		"symmetric_difference": setFilter("symmetric_difference"),
		"union":                setFilter("union"),
		"unique":               filterUnique,
	}}
}

func allNumbers(lists ...[]any) bool {
	for _, l := range lists {
		for _, x := range l {
			if _, ok := value.AsFloat(x); !ok {
				return false
			}
			if f, ok := x.(float64); ok && math.IsNaN(f) {
				return false
			}
		}
	}
	return true
}

func orderedUnique(items []any) []any {
	out := []any{}
	for _, x := range items {
		if ok, _ := py.Contains(out, x); !ok {
			out = append(out, x)
		}
	}
	return out
}

func setFilter(op string) FilterFunc {
	return func(_ *Ctx, in any, a *Args) (any, error) {
		v, err := py.Sig(op, py.Req("b")).Implicit().Bind(a)
		if err != nil {
			return nil, err
		}
		x, err := Iterate(in)
		if err != nil {
			return nil, err
		}
		y, err := Iterate(v[0])
		if err != nil {
			return nil, err
		}
		if allNumbers(x, y) {
			return py.SetOp(op, x, y), nil
		}
		inB := func(e any) bool { ok, _ := py.Contains(y, e); return ok }
		switch op {
		case "union":
			return orderedUnique(append(append([]any{}, x...), y...)), nil
		case "intersect":
			var out []any
			for _, e := range x {
				if inB(e) {
					out = append(out, e)
				}
			}
			return orderedUnique(out), nil
		case "difference":
			var out []any
			for _, e := range x {
				if !inB(e) {
					out = append(out, e)
				}
			}
			return orderedUnique(out), nil
		}
		out := []any{}
		for _, e := range orderedUnique(append(append([]any{}, x...), y...)) {
			inA, _ := py.Contains(x, e)
			if !(inA && inB(e)) {
				out = append(out, e)
			}
		}
		return out, nil
	}
}

// filterUnique is Ansible's unique: Jinja2's (case-insensitive by
// default), falling back to an equality-based version for unhashable items.
func filterUnique(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("unique", py.OptNone("case_sensitive"), py.OptNone("attribute")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	key := attrGetter(v[1], !value.Truthy(v[0]), nil)
	seen := map[string]bool{}
	out := []any{}
	for _, it := range items {
		k, err := key(it)
		if err != nil {
			return nil, err
		}
		if u, ok := k.(value.Undefined); ok {
			return nil, UndefinedErr(u)
		}
		h, ok := py.HashKey(k)
		if !ok {
			if b, isB := v[0].(bool); (isB && !b) || v[1] != nil {
				return nil, Errorf("Jinja2's unique filter failed and we cannot fall back to Ansible's version as it does not support the parameters supplied: unhashable type: '%s'", value.TypeName(k))
			}
			return orderedUnique(items), nil
		}
		if !seen[h] {
			seen[h] = true
			out = append(out, it)
		}
	}
	return out, nil
}
