package template

import "github.com/cfzt/cfzt-runner/engine/value"

// jinjaApplyFilters returns Jinja2's filters that apply another filter, a test or an attribute to each item.
func jinjaApplyFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"map":        filterMap,
		"reject":     filterReject,
		"rejectattr": filterRejectattr,
		"select":     filterSelect,
		"selectattr": filterSelectattr,
	}}
}

func filterMap(c *Ctx, in any, a *Args) (any, error) {
	if !value.Truthy(in) {
		return []any{}, nil
	}
	var fn func(any) (any, error)
	if len(a.Pos) == 0 && a.Kw.Has("attribute") {
		kw := a.Kw.Copy()
		attr, _ := kw.Get("attribute")
		kw.Delete("attribute")
		def, _ := kw.Get("default")
		kw.Delete("default")
		if kw.Len() > 0 {
			return nil, Errorf("Unexpected keyword argument %s", value.Repr(kw.Keys()[0]))
		}
		fn = attrGetter(attr, false, def)
	} else {
		if len(a.Pos) == 0 {
			return nil, Errorf("map requires a filter argument")
		}
		name, rest := a.Pos[0], a.Pos[1:]
		fn = func(it any) (any, error) { return callFilterByName(c, name, it, rest, a.Kw) }
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(items))
	for i, it := range items {
		if out[i], err = fn(it); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func selectOrReject(c *Ctx, in any, a *Args, keep bool, lookupAttr bool) (any, error) {
	if !value.Truthy(in) {
		return []any{}, nil
	}
	args := a.Pos
	trans := func(x any) (any, error) { return x, nil }
	if lookupAttr {
		if len(args) == 0 {
			return nil, Errorf("Missing parameter for attribute name")
		}
		trans = attrGetter(args[0], false, nil)
		args = args[1:]
	}
	var test func(any) (bool, error)
	if len(args) == 0 {
		test = func(x any) (bool, error) {
			if u, ok := x.(value.Undefined); ok {
				return false, UndefinedErr(u)
			}
			return value.Truthy(x), nil
		}
	} else {
		name, rest := args[0], args[1:]
		test = func(x any) (bool, error) { return callTestByName(c, name, x, rest, a.Kw) }
	}
	items, err := Iterate(in)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, it := range items {
		x, err := trans(it)
		if err != nil {
			return nil, err
		}
		ok, err := test(x)
		if err != nil {
			return nil, err
		}
		if ok == keep {
			out = append(out, it)
		}
	}
	return out, nil
}

func filterSelect(c *Ctx, in any, a *Args) (any, error) { return selectOrReject(c, in, a, true, false) }

func filterReject(c *Ctx, in any, a *Args) (any, error) {
	return selectOrReject(c, in, a, false, false)
}

func filterSelectattr(c *Ctx, in any, a *Args) (any, error) {
	return selectOrReject(c, in, a, true, true)
}

func filterRejectattr(c *Ctx, in any, a *Args) (any, error) {
	return selectOrReject(c, in, a, false, true)
}

// callFilterByName applies a filter named in map() to one item.
func callFilterByName(c *Ctx, name any, in any, pos []any, kw *value.Dict) (any, error) {
	n, _ := name.(string)
	fn, ok := c.eng.lookupFilter(n)
	if !ok {
		return nil, Errorf("No filter named %s.", value.Repr(name))
	}
	if u, isU := in.(value.Undefined); isU && !undefinedOK[n] && !undefinedOK[stripFQCN(n)] {
		return nil, UndefinedErr(u)
	}
	return fn(c, in, &Args{Pos: pos, Kw: kw})
}

// callTestByName applies a test named in select() to one item.
func callTestByName(c *Ctx, name any, in any, pos []any, kw *value.Dict) (bool, error) {
	n, _ := name.(string)
	fn, ok := c.eng.lookupTest(n)
	if !ok {
		return false, Errorf("No test named %s.", value.Repr(name))
	}
	if u, isU := in.(value.Undefined); isU && !undefinedOK[n] && !undefinedOK[stripFQCN(n)] {
		return false, UndefinedErr(u)
	}
	return fn(c, in, &Args{Pos: pos, Kw: kw})
}
