package template

import (
	"fmt"
	"html"
	"regexp"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// jinjaHTMLFilters returns Jinja2's built-in filters for HTML, XML and URLs; those that return markupsafe's Markup are marked so.
func jinjaHTMLFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"e":           returnsMarkup(filterEscape),
		"escape":      returnsMarkup(filterEscape),
		"forceescape": returnsMarkup(filterForceescape),
		"safe":        returnsMarkup(filterSafe),
		"striptags":   filterStriptags,
		"tojson":      returnsMarkup(filterTojson),
		"urlencode":   filterUrlencode,
		"urlize":      filterUrlize,
		"xmlattr":     filterXmlattr,
	}}
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

func filterSafe(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("do_mark_safe").Bind(a); err != nil {
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
		pairs, _ = Iterate(x)
	default:
		return urlQuote(in, false), nil
	}
	parts := make([]string, 0, len(pairs))
	for _, p := range pairs {
		kv, err := Iterate(p)
		if err != nil {
			return nil, err
		}
		if len(kv) != 2 {
			return nil, TypeErrorf("too many values to unpack (expected 2)")
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
		items, err := Iterate(v[4])
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

var xmlAttrKeyRe = regexp.MustCompile(`[\s/>=]`)

func filterXmlattr(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_xmlattr", py.Opt("autospace", true)).Bind(a)
	if err != nil {
		return nil, err
	}
	d, ok := in.(*value.Dict)
	if !ok {
		return nil, TypeErrorf("'%s' object has no attribute 'items'", value.TypeName(in))
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
			return nil, TypeErrorf("Invalid character in attribute name: %s", value.Repr(k))
		}
		items = append(items, htmlEscape(k)+`="`+htmlEscape(softStr(x))+`"`)
	}
	rv := strings.Join(items, " ")
	if value.Truthy(v[0]) && rv != "" {
		rv = " " + rv
	}
	return rv, nil
}
