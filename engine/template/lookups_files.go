package template

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// fileLookups returns ansible-core's lookups of files on the controller.
func fileLookups() family {
	return family{collection: "ansible.builtin", lookups: map[string]LookupFunc{
		"file":        lookupFile,
		"fileglob":    lookupFileglob,
		"first_found": lookupFirstFound,
		"template":    lookupTemplate,
	}}
}

func lookupFile(c *Ctx, terms []any, a *Args) ([]any, error) {
	kw, err := lookupOptions("file", a, "lstrip", "rstrip")
	if err != nil {
		return nil, err
	}
	lstrip, rstrip := false, true
	if v, ok := kw.Get("lstrip"); ok {
		lstrip = value.Truthy(v)
	}
	if v, ok := kw.Get("rstrip"); ok {
		rstrip = value.Truthy(v)
	}
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		name := value.Str(t)
		p, ok := findInSearchPath(c, "files", name)
		if !ok {
			return nil, Errorf("Unable to access the file %s: File not found. Use -vvvvv to see paths searched.", value.Repr(name))
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, Errorf("Unable to access the file %s: %s", value.Repr(name), err.Error())
		}
		s := string(b)
		if lstrip {
			s = strings.TrimLeftFunc(s, py.IsSpace)
		}
		if rstrip {
			s = strings.TrimRightFunc(s, py.IsSpace)
		}
		out = append(out, s)
	}
	return out, nil
}

// lookupTemplate renders template files as ansible-core's template lookup
// does: with the lookup's delimiter and trim_blocks options, the
// template_* variables and the template_vars option on top of the task's
// variables. Options it does not know are ignored, as ansible-core's
// set_options ignores them; the deprecated convert_data and jinja2_native
// are accepted and have no effect.
func lookupTemplate(c *Ctx, terms []any, a *Args) ([]any, error) {
	kw := a.Kw
	if kw == nil {
		kw = value.NewDict(0)
	}
	extra := value.NewDict(0)
	if tv, ok := kw.Get("template_vars"); ok {
		d, isD := tv.(*value.Dict)
		if !isD {
			return nil, Errorf("Config 'template_vars' for 'template' lookup plugin from 'Direct' has an invalid value: Invalid value provided for 'dict': %s", value.Repr(tv))
		}
		extra = d
	}
	cfg := lookupSyntax(kw)
	if !cfg.DistinctStarts() {
		return nil, Errorf(syntax.ErrSameStart)
	}
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		name := value.Str(t)
		p, ok := findInSearchPath(c, "templates", name)
		if !ok {
			c.warn(Warning{Msg: fmt.Sprintf("Unable to find '%s' in expected paths (use -vvvvv to see paths)", name)})
			return nil, Errorf("the template file %s could not be found for the lookup", name)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, Errorf("the template file %s could not be found for the lookup", name)
		}
		_, _, userManaged := c.vars.Lookup("ansible_managed")
		locals, err := FileVars(name, p, nil, c.eng.Now(), !userManaged)
		if err != nil {
			return nil, Errorf("the template file %s could not be found for the lookup", name)
		}
		locals.Update(extra)
		res, err := c.renderFile(p, string(b), locals, &cfg)
		if err != nil {
			// ansible-core's template inside a lookup yields a marker, which
			// no lookup error handling catches.
			return nil, &passThrough{err}
		}
		out = append(out, res)
	}
	return out, nil
}

// lookupSyntax is the environment of the template lookup's options.
func lookupSyntax(kw *value.Dict) syntax.Config {
	cfg := syntax.Default()
	for key, field := range map[string]*string{
		"variable_start_string": &cfg.VariableStart, "variable_end_string": &cfg.VariableEnd,
		"comment_start_string": &cfg.CommentStart, "comment_end_string": &cfg.CommentEnd,
	} {
		if v, ok := kw.Get(key); ok && v != nil {
			*field = value.Str(v)
		}
	}
	if v, ok := kw.Get("trim_blocks"); ok {
		cfg.TrimBlocks, _ = py.LenientBoolean(v)
	}
	return cfg
}

func lookupFileglob(c *Ctx, terms []any, _ *Args) ([]any, error) {
	out := []any{}
	for _, t := range terms {
		pat := value.Str(t)
		dirs := []string{""}
		if !filepath.IsAbs(pat) {
			dirs = nil
			for _, p := range c.SearchPaths() {
				dirs = append(dirs, filepath.Join(p, "files"), p)
			}
			if len(dirs) == 0 {
				dirs = []string{"."}
			}
		}
		for _, d := range dirs {
			matches, _ := filepath.Glob(filepath.Join(d, pat))
			found := false
			for _, m := range matches {
				if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
					out = append(out, m)
					found = true
				}
			}
			if found {
				break
			}
		}
	}
	return out, nil
}

func splitOn(v any, seps string) []string {
	var out []string
	var items []any
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		items = []any{x}
	default:
		items, _ = iterate(x)
	}
	for _, it := range items {
		s := value.Str(it)
		for _, p := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func firstFoundTerms(terms []any, kw *value.Dict) ([]string, error) {
	var total []string
	for _, t := range terms {
		var files []string
		paths := splitOn(kwGet(kw, "paths"), ",:;")
		switch x := t.(type) {
		case *value.Dict:
			for _, k := range x.Keys() {
				if k != "files" && k != "paths" && k != "skip" {
					return nil, Errorf("Unrecognized argument(s) for first_found: %s", k)
				}
			}
			f, _ := x.Get("files")
			files = splitOn(f, ",;")
			if p, ok := x.Get("paths"); ok {
				paths = splitOn(p, ",:;")
			}
		case string:
			files = []string{x}
		case []any, value.Tuple:
			items, _ := iterate(x)
			sub, err := firstFoundTerms(items, kw)
			if err != nil {
				return nil, err
			}
			total = append(total, sub...)
			continue
		default:
			return nil, Errorf("Invalid term supplied. A string, dict or list is required, not %s).", value.Repr(value.TypeName(t)))
		}
		if len(paths) > 0 {
			for _, p := range paths {
				for _, f := range files {
					total = append(total, py.Join([]string{p, f}))
				}
			}
		} else {
			total = append(total, files...)
		}
	}
	return total, nil
}

func lookupFirstFound(c *Ctx, terms []any, a *Args) ([]any, error) {
	kw, err := lookupOptions("first_found", a, "files", "paths", "skip")
	if err != nil {
		return nil, err
	}
	if len(terms) == 0 {
		if f, ok := kw.Get("files"); ok {
			terms = []any{f}
		}
	}
	total, err := firstFoundTerms(terms, kw)
	if err != nil {
		return nil, err
	}
	for _, fn := range total {
		if p, ok := findInSearchPath(c, "", fn); ok {
			abs, err := filepath.Abs(p)
			if err == nil {
				p = abs
			}
			return []any{p}, nil
		}
	}
	if value.Truthy(kwGet(kw, "skip")) {
		return []any{}, nil
	}
	return nil, Errorf("No file was found when using first_found.")
}
