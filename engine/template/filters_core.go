package template

import (
	"fmt"
	"html"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// coreFilters returns Jinja2's built-in filters, with the semantics and
// error wording they have under ansible-core 2.19.
func coreFilters() map[string]FilterFunc {
	m := map[string]FilterFunc{
		"abs":            filterAbs,
		"attr":           filterAttr,
		"batch":          filterBatch,
		"capitalize":     filterCapitalize,
		"center":         filterCenter,
		"count":          filterLength,
		"d":              filterDefault,
		"default":        filterDefault,
		"dictsort":       filterDictsort,
		"e":              filterEscape,
		"escape":         filterEscape,
		"filesizeformat": filterFilesizeformat,
		"first":          filterFirst,
		"float":          filterFloat,
		"forceescape":    filterForceescape,
		"format":         filterFormat,
		"groupby":        filterGroupby,
		"indent":         filterIndent,
		"int":            filterInt,
		"items":          filterItems,
		"join":           filterJoin,
		"last":           filterLast,
		"length":         filterLength,
		"list":           filterList,
		"lower":          filterLower,
		"map":            filterMap,
		"max":            filterMax,
		"min":            filterMin,
		"pprint":         filterPprint,
		"reject":         filterReject,
		"rejectattr":     filterRejectattr,
		"replace":        filterReplace,
		"reverse":        filterReverse,
		"round":          filterRound,
		"safe":           filterSafe,
		"select":         filterSelect,
		"selectattr":     filterSelectattr,
		"slice":          filterSlice,
		"sort":           filterSort,
		"string":         filterString,
		"striptags":      filterStriptags,
		"sum":            filterSum,
		"title":          filterTitle,
		"tojson":         filterTojson,
		"trim":           filterTrim,
		"truncate":       filterTruncate,
		"upper":          filterUpper,
		"urlencode":      filterUrlencode,
		"urlize":         filterUrlize,
		"wordcount":      filterWordcount,
		"wordwrap":       filterWordwrap,
		"xmlattr":        filterXmlattr,
	}
	for _, k := range []string{"e", "escape", "forceescape", "safe", "tojson"} {
		m[k] = returnsMarkup(m[k])
	}
	for k, f := range m {
		m[k] = wrapFilter("ansible.builtin."+k, f)
	}
	return m
}

// returnsMarkup marks a filter's string result as Jinja2's Markup.
func returnsMarkup(f FilterFunc) FilterFunc {
	return func(c *Ctx, in any, a *Args) (any, error) {
		v, err := f(c, in, a)
		if s, ok := v.(string); ok && err == nil {
			return markup(s), nil
		}
		return v, err
	}
}

// ---------------------------------------------------------------------------
// Plugin error wrapping.

// wrapFilter makes a filter's failures read as ansible-core 2.19 reports
// them: "The filter plugin 'ansible.builtin.X' failed: <message>". Undefined
// errors pass through unchanged, as do failures already attributed to a
// plugin (a filter called by map, a test called by select).
func wrapFilter(fqcn string, f FilterFunc) FilterFunc {
	return func(c *Ctx, in any, a *Args) (any, error) {
		v, err := f(c, in, a)
		if err != nil {
			return nil, pluginErr("filter", fqcn, err)
		}
		return v, nil
	}
}

func wrapTest(fqcn string, f TestFunc) TestFunc {
	return func(c *Ctx, in any, a *Args) (bool, error) {
		v, err := f(c, in, a)
		if err != nil {
			return false, pluginErr("test", fqcn, err)
		}
		return v, nil
	}
}

func pluginErr(kind, name string, err error) error {
	err = fromPy(err)
	switch err.(type) {
	case *UndefinedError, *PluginError:
		return err
	}
	return &PluginError{Kind: kind, Name: name, Cause: err}
}

// ---------------------------------------------------------------------------
// Python-style argument binding.

// ---------------------------------------------------------------------------
// Conversions shared by filters.

// softStr is markupsafe's soft_str: str() of the value.
func softStr(v any) string { return value.Str(v) }

// ---------------------------------------------------------------------------
// Attribute access as Jinja2's make_attrgetter does it.

func attrParts(attr any) []any {
	if attr == nil {
		return nil
	}
	if s, ok := attr.(string); ok {
		parts := strings.Split(s, ".")
		out := make([]any, len(parts))
		for i, p := range parts {
			if p != "" && strings.Trim(p, "0123456789") == "" {
				n, err := strconv.Atoi(p)
				if err == nil {
					out[i] = n
					continue
				}
			}
			out[i] = p
		}
		return out
	}
	return []any{attr}
}

func lookupParts(item any, parts []any, def any) (any, error) {
	var err error
	for _, p := range parts {
		if item, err = getItem(item, p); err != nil {
			return nil, err
		}
		if def != nil {
			if _, u := item.(value.Undefined); u {
				item = def
			}
		}
	}
	return item, nil
}

// attrGetter returns Jinja2's make_attrgetter(attribute, postprocess, default).
func attrGetter(attribute any, lower bool, def any) func(any) (any, error) {
	parts := attrParts(attribute)
	return func(item any) (any, error) {
		v, err := lookupParts(item, parts, def)
		if err != nil {
			return nil, err
		}
		if lower {
			v = ignoreCase(v)
		}
		return v, nil
	}
}

// multiAttrGetter returns Jinja2's make_multi_attrgetter: a list of keys.
func multiAttrGetter(attribute any, lower bool) func(any) (any, error) {
	var split []any
	if s, ok := attribute.(string); ok {
		for _, p := range strings.Split(s, ",") {
			split = append(split, p)
		}
	} else {
		split = []any{attribute}
	}
	getters := make([]func(any) (any, error), len(split))
	for i, s := range split {
		getters[i] = attrGetter(s, lower, nil)
	}
	return func(item any) (any, error) {
		out := make([]any, len(getters))
		for i, g := range getters {
			v, err := g(item)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
}

func ignoreCase(v any) any {
	if s, ok := v.(string); ok {
		return strings.ToLower(s)
	}
	return v
}

// ---------------------------------------------------------------------------
// Hashing as Python sets and dicts see it.

// ---------------------------------------------------------------------------
// The filters.

func filterAbs(_ *Ctx, in any, a *Args) (any, error) {
	if err := py.OneArg("abs", a); err != nil {
		return nil, err
	}
	switch x := in.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case int:
		if x < 0 {
			return -x, nil
		}
		return x, nil
	case float64:
		return math.Abs(x), nil
	}
	return nil, typeErrorf("bad operand type for abs(): '%s'", value.TypeName(in))
}

func filterAttr(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_attr", py.Req("name")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	name, ok := v[0].(string)
	if !ok {
		return nil, typeErrorf("attribute name must be string, not '%s'", value.TypeName(v[0]))
	}
	if py.HasMethod(in, name) {
		return &boundMethod{recv: in, name: name}, nil
	}
	switch o := in.(type) {
	case *namespace:
		if x, ok := o.get(name); ok {
			return x, nil
		}
	case *loopInfo:
		if x, ok := o.attr(name); ok {
			return x, nil
		}
	}
	return noAttr(in, name), nil
}

func filterBatch(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_batch", py.Req("linecount"), py.OptNone("fill_with")).Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	out := []any{}
	var tmp []any
	for _, it := range items {
		if value.Equal(len(tmp), v[0]) {
			out = append(out, tmp)
			tmp = nil
		}
		tmp = append(tmp, it)
	}
	if len(tmp) > 0 {
		if v[1] != nil {
			n, ok := value.AsInt(v[0])
			if !ok {
				return nil, typeErrorf("unsupported operand type(s) for -: '%s' and 'int'", value.TypeName(v[0]))
			}
			for len(tmp) < n {
				tmp = append(tmp, v[1])
			}
		}
		out = append(out, tmp)
	}
	return out, nil
}

func filterCapitalize(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_capitalize").Bind(a); err != nil {
		return nil, err
	}
	return py.Capitalize(softStr(in)), nil
}

func filterCenter(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_center", py.Opt("width", 80)).Bind(a)
	if err != nil {
		return nil, err
	}
	w, err := py.Index(v[0])
	if err != nil {
		return nil, err
	}
	s := softStr(in)
	n := w - utf8.RuneCountInString(s)
	if n <= 0 {
		return s, nil
	}
	left := n/2 + (n & w & 1)
	return strings.Repeat(" ", left) + s + strings.Repeat(" ", n-left), nil
}

// defaultSig is default's signature; the filter is on most template
// lines, so its signature is built once.
var defaultSig = py.Sig("ansible_default", py.Opt("default_value", ""), py.Opt("boolean", false))

func filterDefault(_ *Ctx, in any, a *Args) (any, error) {
	v, err := defaultSig.Bind(a)
	if err != nil {
		return nil, err
	}
	if _, ok := v[1].(bool); !ok {
		return nil, Errorf("The 'boolean' argument must be of type 'bool', not '%s'.", value.TypeName(v[1]))
	}
	if _, ok := in.(value.Undefined); ok {
		return v[0], nil
	}
	if v[1].(bool) && !value.Truthy(in) {
		return v[0], nil
	}
	return in, nil
}

func filterDictsort(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_dictsort", py.Opt("case_sensitive", false), py.Opt("by", "key"), py.Opt("reverse", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	pos := 0
	switch {
	case value.Equal(v[1], "key"):
	case value.Equal(v[1], "value"):
		pos = 1
	default:
		return nil, Errorf(`You can only sort by either "key" or "value"`)
	}
	d, ok := in.(*value.Dict)
	if !ok {
		return nil, typeErrorf("'%s' object has no attribute 'items'", value.TypeName(in))
	}
	items := make([]any, 0, d.Len())
	keys := make([]any, 0, d.Len())
	d.Each(func(k string, x any) bool {
		items = append(items, value.Tuple{k, x})
		key := []any{k, x}[pos]
		if !value.Truthy(v[0]) {
			key = ignoreCase(key)
		}
		keys = append(keys, key)
		return true
	})
	return py.SortByKeys(items, keys, value.Truthy(v[2]))
}

// htmlEscape is markupsafe.escape.
func htmlEscape(s string) string {
	r := strings.NewReplacer("&", "&amp;", ">", "&gt;", "<", "&lt;", "'", "&#39;", `"`, "&#34;")
	return r.Replace(s)
}

func filterEscape(_ *Ctx, in any, a *Args) (any, error) {
	if err := py.OneArg("markupsafe._speedups.escape", a); err != nil {
		return nil, err
	}
	if in == nil {
		return "None", nil
	}
	return htmlEscape(softStr(in)), nil
}

func filterForceescape(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_forceescape").Bind(a); err != nil {
		return nil, err
	}
	return htmlEscape(softStr(in)), nil
}

func filterFilesizeformat(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_filesizeformat", py.Opt("binary", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	bytes, err := py.Float(in)
	if err != nil {
		return nil, err
	}
	binary := value.Truthy(v[0])
	base := 1000.0
	prefixes := []string{"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"}
	if binary {
		base = 1024
		prefixes = []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"}
	}
	switch {
	case bytes == 1:
		return "1 Byte", nil
	case bytes < base:
		return fmt.Sprintf("%d Bytes", int(bytes)), nil
	}
	var unit float64
	var prefix string
	for i, p := range prefixes {
		unit = math.Pow(base, float64(i+2))
		prefix = p
		if bytes < unit {
			break
		}
	}
	return strconv.FormatFloat(base*bytes/unit, 'f', 1, 64) + " " + prefix, nil
}

func filterFirst(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("sync_do_first").Implicit().Bind(a); err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return value.Undefined{Msg: "No first item, sequence was empty."}, nil
	}
	return items[0], nil
}

func filterLast(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_last").Implicit().Bind(a); err != nil {
		return nil, err
	}
	switch in.(type) {
	case []any, value.Tuple, string, *value.Dict, *py.Range:
	default:
		return nil, typeErrorf("'%s' object is not reversible", value.TypeName(in))
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return value.Undefined{Msg: "No last item, sequence was empty."}, nil
	}
	return items[len(items)-1], nil
}

func filterFloat(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_float", py.Opt("default", 0.0)).Bind(a)
	if err != nil {
		return nil, err
	}
	f, err := py.Float(in)
	if err != nil {
		return v[0], nil
	}
	return f, nil
}

func filterFormat(_ *Ctx, in any, a *Args) (any, error) {
	if len(a.Pos) > 0 && a.Kw != nil && a.Kw.Len() > 0 {
		return nil, Errorf("can't handle positional and keyword arguments at the same time")
	}
	var arg any = value.Tuple(a.Pos)
	if a.Kw != nil && a.Kw.Len() > 0 {
		arg = a.Kw
	}
	return py.Percent(softStr(in), arg)
}

func filterGroupby(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("sync_do_groupby", py.Req("attribute"), py.OptNone("default"), py.Opt("case_sensitive", false)).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	cs := value.Truthy(v[2])
	keyOf := attrGetter(v[0], !cs, v[1])
	keys := make([]any, len(items))
	for i, it := range items {
		if keys[i], err = keyOf(it); err != nil {
			return nil, err
		}
	}
	sorted, err := py.SortByKeys(items, keys, false)
	if err != nil {
		return nil, err
	}
	out := []any{}
	var cur []any
	var curKey any
	for _, it := range sorted {
		k, _ := keyOf(it)
		if cur != nil && value.Equal(k, curKey) {
			cur = append(cur, it)
			continue
		}
		if cur != nil {
			out = append(out, &groupTuple{t: value.Tuple{curKey, cur}})
		}
		cur, curKey = []any{it}, k
	}
	if cur != nil {
		out = append(out, &groupTuple{t: value.Tuple{curKey, cur}})
	}
	if !cs {
		real := attrGetter(v[0], false, v[1])
		for _, g := range out {
			t := g.(*groupTuple).t
			k, err := real(t[1].([]any)[0])
			if err != nil {
				return nil, err
			}
			t[0] = k
		}
	}
	return out, nil
}

func filterIndent(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_indent", py.Opt("width", 4), py.Opt("first", false), py.Opt("blank", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	s, ok := in.(string)
	if !ok {
		return nil, typeErrorf("unsupported operand type(s) for +=: '%s' and 'str'", value.TypeName(in))
	}
	var ind string
	if w, ok := v[0].(string); ok {
		ind = w
	} else {
		n, err := py.Index(v[0])
		if err != nil {
			return nil, typeErrorf("can't multiply sequence by non-int of type '%s'", value.TypeName(v[0]))
		}
		ind = strings.Repeat(" ", max(n, 0))
	}
	lines := py.Splitlines(s+"\n", false)
	var rv string
	if value.Truthy(v[2]) {
		rv = strings.Join(lines, "\n"+ind)
	} else {
		rv = lines[0]
		if len(lines) > 1 {
			rest := make([]string, len(lines)-1)
			for i, l := range lines[1:] {
				if l != "" {
					l = ind + l
				}
				rest[i] = l
			}
			rv += "\n" + strings.Join(rest, "\n")
		}
	}
	if value.Truthy(v[1]) {
		rv = ind + rv
	}
	return rv, nil
}

func filterInt(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_int", py.Opt("default", 0), py.Opt("base", 10)).Bind(a)
	if err != nil {
		return nil, err
	}
	switch x := in.(type) {
	case string:
		// int(value, base) failing with a TypeError or ValueError (a bad
		// base included) falls back to int(float(value)), then the default.
		base, ok := value.AsInt(v[1])
		if ok && (base == 0 || (base >= 2 && base <= 36)) {
			if n, ok := py.ParseInt(x, base); ok {
				return n, nil
			}
		}
		f, ok := py.ParseFloat(x)
		if !ok || math.IsNaN(f) {
			return v[0], nil
		}
		if math.IsInf(f, 0) {
			return nil, typeErrorf("cannot convert float infinity to integer")
		}
		return py.FloatToInt(f), nil
	case bool, int:
		n, _ := value.AsInt(x)
		return n, nil
	case float64:
		if math.IsNaN(x) {
			return v[0], nil
		}
		if math.IsInf(x, 0) {
			return nil, typeErrorf("cannot convert float infinity to integer")
		}
		return py.FloatToInt(x), nil
	case *big.Int:
		return x, nil
	}
	return v[0], nil
}

func filterItems(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_items").Bind(a); err != nil {
		return nil, err
	}
	d, ok := in.(*value.Dict)
	if !ok {
		return nil, typeErrorf("Can only get item pairs from a mapping.")
	}
	out := make([]any, 0, d.Len())
	d.Each(func(k string, v any) bool { out = append(out, value.Tuple{k, v}); return true })
	return out, nil
}

func filterJoin(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("sync_do_join", py.Opt("d", ""), py.OptNone("attribute")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	var get func(any) (any, error)
	if v[1] != nil {
		get = attrGetter(v[1], false, nil)
	}
	parts := make([]string, len(items))
	for i, it := range items {
		if get != nil {
			if it, err = get(it); err != nil {
				return nil, err
			}
		}
		s, err := toText(it)
		if err != nil {
			return nil, err
		}
		parts[i] = s
	}
	return strings.Join(parts, softStr(v[0])), nil
}

func filterLength(_ *Ctx, in any, a *Args) (any, error) {
	if err := py.OneArg("len", a); err != nil {
		return nil, err
	}
	switch x := in.(type) {
	case *value.Dict:
		return x.Len(), nil
	case string, []any, value.Tuple:
		return seqLen(x), nil
	case *py.Range:
		return len(x.List()), nil
	}
	return nil, typeErrorf("object of type '%s' has no len()", value.TypeName(in))
}

func filterList(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("sync_do_list").Bind(a); err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	return append([]any{}, items...), nil
}

func filterLower(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_lower").Bind(a); err != nil {
		return nil, err
	}
	return py.Lower(softStr(in)), nil
}

func filterUpper(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_upper").Bind(a); err != nil {
		return nil, err
	}
	return py.Upper(softStr(in)), nil
}

// callFilterByName applies a filter named in map() to one item.
func callFilterByName(c *Ctx, name any, in any, pos []any, kw *value.Dict) (any, error) {
	n, _ := name.(string)
	fn, ok := c.eng.lookupFilter(n)
	if !ok {
		return nil, Errorf("No filter named %s.", value.Repr(name))
	}
	if u, isU := in.(value.Undefined); isU && !undefinedOK[n] && !undefinedOK[stripFQCN(n)] {
		return nil, undefinedErr(u)
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
		return false, undefinedErr(u)
	}
	return fn(c, in, &Args{Pos: pos, Kw: kw})
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
	items, err := iterate(in)
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
				return false, undefinedErr(u)
			}
			return value.Truthy(x), nil
		}
	} else {
		name, rest := args[0], args[1:]
		test = func(x any) (bool, error) { return callTestByName(c, name, x, rest, a.Kw) }
	}
	items, err := iterate(in)
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

func minOrMax(in any, a *Args, fn string, isMax bool) (any, error) {
	v, err := py.Sig(fn, py.Opt("case_sensitive", false), py.OptNone("attribute")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return value.Undefined{Msg: "No aggregated item, sequence was empty."}, nil
	}
	key := attrGetter(v[1], !value.Truthy(v[0]), nil)
	best := items[0]
	bestKey, err := key(best)
	if err != nil {
		return nil, err
	}
	op := "<"
	if isMax {
		op = ">"
	}
	for _, it := range items[1:] {
		k, err := key(it)
		if err != nil {
			return nil, err
		}
		if u, ok := py.FirstUndefined(k); ok {
			return nil, undefinedErr(u)
		}
		if u, ok := py.FirstUndefined(bestKey); ok {
			return nil, undefinedErr(u)
		}
		better, err := py.Compare(op, k, bestKey)
		if err != nil {
			return nil, err
		}
		if better {
			best, bestKey = it, k
		}
	}
	return best, nil
}

func filterMax(_ *Ctx, in any, a *Args) (any, error) { return minOrMax(in, a, "do_max", true) }
func filterMin(_ *Ctx, in any, a *Args) (any, error) { return minOrMax(in, a, "do_min", false) }

// filterPprint is pprint.pformat as ansible-core 2.19 shows it.
func filterPprint(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_pprint").Bind(a); err != nil {
		return nil, err
	}
	return py.Pformat(in), nil
}

func filterReplace(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_replace", py.Req("old"), py.Req("new"), py.OptNone("count")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	n := -1
	if v[2] != nil {
		if n, err = py.Index(v[2]); err != nil {
			return nil, err
		}
	}
	return strings.Replace(softStr(in), softStr(v[0]), softStr(v[1]), n), nil
}

func filterReverse(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_reverse").Bind(a); err != nil {
		return nil, err
	}
	if s, ok := in.(string); ok {
		r := []rune(s)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return string(r), nil
	}
	items, err := iterate(in)
	if err != nil {
		return nil, Errorf("argument must be iterable")
	}
	out := make([]any, len(items))
	for i, it := range items {
		out[len(items)-1-i] = it
	}
	return out, nil
}

func filterRound(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_round", py.Opt("precision", 0), py.Opt("method", "common")).Bind(a)
	if err != nil {
		return nil, err
	}
	method, _ := v[1].(string)
	if method != "common" && method != "ceil" && method != "floor" {
		return nil, Errorf("method must be common, ceil or floor")
	}
	if !value.IsNumber(in) {
		return nil, typeErrorf("type %s doesn't define __round__ method", value.TypeName(in))
	}
	prec, ok := value.AsInt(v[0])
	if !ok {
		return nil, typeErrorf("'%s' object cannot be interpreted as an integer", value.TypeName(v[0]))
	}
	if method == "common" {
		if f, isF := in.(float64); isF {
			return py.RoundFloat(f, prec), nil
		}
		i, _ := value.AsInt(in)
		return py.RoundInt(i, prec), nil
	}
	f, _ := value.AsFloat(in)
	p := math.Pow(10, float64(prec))
	var r float64
	if method == "ceil" {
		r = math.Ceil(f * p)
	} else {
		r = math.Floor(f * p)
	}
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return nil, typeErrorf("cannot convert float infinity to integer")
	}
	return r / p, nil
}

func filterSafe(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_mark_safe").Bind(a); err != nil {
		return nil, err
	}
	return softStr(in), nil
}

func filterSlice(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("sync_do_slice", py.Req("slices"), py.OptNone("fill_with")).Bind(a)
	if err != nil {
		return nil, err
	}
	seq, err := iterate(in)
	if err != nil {
		return nil, err
	}
	slices, err := py.Index(v[0])
	if err != nil {
		return nil, err
	}
	if slices == 0 {
		return nil, typeErrorf("integer division or modulo by zero")
	}
	n := len(seq)
	per := py.FloorDiv(n, slices)
	extra := n - per*slices
	offset := 0
	out := []any{}
	for i := 0; i < slices; i++ {
		start := offset + i*per
		if i < extra {
			offset++
		}
		end := offset + (i+1)*per
		var tmp []any
		for _, j := range py.SliceIndices(n, start, end, 1, true, true) {
			tmp = append(tmp, seq[j])
		}
		if tmp == nil {
			tmp = []any{}
		}
		if v[1] != nil && i >= extra {
			tmp = append(tmp, v[1])
		}
		out = append(out, tmp)
	}
	return out, nil
}

func filterSort(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_sort", py.Opt("reverse", false), py.Opt("case_sensitive", false), py.OptNone("attribute")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	key := multiAttrGetter(v[2], !value.Truthy(v[1]))
	keys := make([]any, len(items))
	for i, it := range items {
		if keys[i], err = key(it); err != nil {
			return nil, err
		}
	}
	return py.SortByKeys(items, keys, value.Truthy(v[0]))
}

func filterString(_ *Ctx, in any, a *Args) (any, error) {
	if err := py.OneArg("markupsafe._speedups.soft_str", a); err != nil {
		return nil, err
	}
	return softStr(in), nil
}

var (
	stripCommentsRe = regexp.MustCompile(`(?s)<!--.*?-->`)
	stripTagsRe     = regexp.MustCompile(`(?s)<.*?>`)
)

func filterStriptags(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_striptags").Bind(a); err != nil {
		return nil, err
	}
	s := stripCommentsRe.ReplaceAllString(softStr(in), "")
	s = stripTagsRe.ReplaceAllString(s, "")
	s = strings.Join(strings.FieldsFunc(s, py.IsSpace), " ")
	return html.UnescapeString(s), nil
}

func filterSum(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("sync_do_sum", py.OptNone("attribute"), py.Opt("start", 0)).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	acc := v[1]
	if _, isStr := acc.(string); isStr {
		return nil, typeErrorf("sum() can't sum strings [use ''.join(seq) instead]")
	}
	var get func(any) (any, error)
	if v[0] != nil {
		get = attrGetter(v[0], false, nil)
	}
	for _, it := range items {
		if get != nil {
			if it, err = get(it); err != nil {
				return nil, err
			}
		}
		if u, ok := it.(value.Undefined); ok {
			return nil, undefinedErr(u)
		}
		if acc, err = py.BinaryOp("+", acc, it); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

var titleSplitRe = regexp.MustCompile(`([-\s({\[<]+)`)

func filterTitle(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_title").Bind(a); err != nil {
		return nil, err
	}
	s := softStr(in)
	var b strings.Builder
	last := 0
	emit := func(item string) {
		if item == "" {
			return
		}
		r, size := utf8.DecodeRuneInString(item)
		b.WriteString(py.Upper(string(r)))
		b.WriteString(py.Lower(item[size:]))
	}
	for _, m := range titleSplitRe.FindAllStringIndex(s, -1) {
		emit(s[last:m[0]])
		emit(s[m[0]:m[1]])
		last = m[1]
	}
	emit(s[last:])
	return b.String(), nil
}

func filterTojson(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_tojson", py.OptNone("indent")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	o := py.JSONDumpOptions{SortKeys: true, EnsureASCII: true, ItemSep: ", ", KeySep: ": "}
	if v[0] != nil {
		if err := o.SetIndent(v[0]); err != nil {
			return nil, err
		}
	}
	s, err := py.JSONDumps(in, o)
	if err != nil {
		return nil, err
	}
	r := strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`, "'", `\u0027`)
	return r.Replace(s), nil
}

func filterTrim(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_trim", py.OptNone("chars")).Bind(a)
	if err != nil {
		return nil, err
	}
	return py.Strip(softStr(in), v[0], true, true), nil
}

func filterTruncate(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_truncate", py.Opt("length", 255), py.Opt("killwords", false), py.Opt("end", "..."), py.OptNone("leeway")).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	s := []rune(softStr(in))
	length, err := py.Index(v[0])
	if err != nil {
		return nil, err
	}
	end := softStr(v[2])
	leeway := 5
	if v[3] != nil {
		if leeway, err = py.Index(v[3]); err != nil {
			return nil, err
		}
	}
	endLen := utf8.RuneCountInString(end)
	if length < endLen {
		return nil, typeErrorf("expected length >= %d, got %d", endLen, length)
	}
	if leeway < 0 {
		return nil, typeErrorf("expected leeway >= 0, got %d", leeway)
	}
	if len(s) <= length+leeway {
		return string(s), nil
	}
	cut := string(s[:length-endLen])
	if value.Truthy(v[1]) {
		return cut + end, nil
	}
	if i := strings.LastIndex(cut, " "); i >= 0 {
		cut = cut[:i]
	}
	return cut + end, nil
}

// urlQuote is jinja2.utils.url_quote.
func urlQuote(v any, forQS bool) string {
	s := softStr(v)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '-', c == '~':
			b.WriteByte(c)
		case c == '/' && !forQS:
			b.WriteByte(c)
		case c == ' ' && forQS:
			b.WriteByte('+')
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func filterUrlencode(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_urlencode").Bind(a); err != nil {
		return nil, err
	}
	var pairs []any
	switch x := in.(type) {
	case *value.Dict:
		x.Each(func(k string, v any) bool { pairs = append(pairs, value.Tuple{k, v}); return true })
	case []any, value.Tuple:
		pairs, _ = iterate(x)
	default:
		return urlQuote(in, false), nil
	}
	parts := make([]string, 0, len(pairs))
	for _, p := range pairs {
		kv, err := iterate(p)
		if err != nil {
			return nil, err
		}
		if len(kv) != 2 {
			return nil, typeErrorf("too many values to unpack (expected 2)")
		}
		parts = append(parts, urlQuote(kv[0], true)+"="+urlQuote(kv[1], true))
	}
	return strings.Join(parts, "&"), nil
}

var (
	urlizeHTTPRe   = regexp.MustCompile(`(?i)^(?:(?:https?://|www\.)(?:(?:[\p{L}\p{N}_%-]+\.)+)?(?:[a-z]{2,63}|xn--[\p{L}\p{N}_%]{2,59})|(?:[\p{L}\p{N}_%-]{2,63}\.)+(?:com|net|int|edu|gov|org|info|mil)|(?:https?://)(?:(?:[\d]{1,3})(?:\.[\d]{1,3}){3}|\[(?:[\da-f]{0,4}:){2}(?:[\da-f]{0,4}:?){1,6}\]))(?::[\d]{1,5})?(?:[/?#]\S*)?$`)
	urlizeEmailRe  = regexp.MustCompile(`^\S+@[\p{L}\p{N}_][\p{L}\p{N}_.-]*\.[\p{L}\p{N}_]+$`)
	urlizeSchemeRe = regexp.MustCompile(`^[\p{L}\p{N}_.+-]{2,}:(/){0,2}$`)
	urlizeWordsRe  = regexp.MustCompile(`\s+`)
	urlizeHeadRe   = regexp.MustCompile(`^(?:[(<]|&lt;)+`)
	urlizeTailRe   = regexp.MustCompile(`(?:[)>.,\n]|&gt;)+$`)
)

func filterUrlize(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_urlize", py.OptNone("trim_url_limit"), py.Opt("nofollow", false), py.OptNone("target"), py.OptNone("rel"), py.OptNone("extra_schemes")).Bind(a)
	if err != nil {
		return nil, err
	}
	relParts := map[string]bool{"noopener": true}
	if v[3] != nil {
		for _, r := range strings.Fields(softStr(v[3])) {
			relParts[r] = true
		}
	}
	if value.Truthy(v[1]) {
		relParts["nofollow"] = true
	}
	var rels []string
	for r := range relParts {
		rels = append(rels, r)
	}
	sort.Strings(rels)
	rel := strings.Join(rels, " ")
	var schemes []string
	if v[4] != nil {
		items, err := iterate(v[4])
		if err != nil {
			return nil, err
		}
		for _, s := range items {
			if !urlizeSchemeRe.MatchString(softStr(s)) {
				return nil, Errorf("%s is not a valid URI scheme prefix.", value.Repr(s))
			}
			schemes = append(schemes, softStr(s))
		}
	}
	limit := -1
	if v[0] != nil {
		if limit, err = py.Index(v[0]); err != nil {
			return nil, err
		}
	}
	trim := func(x string) string {
		if r := []rune(x); limit >= 0 && len(r) > limit {
			return string(r[:limit]) + "..."
		}
		return x
	}
	relAttr := ""
	if rel != "" {
		relAttr = ` rel="` + htmlEscape(rel) + `"`
	}
	targetAttr := ""
	if v[2] != nil && value.Truthy(v[2]) {
		targetAttr = ` target="` + htmlEscape(softStr(v[2])) + `"`
	}
	text := htmlEscape(softStr(in))
	var b strings.Builder
	last := 0
	process := func(word string) string {
		head, middle, tail := "", word, ""
		if m := urlizeHeadRe.FindString(middle); m != "" {
			head, middle = m, middle[len(m):]
		}
		if m := urlizeTailRe.FindStringIndex(middle); m != nil {
			tail, middle = middle[m[0]:], middle[:m[0]]
		}
		for _, pair := range [][2]string{{"(", ")"}, {"<", ">"}, {"&lt;", "&gt;"}} {
			sc := strings.Count(middle, pair[0])
			if sc <= strings.Count(middle, pair[1]) {
				continue
			}
			n := min(sc, strings.Count(tail, pair[1]))
			for i := 0; i < n; i++ {
				end := strings.Index(tail, pair[1]) + len(pair[1])
				middle += tail[:end]
				tail = tail[end:]
			}
		}
		switch {
		case urlizeHTTPRe.MatchString(middle):
			href := middle
			if !strings.HasPrefix(middle, "https://") && !strings.HasPrefix(middle, "http://") {
				href = "https://" + middle
			}
			middle = `<a href="` + href + `"` + relAttr + targetAttr + `>` + trim(middle) + `</a>`
		case strings.HasPrefix(middle, "mailto:") && urlizeEmailRe.MatchString(middle[7:]):
			middle = `<a href="` + middle + `">` + middle[7:] + `</a>`
		case strings.Contains(middle, "@") && !strings.HasPrefix(middle, "www.") && !strings.Contains(middle, ":") && urlizeEmailRe.MatchString(middle):
			middle = `<a href="mailto:` + middle + `">` + middle + `</a>`
		default:
			for _, sch := range schemes {
				if middle != sch && strings.HasPrefix(middle, sch) {
					middle = `<a href="` + middle + `"` + relAttr + targetAttr + `>` + middle + `</a>`
				}
			}
		}
		return head + middle + tail
	}
	for _, m := range urlizeWordsRe.FindAllStringIndex(text, -1) {
		b.WriteString(process(text[last:m[0]]))
		b.WriteString(text[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(process(text[last:]))
	return b.String(), nil
}

var wordRe = regexp.MustCompile(`[\p{L}\p{N}_]+`)

func filterWordcount(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_wordcount").Bind(a); err != nil {
		return nil, err
	}
	return len(wordRe.FindAllString(softStr(in), -1)), nil
}

func filterWordwrap(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_wordwrap", py.Opt("width", 79), py.Opt("break_long_words", true), py.OptNone("wrapstring"), py.Opt("break_on_hyphens", true)).Implicit().Bind(a)
	if err != nil {
		return nil, err
	}
	width, err := py.Index(v[0])
	if err != nil {
		return nil, err
	}
	if width <= 0 {
		return nil, typeErrorf("invalid width %d (must be > 0)", width)
	}
	wrap := "\n"
	if v[2] != nil {
		wrap = softStr(v[2])
	}
	var paras []string
	for _, line := range py.Splitlines(softStr(in), false) {
		paras = append(paras, strings.Join(py.Wrap(line, width, value.Truthy(v[1]), value.Truthy(v[3])), wrap))
	}
	return strings.Join(paras, wrap), nil
}

var xmlAttrKeyRe = regexp.MustCompile(`[\s/>=]`)

func filterXmlattr(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_xmlattr", py.Opt("autospace", true)).Bind(a)
	if err != nil {
		return nil, err
	}
	d, ok := in.(*value.Dict)
	if !ok {
		return nil, typeErrorf("'%s' object has no attribute 'items'", value.TypeName(in))
	}
	var items []string
	for _, k := range d.Keys() {
		x, _ := d.Get(k)
		if x == nil {
			continue
		}
		if _, u := x.(value.Undefined); u {
			continue
		}
		if xmlAttrKeyRe.MatchString(k) {
			return nil, typeErrorf("Invalid character in attribute name: %s", value.Repr(k))
		}
		items = append(items, htmlEscape(k)+`="`+htmlEscape(softStr(x))+`"`)
	}
	rv := strings.Join(items, " ")
	if value.Truthy(v[0]) && rv != "" {
		rv = " " + rv
	}
	return rv, nil
}
