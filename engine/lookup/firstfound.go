package lookup

import (
	"regexp"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// firstFoundLookups returns ansible-core's first_found lookup.
func firstFoundLookups() template.Library {
	return template.Library{Collection: "ansible.builtin",
		Lookups: map[string]template.LookupFunc{
			"first_found": lookupFirstFound,
		},
		LookupOptions: optionsOf("first_found"),
		TakeUndefined: []string{"first_found"},
	}
}

// firstFoundSubdir is the subdirectory first_found searches first. Run by
// a with_first_found loop, it follows the task's action (templates for a
// template task, vars for include_vars, files otherwise). Called as
// lookup() or query() ansible-core passes no subdirectory, which its
// search turns into a directory literally named "None".
func firstFoundSubdir(c *template.Ctx) string {
	action := c.LoopAction()
	if action == "" {
		return "None"
	}
	for _, kind := range []string{"template", "var"} {
		if strings.Contains(action, kind) {
			return kind + "s"
		}
	}
	return "files"
}

// firstFoundRun holds the options of one first_found call while its terms
// are read: a dict term replaces them all, as set_options does, and later
// terms see what it set.
type firstFoundRun struct {
	c    *template.Ctx
	opts map[string]any
}

func lookupFirstFound(c *template.Ctx, terms []any, a *template.Args) ([]any, error) {
	if c.LoopAction() != "" {
		terms = dropUndefined(terms).([]any)
	} else if err := firstUndefined(terms); err != nil {
		return nil, err
	}
	opts, err := c.LookupOptions("first_found", a)
	if err != nil {
		return nil, err
	}
	run := &firstFoundRun{c: c, opts: opts}
	if len(terms) == 0 {
		terms, _ = opts["files"].([]any)
	}
	candidates, err := run.process(terms)
	if err != nil {
		return nil, err
	}
	subdir := firstFoundSubdir(c)
	for _, fn := range candidates {
		if p := c.FindFile(subdir, fn); p != "" {
			return []any{py.Abspath(p)}, nil
		}
	}
	if run.opts["skip"] == true {
		return []any{}, nil
	}
	return nil, template.Errorf("No file was found when using first_found.")
}

// process lists the paths to try for the terms: each file of a term under
// each of the paths option's directories, or as given without paths.
func (r *firstFoundRun) process(terms []any) ([]string, error) {
	var total []string
	for _, t := range terms {
		var files any
		desc := "files"
		switch x := t.(type) {
		case *value.Dict:
			opts, err := r.c.LookupOptions("first_found", &template.Args{Kw: x})
			if err != nil {
				return nil, err
			}
			r.opts = opts
			files, desc = opts["files"], "the 'files' option"
		case string:
			files = []any{x}
		case []any, value.Tuple:
			items, _ := template.Iterate(x)
			sub, err := r.process(items)
			if err != nil {
				return nil, err
			}
			total = append(total, sub...)
			continue
		default:
			return nil, template.Errorf("Invalid term supplied. A string, dict or list is required, not %s).", value.Repr(value.TypeName(t)))
		}
		fileList := r.splitOn(desc, files, ",;")
		pathList := r.splitOn(`the "paths" option`, r.opts["paths"], ",:;")
		if len(pathList) == 0 {
			total = append(total, fileList...)
			continue
		}
		for _, p := range pathList {
			for _, f := range fileList {
				total = append(total, py.Join([]string{p, f}))
			}
		}
	}
	return total, nil
}

// splitOn splits each string of v on any of the separators, with the
// deprecation warning ansible-core gives when a string does split.
func (r *firstFoundRun) splitOn(target string, v any, seps string) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		parts := regexp.MustCompile("["+regexp.QuoteMeta(seps)+"]").Split(x, -1)
		if len(parts) > 1 {
			w := diag.Deprecate("Automatic splitting of "+target+" on "+value.Repr(seps)+" is deprecated.", "2.23", diag.Unknown())
			w.Plugin, w.Note, w.Help = "lookup plugin 'first_found'", x, "Provide a list of paths for "+target+" instead."
			r.c.Warn(w)
		}
		return parts
	}
	items, _ := template.Iterate(v)
	var out []string
	for _, it := range items {
		out = append(out, r.splitOn(target, it, seps)...)
	}
	return out
}

// dropUndefined removes undefined values from lists and dicts, as
// first_found does for a with_first_found loop's terms.
func dropUndefined(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			if _, u := e.(value.Undefined); !u {
				out = append(out, dropUndefined(e))
			}
		}
		return out
	case *value.Dict:
		out := value.NewDict(x.Len())
		x.Each(func(k string, e any) bool {
			if _, u := e.(value.Undefined); !u {
				out.Set(k, dropUndefined(e))
			}
			return true
		})
		return out
	}
	return v
}

// firstUndefined returns the error of the first undefined value inside v.
func firstUndefined(v any) error {
	switch x := v.(type) {
	case value.Undefined:
		return template.UndefinedErr(x)
	case []any:
		for _, e := range x {
			if err := firstUndefined(e); err != nil {
				return err
			}
		}
	case *value.Dict:
		var err error
		x.Each(func(_ string, e any) bool { err = firstUndefined(e); return err == nil })
		return err
	}
	return nil
}
