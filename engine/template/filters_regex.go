package template

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// regexFilters returns ansible-core's regular expression filters, with Python's re syntax.
func regexFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"regex_escape":  filterRegexEscape,
		"regex_findall": filterRegexFindall,
		"regex_replace": filterRegexReplace,
		"regex_search":  filterRegexSearch,
	}}
}

func regexInput(in any) string {
	if s, ok := in.(string); ok {
		return s
	}
	return value.Str(in)
}

func filterRegexReplace(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Signature{Fn: "regex_replace", InOpt: true, Params: []py.Param{py.Opt("pattern", ""), py.Opt("replacement", ""), py.Opt("ignorecase", false), py.Opt("multiline", false), py.Opt("count", 0), py.Opt("mandatory_count", 0)}}.Bind(a)
	if err != nil {
		return nil, err
	}
	s := regexInput(in)
	re, err := py.CompileRegex(value.Str(v[0]), value.Truthy(v[2]), value.Truthy(v[3]))
	if err != nil {
		return nil, err
	}
	parts, err := py.ParseReplacement(value.Str(v[1]), re)
	if err != nil {
		return nil, err
	}
	count, err := py.Index(v[4])
	if err != nil {
		return nil, err
	}
	limit := -1
	if count > 0 {
		limit = count
	}
	ms, err := re.FindAllStringSubmatchIndex(s, limit)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m[0]])
		b.WriteString(parts.Expand(s, m))
		last = m[1]
	}
	b.WriteString(s[last:])
	if mc, _ := value.AsInt(v[5]); mc != 0 && mc != len(ms) {
		return nil, Errorf("'%s' should match %d times, but matches %d times in '%s'", value.Str(v[0]), mc, count, s)
	}
	return b.String(), nil
}

var (
	searchGroupNameRe = regexp.MustCompile(`^\\g<(\S+)>`)
	searchGroupNumRe  = regexp.MustCompile(`^\\(\d+)`)
)

func filterRegexSearch(_ *Ctx, in any, a *Args) (any, error) {
	if len(a.Pos) == 0 && !a.Kw.Has("regex") {
		return nil, TypeErrorf("regex_search() missing 1 required positional argument: 'regex'")
	}
	var pattern any
	var groupArgs []any
	if len(a.Pos) > 0 {
		pattern, groupArgs = a.Pos[0], a.Pos[1:]
	} else {
		pattern, _ = a.Kw.Get("regex")
	}
	ignorecase, multiline := false, false
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			x, _ := a.Kw.Get(k)
			switch k {
			case "ignorecase":
				ignorecase = value.Truthy(x)
			case "multiline":
				multiline = value.Truthy(x)
			case "regex":
				if len(a.Pos) > 0 {
					return nil, TypeErrorf("regex_search() got multiple values for argument 'regex'")
				}
			}
		}
	}
	s := regexInput(in)
	var groups []any
	for _, g := range groupArgs {
		gs, ok := g.(string)
		if !ok {
			return nil, TypeErrorf("'%s' object has no attribute 'startswith'", value.TypeName(g))
		}
		switch {
		case strings.HasPrefix(gs, `\g`):
			m := searchGroupNameRe.FindStringSubmatch(gs)
			if m == nil {
				return nil, TypeErrorf("'NoneType' object has no attribute 'group'")
			}
			groups = append(groups, m[1])
		case strings.HasPrefix(gs, `\`):
			m := searchGroupNumRe.FindStringSubmatch(gs)
			if m == nil {
				return nil, TypeErrorf("'NoneType' object has no attribute 'group'")
			}
			n, _ := strconv.Atoi(m[1])
			groups = append(groups, n)
		default:
			return nil, Errorf("Unknown argument")
		}
	}
	re, err := py.CompileRegex(value.Str(pattern), ignorecase, multiline)
	if err != nil {
		return nil, err
	}
	m, err := re.FindStringSubmatchIndex(s)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, nil
	}
	if len(groups) == 0 {
		return s[m[0]:m[1]], nil
	}
	out := make([]any, 0, len(groups))
	for _, g := range groups {
		idx := -1
		switch x := g.(type) {
		case int:
			idx = x
		case string:
			idx = re.SubexpIndex(x)
			if idx < 0 {
				return nil, TypeErrorf("no such group")
			}
		}
		if idx > re.NumSubexp() {
			return nil, TypeErrorf("no such group")
		}
		if m[2*idx] < 0 {
			out = append(out, nil)
		} else {
			out = append(out, s[m[2*idx]:m[2*idx+1]])
		}
	}
	return out, nil
}

func filterRegexFindall(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("regex_findall", py.Req("regex"), py.Opt("multiline", false), py.Opt("ignorecase", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	s := regexInput(in)
	re, err := py.CompileRegex(value.Str(v[0]), value.Truthy(v[2]), value.Truthy(v[1]))
	if err != nil {
		return nil, err
	}
	out := []any{}
	ms, err := re.FindAllStringSubmatchIndex(s, -1)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		grp := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return s[m[2*i]:m[2*i+1]]
		}
		switch n := re.NumSubexp(); n {
		case 0:
			out = append(out, grp(0))
		case 1:
			out = append(out, grp(1))
		default:
			t := make(value.Tuple, n)
			for i := 1; i <= n; i++ {
				t[i-1] = grp(i)
			}
			out = append(out, t)
		}
	}
	return out, nil
}

func filterRegexEscape(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("regex_escape", py.Opt("re_type", "python")).Bind(a)
	if err != nil {
		return nil, err
	}
	s := regexInput(in)
	switch value.Str(v[0]) {
	case "python":
		return backslashEscape(s, "()[]{}?*+-|^$\\.&~# \t\n\r\v\f"), nil
	case "posix_basic":
		return backslashEscape(s, "].[^$*\\"), nil
	case "posix_extended":
		return nil, Errorf("Regex type (%s) not yet implemented", value.Str(v[0]))
	}
	return nil, Errorf("Invalid regex type (%s)", value.Str(v[0]))
}

// backslashEscape puts a backslash before each character of s in special.
func backslashEscape(s, special string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(special, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
