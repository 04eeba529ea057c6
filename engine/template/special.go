package template

import (
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// jinjaUndefined is Jinja2's own Undefined, which an inline if without an
// else yields. Unlike Ansible's undefined variables it prints as nothing in
// a text template, passes through `default` unchanged, and is an
// unsupported type when it is the whole result.
type jinjaUndefined struct{ hint string }

// PyType implements value.PyTyper.
func (jinjaUndefined) PyType() string { return "Undefined" }

func (jinjaUndefined) String() string { return "" }

// groupTuple is the (grouper, list) named tuple the groupby filter yields.
type groupTuple struct{ t value.Tuple }

// PyType implements value.PyTyper.
func (*groupTuple) PyType() string { return "GroupTuple" }

func (g *groupTuple) String() string { return value.Repr(g.t) }

// markup is Jinja2's Markup string, returned by tojson, escape and friends.
// It is a str everywhere except in a template's final result, where
// ansible-core converts it with a warning.
type markup string

// PyType implements value.PyTyper.
func (markup) PyType() string { return "Markup" }

func (m markup) String() string { return string(m) }

// plain converts the template-only wrappers that behave as an ordinary
// value (markup strings, group tuples) to that value.
func plain(v any) any {
	switch x := v.(type) {
	case markup:
		return string(x)
	case *groupTuple:
		return x.t
	}
	return v
}

// fakeAddr stands for the memory address in the repr of Python objects that
// have no stable one; the golden tests normalise addresses.
const fakeAddr = "0x7f3a5c2e1d40"

// methodRepr is the repr of a bound method, as Python prints it.
func methodRepr(m *boundMethod) string {
	return fmt.Sprintf("<built-in method %s of %s object at %s>", m.name, value.TypeName(plain(m.recv)), fakeAddr)
}

// listifyTuples returns v with every tuple (at any depth) turned into a
// list, as ansible-core finalizes template results; containers without
// tuples are returned unchanged.
func listifyTuples(v any) any {
	switch x := v.(type) {
	case value.Tuple:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = listifyTuples(e)
		}
		return out
	case *groupTuple:
		return listifyTuples(x.t)
	case markup:
		return string(x)
	case []any:
		r, _ := value.MapList(x, func(_ int, e any) (any, error) { return listifyTuples(e), nil })
		return r
	case *value.Dict:
		r, _ := value.MapDict(x, func(_ string, e any) (any, error) { return listifyTuples(e), nil })
		return r
	}
	return v
}

// storageErr is ansible-core's refusal to keep a value that cannot be
// stored in a variable.
func storageErr(typeName, repr string) error {
	return &RuntimeError{Msg: fmt.Sprintf("Type '%s' is unsupported for variable storage.", typeName), Value: repr, UnknownOrigin: true}
}

// finalize checks and converts a template's result as ansible-core does
// before the value leaves templating: undefined values and unsupported
// types fail, tuples become lists, and Markup or GroupTuple values are
// converted with a warning. A value nested deeper than value.MaxDepth
// fails as Python's recursion limit makes it fail there.
func (c *Ctx) finalize(v any) (any, error) { return c.finalizeAt(v, 0) }

func (c *Ctx) finalizeAt(v any, depth int) (any, error) {
	switch v.(type) {
	case value.Tuple, []any, *value.Dict, *groupTuple:
		if depth >= value.MaxDepth {
			return nil, &recursionError{}
		}
	}
	switch x := v.(type) {
	case nil, bool, int, int64, float64, string:
		return v, nil
	case value.Undefined:
		return nil, UndefinedErr(x)
	case jinjaUndefined:
		return nil, storageErr("Undefined", "")
	case *py.Range:
		return nil, storageErr("range", x.String())
	case *boundMethod:
		return nil, storageErr("builtin_function_or_method", methodRepr(x))
	case globalFunc:
		return nil, storageErr("function", "<function>")
	case *macro:
		return nil, storageErr("Macro", "<Macro>")
	case *namespace:
		return nil, storageErr("Namespace", x.String())
	case *loopInfo:
		return nil, storageErr("LoopContext", "<LoopContext>")
	case markup:
		c.warnValue("Type 'Markup' is unsupported in variable storage, converting to 'str'.")
		return string(x), nil
	case *groupTuple:
		c.warnValue("Type 'GroupTuple' is unsupported in variable storage, converting to 'list'.")
		return c.finalizeAt(x.t, depth)
	case value.Tuple:
		return c.finalizeItems(x, depth)
	case []any:
		// As ansible-core's _finalize_list, omit drops out of a list at
		// any depth; only a template whose whole result is omit keeps it.
		if !hasOmit(x) {
			return value.MapList(x, func(_ int, e any) (any, error) { return c.finalizeAt(e, depth+1) })
		}
		return c.finalizeItems(x, depth)
	case *value.Dict:
		// _finalize_dict: a key whose value is omit is dropped.
		sawOmit := false
		r, err := value.MapDict(x, func(_ string, e any) (any, error) {
			if _, omit := e.(value.Omit); omit {
				sawOmit = true
				return e, nil
			}
			return c.finalizeAt(e, depth+1)
		})
		if err != nil {
			return nil, err
		}
		d := r.(*value.Dict)
		if !sawOmit {
			return d, nil
		}
		if d == x {
			d = d.Copy()
		}
		for _, k := range append([]string(nil), d.Keys()...) {
			if e, _ := d.Get(k); e == (value.Omit{}) {
				d.Delete(k)
			}
		}
		return d, nil
	}
	return v, nil
}

// finalizeItems finalizes the elements of a list or tuple at depth into a
// new list, without those that are omit.
func (c *Ctx) finalizeItems(x []any, depth int) ([]any, error) {
	out := make([]any, 0, len(x))
	for _, e := range x {
		if _, omit := e.(value.Omit); omit {
			continue
		}
		r, err := c.finalizeAt(e, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// DeprecatedVar is a variable value whose use ansible-core deprecates (the
// play_hosts magic variable): a Vars returns it in place of Value, and each
// render that reads it warns with Msg, Help and Version at the value being
// templated.
type DeprecatedVar struct {
	Value     any
	Msg, Help string
	Version   string
}

func (c *Ctx) warnValue(msg string) { c.warnAtValue(diag.Warn(msg, nil)) }

// warnAtValue reports a warning about the value being rendered, which the
// caller shows at the origin (and with the source excerpt) of that value,
// as ansible-core shows type conversion warnings.
func (c *Ctx) warnAtValue(w *diag.Diagnostic) {
	if c.opt.Warn != nil {
		c.opt.Warn(w, true)
	}
}

func (c *Ctx) warn(w *diag.Diagnostic) {
	if c.opt.Warn != nil {
		c.opt.Warn(w, false)
	}
}

// PyType names, for value.TypeName, of the template-only Python objects.

func (*namespace) PyType() string   { return "Namespace" }
func (*boundMethod) PyType() string { return "builtin_function_or_method" }
func (globalFunc) PyType() string   { return "function" }
func (*macro) PyType() string       { return "Macro" }
func (*loopInfo) PyType() string    { return "LoopContext" }

// JSON forms, for value.JSON, of the template-only Python objects.

// JSONValue implements value.JSONer.
func (g *groupTuple) JSONValue() any { return g.t }

// JSONValue implements value.JSONer.
func (m markup) JSONValue() any { return string(m) }

func hasOmit(l []any) bool {
	for _, e := range l {
		if _, omit := e.(value.Omit); omit {
			return true
		}
	}
	return false
}
