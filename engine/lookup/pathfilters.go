package lookup

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/template"
)

// pathFilters returns ansible-core's path filters that read the
// controller: its filesystem (realpath, fileglob) or the run's
// environment (expanduser, expandvars). The pure path filters (basename,
// dirname, path_join, ...) are the language's.
func pathFilters() template.Library {
	return template.Library{Collection: "ansible.builtin", Filters: map[string]template.FilterFunc{
		"expanduser": pathFilter("expanduser", func(c *template.Ctx, p string) any { return py.ExpandUser(p, c.Engine().Getenv) }),
		"expandvars": pathFilter("expandvars", func(c *template.Ctx, p string) any { return py.ExpandVars(p, c.Engine().Getenv) }),
		"fileglob":   pathFilter("fileglob", func(_ *template.Ctx, p string) any { return fileglob(p) }),
		"realpath":   pathFilter("realpath", func(_ *template.Ctx, p string) any { return py.Realpath(p) }),
	}}
}

// pathFilter is a filter of one path and no arguments, as the Python
// function fn it stands for.
func pathFilter(fn string, f func(c *template.Ctx, path string) any) template.FilterFunc {
	return func(c *template.Ctx, in any, a *template.Args) (any, error) {
		if _, err := py.Sig(fn).Bind(a); err != nil {
			return nil, err
		}
		s, err := py.Fspath(in)
		if err != nil {
			return nil, err
		}
		return f(c, s), nil
	}
}

// fileglob is the regular files matching pattern, without the hidden
// ones unless the pattern's last part asks for them.
func fileglob(pattern string) []any {
	matches, _ := filepath.Glob(pattern)
	out := []any{}
	for _, m := range matches {
		if strings.HasPrefix(filepath.Base(m), ".") && !strings.HasPrefix(filepath.Base(pattern), ".") {
			continue
		}
		if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
			out = append(out, m)
		}
	}
	return out
}
