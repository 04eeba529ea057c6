package template

import (
	"github.com/cfzt/cfzt-runner/engine/value"
)

// globalFunc is a callable available by name in every template.
type globalFunc func(c *Ctx, a *Args) (any, error)

func (globalFunc) String() string { return "<function>" }

var globals map[string]any

func init() {
	// Built here rather than in a literal because lookup refers back to the
	// engine's lookup table through Ctx.
	globals = map[string]any{
		"range":     globalFunc(globalRange),
		"lookup":    globalFunc(globalLookup),
		"query":     globalFunc(globalQuery),
		"q":         globalFunc(globalQuery),
		"dict":      globalFunc(globalDict),
		"namespace": globalFunc(globalNamespace),
		"now":       globalFunc(globalNow),
		"undef":     globalFunc(globalUndef),
	}
}

func globalRange(_ *Ctx, a *Args) (any, error) {
	ints := make([]int, len(a.Pos))
	for i, v := range a.Pos {
		n, ok := value.AsInt(v)
		if !ok {
			return nil, typeErrorf("'%s' object cannot be interpreted as an integer", value.TypeName(v))
		}
		ints[i] = n
	}
	r := &rangeVal{step: 1}
	switch len(ints) {
	case 1:
		r.stop = ints[0]
	case 2:
		r.start, r.stop = ints[0], ints[1]
	case 3:
		r.start, r.stop, r.step = ints[0], ints[1], ints[2]
		if r.step == 0 {
			return nil, typeErrorf("range() arg 3 must not be zero")
		}
	default:
		return nil, typeErrorf("range expected at most 3 arguments, got %d", len(ints))
	}
	if n := len(r.list()); n > 100000 {
		return nil, typeErrorf("Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).")
	}
	return r, nil
}

func globalDict(_ *Ctx, a *Args) (any, error) {
	d := value.NewDict(0)
	if v, ok := a.Get(0, ""); ok {
		switch x := v.(type) {
		case *value.Dict:
			d.Update(x)
		default:
			items, err := iterate(v)
			if err != nil {
				return nil, err
			}
			for _, it := range items {
				pair, err := iterate(it)
				if err != nil || len(pair) != 2 {
					return nil, typeErrorf("dictionary update sequence element has wrong length")
				}
				d.Set(value.Str(pair[0]), pair[1])
			}
		}
	}
	if a.Kw != nil {
		d.Update(a.Kw)
	}
	return d, nil
}

func globalNamespace(_ *Ctx, a *Args) (any, error) {
	d := value.NewDict(0)
	if v, ok := a.Get(0, ""); ok {
		if x, ok := v.(*value.Dict); ok {
			d.Update(x)
		}
	}
	if a.Kw != nil {
		d.Update(a.Kw)
	}
	return &namespace{d: d}, nil
}

func globalNow(c *Ctx, a *Args) (any, error) {
	t := c.eng.Now()
	if a.Bool(0, "utc", false) {
		t = t.UTC()
	} else {
		t = t.Local()
	}
	if f, ok := a.Get(1, "fmt"); ok {
		return strftime(t, value.Str(f)), nil
	}
	return t.Format("2006-01-02 15:04:05.000000"), nil
}

func globalUndef(_ *Ctx, a *Args) (any, error) {
	hint := a.String(0, "hint", "")
	if hint == "" {
		hint = "Mandatory variable has not been overridden"
	}
	return value.Undefined{Msg: hint}, nil
}

func globalLookup(c *Ctx, a *Args) (any, error) {
	res, err := runLookup(c, a)
	if err != nil {
		return nil, err
	}
	if a.Kw != nil {
		if wl, ok := a.Kw.Get("wantlist"); ok && value.Truthy(wl) {
			return res, nil
		}
	}
	if len(res) == 1 {
		return res[0], nil
	}
	parts := make([]string, len(res))
	for i, r := range res {
		parts[i] = value.Str(r)
	}
	joined := ""
	for i, p := range parts {
		if i > 0 {
			joined += ","
		}
		joined += p
	}
	return joined, nil
}

func globalQuery(c *Ctx, a *Args) (any, error) {
	return runLookup(c, a)
}

func runLookup(c *Ctx, a *Args) ([]any, error) {
	if len(a.Pos) == 0 {
		return nil, Errorf("lookup requires a plugin name")
	}
	name := stripFQCN(value.Str(a.Pos[0]))
	fn, ok := c.eng.lookups[name]
	if !ok {
		return nil, Errorf("lookup plugin (%s) not found", name)
	}
	kw := a.Kw
	if kw != nil && kw.Has("wantlist") {
		kw = kw.Copy()
		kw.Delete("wantlist")
	}
	terms := append([]any(nil), a.Pos[1:]...)
	return fn(c, terms, &Args{Kw: kw})
}
