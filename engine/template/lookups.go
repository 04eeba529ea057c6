package template

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// builtinLookups returns the lookup plugins.
func builtinLookups() map[string]LookupFunc {
	m := map[string]LookupFunc{
		"env":           lookupEnv,
		"file":          lookupFile,
		"template":      lookupTemplate,
		"vars":          lookupVars,
		"items":         lookupItems,
		"list":          lookupList,
		"first_found":   lookupFirstFound,
		"dict":          lookupDict,
		"indexed_items": lookupIndexedItems,
		"sequence":      lookupSequence,
		"fileglob":      lookupFileglob,
		"lines":         nil,
		"together":      lookupTogether,
		"nested":        lookupNested,
		"subelements":   lookupSubelements,
	}
	out := map[string]LookupFunc{}
	for k, f := range m {
		if f != nil {
			out[k] = f
		}
	}
	return out
}

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

func lookupEnv(c *Ctx, terms []any, a *Args) ([]any, error) {
	def, hasDef := "", false
	var defV any
	if a.Kw != nil {
		if v, ok := a.Kw.Get("default"); ok {
			defV, hasDef = v, true
		}
	}
	_ = def
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		s, ok := t.(string)
		if !ok {
			return nil, typeErrorf("'%s' object has no attribute 'split'", value.TypeName(t))
		}
		fields := strings.Fields(s)
		if len(fields) == 0 {
			return nil, typeErrorf("list index out of range")
		}
		name := fields[0]
		if v, ok := c.Engine().Getenv(name); ok {
			out = append(out, v)
		} else if hasDef {
			out = append(out, defV)
		} else {
			out = append(out, "")
		}
	}
	return out, nil
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

func lookupTemplate(c *Ctx, terms []any, a *Args) ([]any, error) {
	kw, err := lookupOptions("template", a, "convert_data", "template_vars", "jinja2_native",
		"variable_start_string", "variable_end_string", "comment_start_string", "comment_end_string", "trim_blocks")
	if err != nil {
		return nil, err
	}
	locals := value.NewDict(0)
	if tv, ok := kw.Get("template_vars"); ok {
		d, isD := tv.(*value.Dict)
		if !isD {
			return nil, Errorf("Invalid type for configuration option template_vars: expected dictionary")
		}
		locals.Update(d)
	}
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		name := value.Str(t)
		p, ok := findInSearchPath(c, "templates", name)
		if !ok {
			return nil, Errorf("the template file %s could not be found for the lookup", name)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, Errorf("the template file %s could not be found for the lookup", name)
		}
		var res any
		if locals.Len() > 0 {
			res, err = c.RenderWith(string(b), locals)
		} else {
			res, err = c.Render(string(b))
		}
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

func lookupVars(c *Ctx, terms []any, a *Args) ([]any, error) {
	kw, err := lookupOptions("vars", a, "default")
	if err != nil {
		return nil, err
	}
	def, hasDef := kw.Get("default")
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		name, ok := t.(string)
		if !ok {
			return nil, Errorf("Variable name must be 'str' not %s.", value.Repr(value.TypeName(t)))
		}
		v := c.lookupName(name)
		if u, isU := v.(value.Undefined); isU {
			if _, isGlobal := globals[name]; isGlobal || u.Msg == undefinedName(name).Msg {
				if hasDef && def != nil {
					out = append(out, def)
					continue
				}
				return nil, &UndefinedError{Msg: "No variable named '" + name + "' was found."}
			}
			return nil, undefinedErr(u)
		}
		if _, isGlobal := v.(globalFunc); isGlobal {
			if hasDef && def != nil {
				out = append(out, def)
				continue
			}
			return nil, &UndefinedError{Msg: "No variable named '" + name + "' was found."}
		}
		out = append(out, v)
	}
	return out, nil
}

func flattenOnce(terms []any) []any {
	out := []any{}
	for _, t := range terms {
		switch x := t.(type) {
		case []any:
			out = append(out, x...)
		case value.Tuple:
			out = append(out, x...)
		default:
			out = append(out, t)
		}
	}
	return out
}

func lookupItems(_ *Ctx, terms []any, _ *Args) ([]any, error) { return flattenOnce(terms), nil }

func lookupList(_ *Ctx, terms []any, _ *Args) ([]any, error) { return terms, nil }

func lookupIndexedItems(_ *Ctx, terms []any, _ *Args) ([]any, error) {
	items := flattenOnce(terms)
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = value.Tuple{i, it}
	}
	return out, nil
}

func lookupDict(_ *Ctx, terms []any, _ *Args) ([]any, error) {
	out := []any{}
	for _, t := range terms {
		d, ok := t.(*value.Dict)
		if !ok {
			return nil, Errorf("the 'dict' lookup plugin expects a dictionary, got '%s' of type %s)", value.Str(t), argClassRepr(t))
		}
		d.Each(func(k string, v any) bool {
			out = append(out, value.DictOf("key", k, "value", v))
			return true
		})
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

func kwGet(kw *value.Dict, k string) any {
	v, _ := kw.Get(k)
	return v
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

var (
	seqNum      = `(0?x?[0-9a-f]+)`
	seqShortcut = regexp.MustCompile(`(?i)^(` + seqNum + `-)?` + seqNum + `(/` + seqNum + `)?(:(.+))?$`)
	kvRe        = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)
)

// seqInt converts a sequence option as Ansible's 'integer' option type does.
func seqInt(name, s string) (int, error) {
	n, ok := py.ParseInt(s, 10)
	if !ok {
		return 0, Errorf("Config '%s' for 'sequence' lookup plugin from 'Direct' has an invalid value: Invalid value provided for 'integer': %s", name, value.Repr(s))
	}
	return n, nil
}

func lookupSequence(_ *Ctx, terms []any, a *Args) ([]any, error) {
	if a.Kw != nil && a.Kw.Len() > 0 && len(terms) == 0 {
		terms = []any{""}
	}
	var out []any
	for _, t := range terms {
		opts := map[string]string{}
		if a.Kw != nil {
			for _, k := range a.Kw.Keys() {
				v, _ := a.Kw.Get(k)
				opts[k] = value.Str(v)
			}
		}
		term := value.Str(t)
		if m := seqShortcut.FindStringSubmatch(term); m != nil {
			if m[2] != "" {
				opts["start"] = m[2]
			}
			opts["end"] = m[3]
			if m[5] != "" {
				opts["stride"] = m[5]
			}
			if m[7] != "" {
				opts["format"] = m[7]
			}
		} else {
			var unknown []string
			for _, f := range strings.Fields(term) {
				kv := kvRe.FindStringSubmatch(f)
				if kv == nil {
					return nil, Errorf("unknown error parsing with_sequence arguments: %s. Error was: %s", value.Repr(term), "bad argument")
				}
				switch kv[1] {
				case "start", "end", "stride", "count", "format":
					opts[kv[1]] = kv[2]
				default:
					unknown = append(unknown, "'"+kv[1]+"'")
				}
			}
			if len(unknown) > 0 {
				return nil, Errorf("unrecognized arguments to with_sequence: [%s]", strings.Join(unknown, ", "))
			}
		}
		start, stride := 1, 1
		var end, count *int
		var err error
		for _, k := range []string{"start", "end", "stride", "count", "format"} {
			v, ok := opts[k]
			if !ok {
				continue
			}
			switch k {
			case "start":
				if start, err = seqInt(k, v); err != nil {
					return nil, err
				}
			case "stride":
				if stride, err = seqInt(k, v); err != nil {
					return nil, err
				}
			case "end", "count":
				n, err := seqInt(k, v)
				if err != nil {
					return nil, err
				}
				if k == "end" {
					end = &n
				} else {
					count = &n
				}
			case "format":
			default:
				return nil, Errorf("unrecognized arguments to with_sequence: ['%s']", k)
			}
		}
		format := "%d"
		if f, ok := opts["format"]; ok {
			format = f
		}
		switch {
		case count == nil && end == nil:
			return nil, Errorf("must specify count or end in with_sequence")
		case count != nil && end != nil:
			return nil, Errorf("can't specify both count and end in with_sequence")
		case count != nil:
			if *count == 0 {
				continue
			}
			e := start + *count*stride - 1
			end = &e
		}
		if stride > 0 && *end < start {
			return nil, Errorf("to count backwards make stride negative")
		}
		if stride < 0 && *end > start {
			return nil, Errorf("to count forward don't make stride negative")
		}
		if stride == 0 {
			continue
		}
		if strings.Count(format, "%") != 1 {
			return nil, Errorf("bad formatting string: %s", format)
		}
		adjust := 1
		if stride < 0 {
			adjust = -1
		}
		for i := start; (stride > 0 && i < *end+adjust) || (stride < 0 && i > *end+adjust); i += stride {
			s, err := py.Percent(format, i)
			if err != nil {
				return nil, Errorf("problem formatting %d with %s", i, value.Repr(format))
			}
			out = append(out, s)
		}
	}
	if out == nil {
		out = []any{}
	}
	return out, nil
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

func lookupTogether(_ *Ctx, terms []any, _ *Args) ([]any, error) {
	if len(terms) == 0 {
		return nil, Errorf("with_together requires at least one element in each list")
	}
	lists := make([][]any, len(terms))
	n := 0
	for i, t := range terms {
		items, err := iterate(t)
		if err != nil {
			items = []any{t}
		}
		lists[i] = items
		n = max(n, len(items))
	}
	out := make([]any, n)
	for i := 0; i < n; i++ {
		row := make([]any, len(lists))
		for j, l := range lists {
			if i < len(l) {
				row[j] = l[i]
			}
		}
		out[i] = row
	}
	return out, nil
}

func lookupNested(_ *Ctx, terms []any, _ *Args) ([]any, error) {
	if len(terms) == 0 {
		return nil, Errorf("with_nested requires at least one element in the nested list")
	}
	result := [][]any{{}}
	for _, t := range terms {
		items, err := iterate(t)
		if err != nil {
			items = []any{t}
		}
		var next [][]any
		for _, r := range result {
			for _, x := range items {
				next = append(next, append(append([]any{}, r...), x))
			}
		}
		result = next
	}
	out := make([]any, len(result))
	for i, r := range result {
		out[i] = r
	}
	return out, nil
}

func lookupSubelements(c *Ctx, terms []any, a *Args) ([]any, error) {
	if len(terms) < 2 || len(terms) > 3 {
		return nil, Errorf("subelements lookup expects a list of two or three items, ")
	}
	args := &Args{Pos: []any{terms[1]}}
	if len(terms) == 3 {
		if d, ok := terms[2].(*value.Dict); ok {
			args.Kw = value.NewDict(1)
			args.Kw.Set("skip_missing", kwGet(d, "skip_missing"))
		}
	}
	r, err := filterSubelements(c, terms[0], args)
	if err != nil {
		return nil, err
	}
	items := r.([]any)
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = []any(it.(value.Tuple))
	}
	return out, nil
}
