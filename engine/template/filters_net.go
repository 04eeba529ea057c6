package template

import (
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// netFilters returns ansible-core's URL filters (the ipaddr family is ansible.utils').
func netFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"urldecode": filterURLDecode,
		"urlsplit":  filterURLSplit,
	}}
}

func filterURLSplit(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("split_url", py.Opt("query", ""), py.Opt("alias", "urlsplit")).Bind(a)
	if err != nil {
		return nil, err
	}
	s, ok := in.(string)
	if !ok {
		return nil, TypeErrorf("'%s' object has no attribute 'decode'", value.TypeName(in))
	}
	u, err := py.URLSplit(s)
	if err != nil {
		return nil, err
	}
	d, err := u.Dict()
	if err != nil {
		return nil, err
	}
	if q := value.Str(v[0]); value.Truthy(v[0]) {
		x, ok := d.Get(q)
		if !ok {
			return nil, TypeErrorf("%s: unknown URL component: %s", value.Str(v[1]), q)
		}
		return x, nil
	}
	return d, nil
}

func filterURLDecode(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("unquote_plus").Bind(a); err != nil {
		return nil, err
	}
	s, ok := in.(string)
	if !ok {
		return nil, TypeErrorf("a bytes-like object is required, not '%s'", value.TypeName(in))
	}
	return py.UnquotePlus(s), nil
}
