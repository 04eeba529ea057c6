package template

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// pathFilters returns ansible-core's path filters (posixpath and ntpath).
func pathFilters() family {
	return family{collection: "ansible.builtin", filters: map[string]FilterFunc{
		"basename":       pathFilter("basename", py.Basename),
		"commonpath":     filterCommonpath,
		"dirname":        pathFilter("dirname", py.Dirname),
		"expanduser":     filterExpanduser,
		"expandvars":     filterExpandvars,
		"fileglob":       filterFileglob,
		"normpath":       pathFilter("normpath", py.Normpath),
		"path_join":      filterPathJoin,
		"realpath":       pathFilter("realpath", py.Realpath),
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

func filterExpanduser(c *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("expanduser").Bind(a); err != nil {
		return nil, err
	}
	s, err := py.Fspath(in)
	if err != nil {
		return nil, err
	}
	return py.ExpandUser(s, c.Engine().Getenv), nil
}

func filterExpandvars(c *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("expandvars").Bind(a); err != nil {
		return nil, err
	}
	s, err := py.Fspath(in)
	if err != nil {
		return nil, err
	}
	return py.ExpandVars(s, c.Engine().Getenv), nil
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
		items, _ := iterate(x)
		if len(items) == 0 {
			return nil, typeErrorf("join() missing 1 required positional argument: 'a'")
		}
		parts := make([]string, len(items))
		for i, it := range items {
			s, ok := it.(string)
			if !ok {
				return nil, typeErrorf("join() argument must be str, bytes, or os.PathLike object, not '%s'", value.TypeName(it))
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

func filterFileglob(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("fileglob").Bind(a); err != nil {
		return nil, err
	}
	s, err := py.Fspath(in)
	if err != nil {
		return nil, err
	}
	matches, _ := filepath.Glob(s)
	out := []any{}
	for _, m := range matches {
		if strings.HasPrefix(filepath.Base(m), ".") && !strings.HasPrefix(filepath.Base(s), ".") {
			continue
		}
		if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
			out = append(out, m)
		}
	}
	return out, nil
}
