package template

import (
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// globalFunc is a callable available by name in every template.
type globalFunc func(c *Ctx, a *Args) (any, error)

func (globalFunc) String() string { return "<function>" }

// builtinGlobals returns the functions every template can call by name.
func builtinGlobals() map[string]any {
	return map[string]any{
		"range":     globalFunc(globalRange),
		"lookup":    globalFunc(globalLookup),
		"query":     globalFunc(globalQuery),
		"q":         globalFunc(globalQuery),
		"dict":      globalFunc(globalDict),
		"namespace": globalFunc(globalNamespace),
		"now":       globalFunc(globalNow),
		"lipsum":    globalFunc(globalLipsum),
		"undef":     globalFunc(globalUndef),
	}
}

func globalRange(_ *Ctx, a *Args) (any, error) {
	ints := make([]int, len(a.Pos))
	for i, v := range a.Pos {
		n, ok := value.AsInt(v)
		if !ok {
			return nil, TypeErrorf("'%s' object cannot be interpreted as an integer", value.TypeName(v))
		}
		ints[i] = n
	}
	r := &py.Range{Step: 1}
	switch len(ints) {
	case 1:
		r.Stop = ints[0]
	case 2:
		r.Start, r.Stop = ints[0], ints[1]
	case 3:
		r.Start, r.Stop, r.Step = ints[0], ints[1], ints[2]
		if r.Step == 0 {
			return nil, TypeErrorf("range() arg 3 must not be zero")
		}
	default:
		return nil, TypeErrorf("range expected at most 3 arguments, got %d", len(ints))
	}
	return r, nil
}

func globalDict(_ *Ctx, a *Args) (any, error) {
	d := value.NewDict(0)
	if v, ok := a.Get(0, ""); ok {
		switch x := v.(type) {
		case *value.Dict:
			d.Update(x)
		default:
			items, err := Iterate(v)
			if err != nil {
				return nil, err
			}
			for _, it := range items {
				pair, err := Iterate(it)
				if err != nil || len(pair) != 2 {
					return nil, TypeErrorf("dictionary update sequence element has wrong length")
				}
				d.Set(value.Str(pair[0]), pair[1])
			}
		}
	}
	if a.Kw != nil {
		d.Update(a.Kw)
	}
	return d, nil
}

func globalNamespace(_ *Ctx, a *Args) (any, error) {
	d := value.NewDict(0)
	if v, ok := a.Get(0, ""); ok {
		if x, ok := v.(*value.Dict); ok {
			d.Update(x)
		}
	}
	if a.Kw != nil {
		d.Update(a.Kw)
	}
	return &namespace{d: d}, nil
}

// globalNow is ansible-core's now(utc=False, fmt=None): a naive datetime,
// or its strftime text when fmt is given.
func globalNow(c *Ctx, a *Args) (any, error) {
	t := c.eng.Now()
	if a.Bool(0, "utc", false) {
		t = t.UTC()
	} else {
		t = t.Local()
	}
	if f, ok := a.Get(1, "fmt"); ok && value.Truthy(f) {
		return py.Strftime(t, value.Str(f)), nil
	}
	return &py.Datetime{Time: t}, nil
}

// globalLipsum is Jinja2's lipsum(): placeholder paragraphs (fixed text
// here rather than random words).
func globalLipsum(_ *Ctx, a *Args) (any, error) {
	n, ok := value.AsInt(a.Default(0, "n", 5))
	if !ok {
		return nil, TypeErrorf("'%s' object cannot be interpreted as an integer", value.TypeName(a.Default(0, "n", 5)))
	}
	html := value.Truthy(a.Default(1, "html", true))
	const para = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua."
	parts := make([]string, max(n, 0))
	for i := range parts {
		if html {
			parts[i] = "<p>" + para + "</p>"
		} else {
			parts[i] = para
		}
	}
	if html {
		return markup(strings.Join(parts, "\n")), nil
	}
	return strings.Join(parts, "\n\n"), nil
}

// defaultUndefHint is the message of undef() without a hint.
const defaultUndefHint = "Mandatory variable has not been overridden"

// IsUndefWithoutHint reports whether v is what undef() returns without a
// hint (env's default=undef() makes an unset variable undefined).
func IsUndefWithoutHint(v any) bool {
	u, ok := v.(value.Undefined)
	return ok && u.Msg == defaultUndefHint
}

func globalUndef(_ *Ctx, a *Args) (any, error) {
	hint := a.String(0, "hint", "")
	if hint == "" {
		hint = defaultUndefHint
	}
	return value.Undefined{Msg: hint}, nil
}

func globalLookup(c *Ctx, a *Args) (any, error) {
	return invokeLookup(c, a, false)
}

func globalQuery(c *Ctx, a *Args) (any, error) {
	return invokeLookup(c, a, true)
}

// invokeLookup runs lookup() or query() as ansible-core's _invoke_lookup
// does: the wantlist and errors options are taken out, a failure is fatal,
// a warning or ignored, and without wantlist the results are merged: one
// result is returned alone, several strings are joined with commas, and
// anything else stays a list.
func invokeLookup(c *Ctx, a *Args, wantlist bool) (any, error) {
	if len(a.Pos) == 0 {
		return nil, TypeErrorf("lookup() missing 1 required positional argument: 'name'")
	}
	name := value.Str(a.Pos[0])
	fn, ok := c.eng.lookupPlugin(name)
	if !ok {
		return nil, Errorf("The lookup plugin '%s' was not found.", name)
	}
	errorsMode := "strict"
	kw := a.Kw
	if kw != nil && (kw.Has("wantlist") || kw.Has("errors")) {
		kw = kw.Copy()
		if v, ok := kw.Get("wantlist"); ok {
			wantlist = wantlist || value.Truthy(v)
			kw.Delete("wantlist")
		}
		if v, ok := kw.Get("errors"); ok {
			errorsMode = value.Str(v)
			kw.Delete("errors")
		}
	}
	res, err := fn(c, append([]any(nil), a.Pos[1:]...), &Args{Kw: kw})
	if pt, ok := err.(*passThrough); ok {
		return nil, pt.err
	}
	if err != nil {
		err = fromPy(err)
		if IsUndefined(err) || errorsMode == "strict" || (errorsMode != "warn" && errorsMode != "ignore") {
			return nil, pluginErr("lookup", name, err)
		}
		if errorsMode == "warn" {
			c.warn(diag.Warn(fmt.Sprintf("An error occurred while running the lookup plugin '%s': %s", name, plainMsg(err)), nil))
		}
		if wantlist {
			return []any{}, nil
		}
		return nil, nil
	}
	if wantlist || len(res) == 0 {
		return res, nil
	}
	if len(res) == 1 {
		return res[0], nil
	}
	parts := make([]string, len(res))
	for i, r := range res {
		s, isStr := r.(string)
		if !isStr {
			return res, nil
		}
		parts[i] = s
	}
	return strings.Join(parts, ","), nil
}

// plainMsg is an error's own message, without the "Error rendering
// template" prefix of runtime errors.
func plainMsg(err error) string {
	switch e := err.(type) {
	case *RuntimeError:
		return e.Msg
	case *TemplateSyntaxError:
		return e.Msg
	}
	return err.Error()
}

// Query runs lookup plugin name with terms as query() does, for the
// executor's with_<lookup> loops.
func (e *Engine) Query(name string, terms []any, vars Vars, opt Options) ([]any, error) {
	c := e.newCtx(vars, opt)
	v, err := invokeLookup(c, &Args{Pos: append([]any{name}, terms...)}, true)
	if err != nil {
		return nil, err
	}
	l, _ := v.([]any)
	return l, nil
}
