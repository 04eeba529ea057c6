package template

// Lookup plugins live in the lookups_*.go files, one family each (files,
// variables, list shapes, sequence). A lookup is a LookupFunc added to its
// family's map: it gets the terms (the positional arguments after the
// plugin's name) and its options in a.Kw, already without lookup()'s own
// wantlist and errors, and returns a list, which invokeLookup merges for
// lookup() or returns as is for query() and with_<lookup> loops. The helpers
// here check options as ansible-core's get_option does and find files as
// its find_file_in_search_path does.

import (
	"os"
	"path/filepath"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// lookupOptions checks keyword options against the plugin's known ones.
func lookupOptions(name string, a *Args, known ...string) (*value.Dict, error) {
	kw := a.Kw
	if kw == nil {
		kw = value.NewDict(0)
	}
	for _, k := range kw.Keys() {
		found := false
		for _, n := range known {
			found = found || n == k
		}
		if !found {
			return nil, Errorf("Unrecognized argument(s) for %s: %s", name, k)
		}
	}
	return kw, nil
}

// findInSearchPath is Ansible's find_file_in_search_path: each search path
// with the subdirectory, then the path itself, then the needle as given.
func findInSearchPath(c *Ctx, subdir, needle string) (string, bool) {
	exists := func(p string) bool {
		st, err := os.Stat(p)
		return err == nil && !st.IsDir()
	}
	if filepath.IsAbs(needle) {
		return needle, exists(needle)
	}
	for _, p := range c.SearchPaths() {
		var cands []string
		if subdir != "" {
			cands = append(cands, filepath.Join(p, subdir, needle))
			if filepath.Base(p) == "tasks" {
				cands = append(cands, filepath.Join(filepath.Dir(p), subdir, needle))
			}
		}
		cands = append(cands, filepath.Join(p, needle))
		for _, cand := range cands {
			if exists(cand) {
				return cand, true
			}
		}
	}
	if len(c.SearchPaths()) == 0 && exists(needle) {
		return needle, true
	}
	return "", false
}

func kwGet(kw *value.Dict, k string) any {
	v, _ := kw.Get(k)
	return v
}
