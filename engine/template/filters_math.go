package template

import (
	"fmt"
	"math"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// mathFilters returns ansible-core's math filters (mathstuff).
func mathFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"combinations":    filterCombinations,
		"human_readable":  filterHumanReadable,
		"human_to_bytes":  filterHumanToBytes,
		"log":             filterLog,
		"permutations":    filterPermutations,
		"pow":             filterPow,
		"product":         filterProduct,
		"rekey_on_member": filterRekeyOnMember,
		"root":            filterRoot,
	}}
}

func filterLog(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("logarithm", py.Opt("base", math.E)).Bind(a)
	if err != nil {
		return nil, err
	}
	x, ok1 := value.AsFloat(in)
	b, ok2 := value.AsFloat(v[0])
	if !ok1 || !ok2 {
		return nil, Errorf("log() can only be used on numbers")
	}
	if x <= 0 || b <= 0 || b == 1 {
		if b == 1 && x > 0 {
			return nil, TypeErrorf("float division by zero")
		}
		return nil, TypeErrorf("math domain error")
	}
	if b == 10 {
		return math.Log10(x), nil
	}
	if b == math.E {
		return math.Log(x), nil
	}
	return math.Log(x) / math.Log(b), nil
}

func filterPow(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("power", py.Req("y")).Bind(a)
	if err != nil {
		return nil, err
	}
	x, ok1 := value.AsFloat(in)
	y, ok2 := value.AsFloat(v[0])
	if !ok1 || !ok2 {
		return nil, Errorf("pow() can only be used on numbers")
	}
	r := math.Pow(x, y)
	if math.IsNaN(r) {
		return nil, TypeErrorf("math domain error")
	}
	return r, nil
}

func filterRoot(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("inversepower", py.Opt("base", 2)).Bind(a)
	if err != nil {
		return nil, err
	}
	x, ok1 := value.AsFloat(in)
	b, ok2 := value.AsFloat(v[0])
	if !ok1 || !ok2 || (x < 0 && b == 2) {
		return nil, Errorf("root() can only be used on numbers")
	}
	if b == 2 {
		return math.Sqrt(x), nil
	}
	r := math.Pow(x, 1/b)
	// Go's Pow can miss the exact root of a perfect power by an ulp where
	// C's pow (and so Python's math.pow) returns it exactly.
	if n := math.Round(r); n != r && math.Abs(n-r) < 1e-9*math.Max(1, math.Abs(n)) && math.Pow(n, b) == x {
		return n, nil
	}
	return r, nil
}

func filterHumanReadable(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("human_readable", py.Opt("isbits", false), py.OptNone("unit")).Bind(a)
	if err != nil {
		return nil, err
	}
	size, ok := value.AsFloat(in)
	if !ok {
		return nil, Errorf("human_readable() failed on bad input: '>=' not supported between instances of '%s' and 'int'", value.TypeName(in))
	}
	units := []struct {
		s string
		l float64
	}{{"Y", 1 << 80}, {"Z", 1 << 70}, {"E", 1 << 60}, {"P", 1 << 50}, {"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	base := "Bytes"
	if value.Truthy(v[0]) {
		base = "bits"
	}
	var unit string
	if v[1] != nil {
		unit = strings.ToUpper(value.Str(v[1]))
	}
	suffix, limit := "", 1.0
	for _, u := range units {
		suffix, limit = u.s, u.l
		if (v[1] == nil && size >= u.l) || (v[1] != nil && unit != "" && unit[:1] == u.s) {
			break
		}
	}
	if limit != 1 {
		suffix += base[:1]
	} else {
		suffix = base
	}
	return fmt.Sprintf("%.2f %s", size/limit, suffix), nil
}

func filterHumanToBytes(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("human_to_bytes", py.OptNone("default_unit"), py.Opt("isbits", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	unit := ""
	if v[0] != nil {
		unit = value.Str(v[0])
	}
	n, err := py.HumanToBytes(value.Str(in), unit, value.Truthy(v[1]))
	if err != nil {
		return nil, Errorf("human_to_bytes() can't interpret the input: %s", err)
	}
	return n, nil
}

func filterProduct(_ *Ctx, in any, a *Args) (any, error) {
	repeat := 1
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "repeat" {
				return nil, TypeErrorf("'%s' is an invalid keyword argument for product()", k)
			}
			x, _ := a.Kw.Get(k)
			n, err := py.Index(x)
			if err != nil {
				return nil, err
			}
			repeat = n
		}
	}
	lists, err := zipArgs(in, a)
	if err != nil {
		return nil, err
	}
	var pools [][]any
	for i := 0; i < repeat; i++ {
		pools = append(pools, lists...)
	}
	result := [][]any{{}}
	for _, pool := range pools {
		var next [][]any
		for _, r := range result {
			for _, x := range pool {
				next = append(next, append(append([]any{}, r...), x))
			}
		}
		result = next
	}
	out := make([]any, len(result))
	for i, r := range result {
		out[i] = value.Tuple(r)
	}
	return out, nil
}

func filterPermutations(_ *Ctx, in any, a *Args) (any, error) {
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "r" {
				return nil, TypeErrorf("'%s' is an invalid keyword argument for permutations()", k)
			}
		}
	}
	pool, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	r := len(pool)
	if x, ok := a.Get(0, "r"); ok && x != nil {
		if r, err = py.Index(x); err != nil {
			return nil, err
		}
	}
	out := []any{}
	if r > len(pool) || r < 0 {
		return out, nil
	}
	var rec func(prefix []any, used []bool)
	rec = func(prefix []any, used []bool) {
		if len(prefix) == r {
			out = append(out, value.Tuple(append([]any{}, prefix...)))
			return
		}
		for i := range pool {
			if !used[i] {
				used[i] = true
				rec(append(prefix, pool[i]), used)
				used[i] = false
			}
		}
	}
	rec(nil, make([]bool, len(pool)))
	return out, nil
}

func filterCombinations(_ *Ctx, in any, a *Args) (any, error) {
	x, ok := a.Get(0, "r")
	if !ok {
		return nil, TypeErrorf("combinations() missing required argument 'r' (pos 2)")
	}
	r, err := py.Index(x)
	if err != nil {
		return nil, err
	}
	pool, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	out := []any{}
	var rec func(start int, prefix []any)
	rec = func(start int, prefix []any) {
		if len(prefix) == r {
			out = append(out, value.Tuple(append([]any{}, prefix...)))
			return
		}
		for i := start; i < len(pool); i++ {
			rec(i+1, append(prefix, pool[i]))
		}
	}
	if r >= 0 {
		rec(0, nil)
	}
	return out, nil
}

func filterRekeyOnMember(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("rekey_on_member", py.Req("key"), py.Opt("duplicates", "error")).Bind(a)
	if err != nil {
		return nil, err
	}
	dup := value.Str(v[1])
	if dup != "error" && dup != "overwrite" {
		return nil, Errorf("duplicates parameter to rekey_on_member has unknown value %s", value.Repr(v[1]))
	}
	var items []any
	switch x := in.(type) {
	case *value.Dict:
		x.Each(func(_ string, e any) bool { items = append(items, e); return true })
	case []any, value.Tuple:
		items, _ = Iterate(x)
	default:
		return nil, Errorf("Type is not a valid list, set, or dict")
	}
	out := value.NewDict(len(items))
	for _, it := range items {
		d, ok := it.(*value.Dict)
		if !ok {
			return nil, Errorf("List item is not a valid dict")
		}
		k, ok := d.Get(value.Str(v[0]))
		if !ok {
			return nil, Errorf("Key %s was not found.", value.Repr(v[0]))
		}
		ks := value.Str(k)
		if out.Has(ks) && dup == "error" {
			return nil, Errorf("Key %s is not unique, cannot convert to dict.", value.Repr(k))
		}
		out.Set(ks, it)
	}
	return out, nil
}
