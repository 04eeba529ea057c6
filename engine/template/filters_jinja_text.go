package template

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// jinjaTextFilters returns Jinja2's built-in filters on text.
func jinjaTextFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"capitalize": filterCapitalize,
		"center":     filterCenter,
		"format":     filterFormat,
		"indent":     filterIndent,
		"lower":      filterLower,
		"pprint":     filterPprint,
		"replace":    filterReplace,
		"string":     filterString,
		"title":      filterTitle,
		"trim":       filterTrim,
		"truncate":   filterTruncate,
		"upper":      filterUpper,
		"wordcount":  filterWordcount,
		"wordwrap":   filterWordwrap,
	}}
}

// softStr is markupsafe's soft_str: str() of the value.
func softStr(v any) string { return value.Str(v) }

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

func filterIndent(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_indent", py.Opt("width", 4), py.Opt("first", false), py.Opt("blank", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	s, ok := in.(string)
	if !ok {
		return nil, TypeErrorf("unsupported operand type(s) for +=: '%s' and 'str'", value.TypeName(in))
	}
	var ind string
	if w, ok := v[0].(string); ok {
		ind = w
	} else {
		n, err := py.Index(v[0])
		if err != nil {
			return nil, TypeErrorf("can't multiply sequence by non-int of type '%s'", value.TypeName(v[0]))
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

func filterString(_ *Ctx, in any, a *Args) (any, error) {
	if err := py.OneArg("markupsafe._speedups.soft_str", a); err != nil {
		return nil, err
	}
	return softStr(in), nil
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
		return nil, TypeErrorf("expected length >= %d, got %d", endLen, length)
	}
	if leeway < 0 {
		return nil, TypeErrorf("expected leeway >= 0, got %d", leeway)
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
		return nil, TypeErrorf("invalid width %d (must be > 0)", width)
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
