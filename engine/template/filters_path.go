package template

import (
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// pathFilters returns ansible-core's path filters (posixpath and ntpath).
func pathFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"basename":       pathFilter("basename", py.Basename),
		"commonpath":     filterCommonpath,
		"dirname":        pathFilter("dirname", py.Dirname),
		"normpath":       pathFilter("normpath", py.Normpath),
		"path_join":      filterPathJoin,
		"relpath":        filterRelpath,
		"splitext":       filterSplitext,
		"win_basename":   pathFilter("basename", func(p string) string { _, b := py.WinSplit(p); return b }),
		"win_dirname":    pathFilter("dirname", func(p string) string { d, _ := py.WinSplit(p); return d }),
		"win_splitdrive": filterWinSplitdrive,
	}}
}

func pathFilter(fn string, f func(string) string) FilterFunc {
	return func(_ *Ctx, in any, a *Args) (any, error) {
		if _, err := py.Sig(fn).Bind(a); err != nil {
			return nil, err
		}
		s, err := py.Fspath(in)
		if err != nil {
			return nil, err
		}
		return f(s), nil
	}
}

func filterRelpath(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("relpath", py.OptNone("start")).Bind(a)
	if err != nil {
		return nil, err
	}
	return py.Relpath(in, v[0])
}

func filterSplitext(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("splitext").Bind(a); err != nil {
		return nil, err
	}
	s, err := py.Fspath(in)
	if err != nil {
		return nil, err
	}
	r, e := py.Splitext(s)
	return value.Tuple{r, e}, nil
}

func filterPathJoin(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("path_join").Bind(a); err != nil {
		return nil, err
	}
	switch x := in.(type) {
	case string:
		return x, nil
	case []any, value.Tuple:
		items, _ := Iterate(x)
		if len(items) == 0 {
			return nil, TypeErrorf("join() missing 1 required positional argument: 'a'")
		}
		parts := make([]string, len(items))
		for i, it := range items {
			s, ok := it.(string)
			if !ok {
				return nil, TypeErrorf("join() argument must be str, bytes, or os.PathLike object, not '%s'", value.TypeName(it))
			}
			parts[i] = s
		}
		return py.Join(parts), nil
	}
	return nil, Errorf("|path_join expects string or sequence, got %s instead.", argClassRepr(in))
}

func filterCommonpath(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("commonpath").Bind(a); err != nil {
		return nil, err
	}
	items, ok := listOrTuple(in)
	if !ok {
		return nil, Errorf("|commonpath expects sequence, got %s instead.", argClassRepr(in))
	}
	return py.Commonpath(items)
}

func filterWinSplitdrive(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("splitdrive").Bind(a); err != nil {
		return nil, err
	}
	s, err := py.Fspath(in)
	if err != nil {
		return nil, err
	}
	d, r := py.WinSplitdrive(s)
	return value.Tuple{d, r}, nil
}
