package template

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ansibleCoreFilters returns ansible-core's general filters (default replaces Jinja2's).
func ansibleCoreFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"b64decode":  filterB64decode,
		"b64encode":  filterB64encode,
		"bool":       filterBool,
		"comment":    filterComment,
		"d":          filterDefault,
		"default":    filterDefault,
		"mandatory":  filterMandatory,
		"quote":      filterQuote,
		"split":      filterSplit,
		"ternary":    filterTernary,
		"type_debug": filterTypeDebug,
	}}
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

func filterMandatory(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("mandatory", py.OptNone("msg")).Bind(a)
	if err != nil {
		return nil, err
	}
	u, ok := in.(value.Undefined)
	if !ok {
		return in, nil
	}
	if v[0] != nil {
		return nil, Errorf("%s", value.Str(v[0]))
	}
	name := ""
	if m := undefinedNameRe.FindStringSubmatch(u.Msg); m != nil {
		name = "'" + m[1] + m[2] + "' "
	}
	return nil, Errorf("Mandatory variable %snot defined.", name)
}

// undefinedNameRe finds the name of an undefined variable or attribute in
// its message, as Jinja2 keeps it in Undefined._undefined_name.
var undefinedNameRe = regexp.MustCompile(`^'([^']*)' is undefined|has no attribute '?(.*?)'?$`)

func filterBool(c *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("to_bool").Bind(a); err != nil {
		return nil, err
	}
	var check any = in
	switch x := in.(type) {
	case string:
		check = strings.ToLower(x)
	case bool:
		if x {
			check = "true"
		} else {
			check = "false"
		}
	case int:
		check = strconv.Itoa(x)
	}
	if s, ok := check.(string); ok {
		switch s {
		case "yes", "on", "true", "1":
			return true, nil
		case "no", "off", "false", "0":
			return false, nil
		}
	}
	res := value.Equal(check, 1)
	c.warn(diag.Deprecate(fmt.Sprintf("The `bool` filter coerced invalid value %s (%s) to %s.", value.Repr(in), value.TypeName(in), value.Repr(res)), "2.23", nil))
	return res, nil
}

func filterTernary(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("ternary", py.Req("true_val"), py.Req("false_val"), py.OptNone("none_val")).Bind(a)
	if err != nil {
		return nil, err
	}
	if in == nil && v[2] != nil {
		return v[2], nil
	}
	if u, ok := in.(value.Undefined); ok {
		return nil, UndefinedErr(u)
	}
	if value.Truthy(in) {
		return v[0], nil
	}
	return v[1], nil
}

func filterTypeDebug(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("type_debug").Bind(a); err != nil {
		return nil, err
	}
	return value.TypeName(in), nil
}

func filterComment(_ *Ctx, in any, a *Args) (any, error) {
	v, kw, err := py.Signature{Fn: "comment", Params: []py.Param{py.Opt("style", "plain")}, VarKw: true}.BindKw(a)
	if err != nil {
		return nil, err
	}
	text, ok := in.(string)
	if !ok {
		return nil, TypeErrorf("'%s' object has no attribute 'replace'", value.TypeName(in))
	}
	styles := map[string]map[string]string{
		"plain":  {"decoration": "# "},
		"erlang": {"decoration": "% "},
		"c":      {"decoration": "// "},
		"cblock": {"beginning": "/*", "decoration": " * ", "end": " */"},
		"xml":    {"beginning": "<!--", "decoration": " - ", "end": "-->"},
	}
	style, _ := v[0].(string)
	sp, ok := styles[style]
	if !ok {
		return nil, Errorf("Invalid style %s.", value.Repr(v[0]))
	}
	prepost := sp["decoration"]
	if kw != nil {
		if d, ok := kw.Get("decoration"); ok {
			prepost = value.Str(d)
		}
	}
	p := map[string]any{
		"newline": "\n", "beginning": "", "prefix": strings.TrimRight(prepost, " \t\n\r\v\f"), "prefix_count": 1,
		"decoration": "", "postfix": strings.TrimRight(prepost, " \t\n\r\v\f"), "postfix_count": 1, "end": "",
	}
	for k, x := range sp {
		p[k] = x
	}
	if kw != nil {
		kw.Each(func(k string, x any) bool { p[k] = x; return true })
	}
	str := func(k string) string { return value.Str(p[k]) }
	count := func(k string) (int, error) {
		switch x := p[k].(type) {
		case string:
			n, ok := py.ParseInt(x, 10)
			if !ok {
				return 0, TypeErrorf("invalid literal for int() with base 10: %s", value.Repr(x))
			}
			return n, nil
		default:
			n, ok := value.AsInt(x)
			if !ok {
				if f, isF := x.(float64); isF {
					return int(f), nil
				}
				return 0, TypeErrorf("int() argument must be a string, a bytes-like object or a real number, not '%s'", value.TypeName(x))
			}
			return n, nil
		}
	}
	nl := str("newline")
	beginning := ""
	if value.Truthy(p["beginning"]) {
		beginning = str("beginning") + nl
	}
	prefix := ""
	if value.Truthy(p["prefix"]) {
		n, err := count("prefix_count")
		if err != nil {
			return nil, err
		}
		if str("prefix") != nl {
			prefix = strings.Repeat(str("prefix")+nl, max(n, 0))
		} else {
			prefix = strings.Repeat(nl, max(n, 0))
		}
	}
	deco := str("decoration")
	body := deco + strings.ReplaceAll(text, nl, nl+deco)
	body = strings.ReplaceAll(body, deco+nl, strings.TrimRight(deco, " \t\n\r\v\f")+nl)
	pc, err := count("postfix_count")
	if err != nil {
		return nil, err
	}
	post := ""
	for i := 0; i < pc; i++ {
		post += nl + str("postfix")
	}
	end := ""
	if value.Truthy(p["end"]) {
		end = nl + str("end")
	}
	return beginning + prefix + body + post + end, nil
}

func filterSplit(_ *Ctx, in any, a *Args) (any, error) {
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "sep" && k != "maxsplit" {
				return nil, TypeErrorf("'%s' is an invalid keyword argument for split()", k)
			}
		}
	}
	if len(a.Pos) > 2 {
		return nil, TypeErrorf("split() takes at most 2 arguments (%d given)", len(a.Pos))
	}
	s, ok := in.(string)
	if !ok {
		return nil, TypeErrorf("descriptor 'split' for 'str' objects doesn't apply to a '%s' object", value.TypeName(in))
	}
	if sep, ok := a.Get(0, "sep"); ok && sep != nil {
		ss, isStr := sep.(string)
		if !isStr {
			return nil, TypeErrorf("must be str or None, not %s", value.TypeName(sep))
		}
		if ss == "" {
			return nil, TypeErrorf("empty separator")
		}
	}
	return py.Split(s, a, false), nil
}

func filterQuote(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("quote").Bind(a); err != nil {
		return nil, err
	}
	if in == nil {
		return "''", nil
	}
	return py.Quote(value.Str(in)), nil
}

func filterB64encode(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("b64encode", py.Opt("encoding", "utf-8"), py.Opt("urlsafe", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	b, err := py.Encode(value.Str(in), value.Str(v[0]))
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[1]) {
		return base64.URLEncoding.EncodeToString(b), nil
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

func filterB64decode(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("b64decode", py.Opt("encoding", "utf-8"), py.Opt("urlsafe", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	s := value.Str(in)
	if value.Truthy(v[1]) {
		s = strings.NewReplacer("-", "+", "_", "/").Replace(s)
	}
	b, err := py.B64Decode(s)
	if err != nil {
		return nil, err
	}
	return py.Decode(b, value.Str(v[0]))
}

// argClassRepr is repr(type(v)) for a plugin's argument. ansible-core hands
// plugins lazy containers, so dicts and lists show those classes.
func argClassRepr(v any) string {
	switch v.(type) {
	case *value.Dict, []any:
		return py.ClassRepr("ansible._internal._templating._lazy_containers." + lazyTypeName(v))
	}
	return py.ClassRepr(value.TypeName(v))
}

// lazyTypeName is type(v).__name__ for a plugin's argument: dicts and lists
// are ansible-core's lazy containers.
func lazyTypeName(v any) string {
	switch v.(type) {
	case *value.Dict:
		return "_AnsibleLazyTemplateDict"
	case []any:
		return "_AnsibleLazyTemplateList"
	}
	return value.TypeName(v)
}
