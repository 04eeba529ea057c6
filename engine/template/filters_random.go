package template

import (
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// randomFilters returns ansible-core's random filters, seeded as Python's random.Random.
func randomFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"random":  filterRandom,
		"shuffle": filterShuffle,
	}}
}

func filterRandom(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("rand", py.OptNone("start"), py.OptNone("step"), py.OptNone("seed")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	var r py.RandSource = py.SystemRandom{}
	if v[2] != nil {
		pr, err := py.NewRandom(v[2])
		if err != nil {
			return nil, err
		}
		r = pr
	}
	if end, ok := in.(int); ok {
		start, step := 0, 1
		if value.Truthy(v[0]) {
			if start, err = py.Index(v[0]); err != nil {
				return nil, err
			}
		}
		if value.Truthy(v[1]) {
			if step, err = py.Index(v[1]); err != nil {
				return nil, err
			}
		}
		width := end - start
		if step == 1 {
			if width <= 0 {
				return nil, TypeErrorf("empty range for randrange() (%d, %d, %d)", start, end, width)
			}
			return start + r.Randbelow(width), nil
		}
		var n int
		switch {
		case step > 0:
			n = py.FloorDiv(width+step-1, step)
		case step < 0:
			n = py.FloorDiv(width+step+1, step)
		default:
			return nil, TypeErrorf("zero step for randrange()")
		}
		if n <= 0 {
			return nil, TypeErrorf("empty range for randrange()")
		}
		return start + step*r.Randbelow(n), nil
	}
	switch in.(type) {
	case bool:
		return nil, Errorf("random can only be used on sequences and integers")
	case string, []any, value.Tuple, *value.Dict, *py.Range:
	default:
		return nil, Errorf("random can only be used on sequences and integers")
	}
	if value.Truthy(v[0]) || value.Truthy(v[1]) {
		return nil, Errorf("start and step can only be used with integer values")
	}
	items, _ := Iterate(in)
	if len(items) == 0 {
		return nil, TypeErrorf("Cannot choose from an empty sequence")
	}
	i := r.Randbelow(len(items))
	if d, ok := in.(*value.Dict); ok {
		return nil, TypeErrorf("%d", i+0*d.Len())
	}
	return items[i], nil
}

func filterShuffle(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("randomize_list", py.OptNone("seed")).Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := Iterate(in)
	if err != nil {
		return in, nil
	}
	out := append([]any{}, items...)
	var r py.RandSource = py.SystemRandom{}
	if value.Truthy(v[0]) {
		pr, err := py.NewRandom(v[0])
		if err != nil {
			return in, nil
		}
		r = pr
	}
	for i := len(out) - 1; i > 0; i-- {
		j := r.Randbelow(i + 1)
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}
