package template

import (
	"errors"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

var (
	errBreak    = errors.New("break")
	errContinue = errors.New("continue")
)

// toText converts a value for output inside a text template, as Jinja2's
// str() does; undefined values fail.
func toText(v any) (string, error) {
	switch x := v.(type) {
	case value.Undefined:
		return "", undefinedErr(x)
	case *rangeVal:
		return x.String(), nil
	}
	return value.Str(v), nil
}

func (c *Ctx) execBody(nodes []node, b *strings.Builder) error {
	for _, n := range nodes {
		if err := c.exec(n, b); err != nil {
			return err
		}
	}
	return nil
}

func (c *Ctx) exec(n node, b *strings.Builder) error {
	switch x := n.(type) {
	case *textNode:
		b.WriteString(x.text)
	case *outputNode:
		v, err := c.eval(x.e)
		if err != nil {
			return err
		}
		s, err := toText(v)
		if err != nil {
			return err
		}
		b.WriteString(s)
	case *ifNode:
		for i, cond := range x.conds {
			v, err := c.evalDefined(cond)
			if err != nil {
				return err
			}
			if value.Truthy(v) {
				return c.execBody(x.bodies[i], b)
			}
		}
		if len(x.bodies) > len(x.conds) {
			return c.execBody(x.bodies[len(x.conds)], b)
		}
	case *forNode:
		return c.execFor(x, b)
	case *setNode:
		return c.execSet(x)
	case *macroNode:
		c.assign(x.name, &macro{node: x, ctx: c})
	case *doNode:
		_, err := c.eval(x.e)
		return err
	case *breakNode:
		return errBreak
	case *continueNode:
		return errContinue
	case *withNode:
		vals := make([]any, len(x.values))
		for i, e := range x.values {
			v, err := c.eval(e)
			if err != nil {
				return err
			}
			vals[i] = v
		}
		s := c.pushScope()
		defer c.popScope()
		for i, name := range x.names {
			s.Set(name, vals[i])
		}
		return c.execBody(x.body, b)
	case *filterBlockNode:
		var inner strings.Builder
		if err := c.execBody(x.body, &inner); err != nil {
			return err
		}
		var v any = inner.String()
		for _, f := range x.filters {
			var err error
			if v, err = c.applyFilter(f, v); err != nil {
				return err
			}
		}
		s, err := toText(v)
		if err != nil {
			return err
		}
		b.WriteString(s)
	}
	return nil
}

func (c *Ctx) execSet(x *setNode) error {
	var v any
	if x.body != nil {
		var inner strings.Builder
		if err := c.execBody(x.body, &inner); err != nil {
			return err
		}
		v = inner.String()
	} else {
		var err error
		if v, err = c.eval(x.value); err != nil {
			return err
		}
	}
	if a, ok := x.target.(*attrExpr); ok {
		obj, err := c.evalDefined(a.obj)
		if err != nil {
			return err
		}
		ns, ok := obj.(*namespace)
		if !ok {
			return typeErrorf("cannot assign attribute on non-namespace object")
		}
		ns.d.Set(a.attr, v)
		return nil
	}
	if len(x.names) == 1 {
		c.assign(x.names[0], v)
		return nil
	}
	items, err := iterate(v)
	if err != nil {
		return err
	}
	if len(items) != len(x.names) {
		return typeErrorf("too many values to unpack (expected %d)", len(x.names))
	}
	for i, name := range x.names {
		c.assign(name, items[i])
	}
	return nil
}

func (c *Ctx) execFor(x *forNode, b *strings.Builder) error {
	seq, err := c.evalDefined(x.iter)
	if err != nil {
		return err
	}
	items, err := iterate(seq)
	if err != nil {
		return err
	}
	if x.cond != nil {
		var kept []any
		for _, it := range items {
			s := c.pushScope()
			bindTargets(s, x.targets, it)
			v, err := c.evalDefined(x.cond)
			c.popScope()
			if err != nil {
				return err
			}
			if value.Truthy(v) {
				kept = append(kept, it)
			}
		}
		items = kept
	}
	if len(items) == 0 {
		return c.execBody(x.elseBody, b)
	}
	s := c.pushScope()
	defer c.popScope()
	for i, it := range items {
		bindTargets(s, x.targets, it)
		s.Set("loop", &loopInfo{index: i, items: items})
		err := c.execBody(x.body, b)
		if err == errBreak {
			break
		}
		if err != nil && err != errContinue {
			return err
		}
	}
	return nil
}

func bindTargets(s *value.Dict, targets []string, it any) {
	if len(targets) == 1 {
		s.Set(targets[0], it)
		return
	}
	parts, _ := iterate(it)
	for i, t := range targets {
		if i < len(parts) {
			s.Set(t, parts[i])
		} else {
			s.Set(t, undefinedName(t))
		}
	}
}

// iterate lists the elements of an iterable as Python's iter() would.
func iterate(v any) ([]any, error) {
	switch x := v.(type) {
	case []any:
		return x, nil
	case value.Tuple:
		return x, nil
	case *value.Dict:
		keys := x.Keys()
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = k
		}
		return out, nil
	case string:
		out := make([]any, 0, len(x))
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, nil
	case *rangeVal:
		return x.list(), nil
	case value.Undefined:
		return nil, undefinedErr(x)
	}
	return nil, typeErrorf("'%s' object is not iterable", value.TypeName(v))
}

// Iterate exposes iterate to filters.
func Iterate(v any) ([]any, error) { return iterate(v) }

// loopInfo is Jinja2's `loop` variable.
type loopInfo struct {
	index int
	items []any
}

func (l *loopInfo) attr(name string) (any, bool) {
	n := len(l.items)
	switch name {
	case "index":
		return l.index + 1, true
	case "index0":
		return l.index, true
	case "revindex":
		return n - l.index, true
	case "revindex0":
		return n - l.index - 1, true
	case "first":
		return l.index == 0, true
	case "last":
		return l.index == n-1, true
	case "length":
		return n, true
	case "previtem":
		if l.index > 0 {
			return l.items[l.index-1], true
		}
		return undefinedName("previtem"), true
	case "nextitem":
		if l.index < n-1 {
			return l.items[l.index+1], true
		}
		return undefinedName("nextitem"), true
	}
	return nil, false
}

// namespace is Jinja2's namespace(), whose attributes {% set %} can change.
type namespace struct{ d *value.Dict }

func (n *namespace) String() string { return "<Namespace " + value.Repr(n.d) + ">" }

// rangeVal is a lazy Python range.
type rangeVal struct{ start, stop, step int }

func (r *rangeVal) list() []any {
	var out []any
	if r.step > 0 {
		for i := r.start; i < r.stop; i += r.step {
			out = append(out, i)
		}
	} else {
		for i := r.start; i > r.stop; i += r.step {
			out = append(out, i)
		}
	}
	if out == nil {
		out = []any{}
	}
	return out
}

func (r *rangeVal) String() string {
	if r.step != 1 {
		return "range(" + value.Str(r.start) + ", " + value.Str(r.stop) + ", " + value.Str(r.step) + ")"
	}
	return "range(" + value.Str(r.start) + ", " + value.Str(r.stop) + ")"
}

// macro is a callable {% macro %}.
type macro struct {
	node *macroNode
	ctx  *Ctx
}

func (m *macro) call(args []any, kw *value.Dict) (any, error) {
	c := m.ctx
	s := c.pushScope()
	defer c.popScope()
	for i, p := range m.node.params {
		switch {
		case i < len(args):
			s.Set(p, args[i])
		case kw.Has(p):
			v, _ := kw.Get(p)
			s.Set(p, v)
		case m.node.defaults[i] != nil:
			v, err := c.eval(m.node.defaults[i])
			if err != nil {
				return nil, err
			}
			s.Set(p, v)
		default:
			s.Set(p, undefinedName(p))
		}
	}
	var b strings.Builder
	if err := c.execBody(m.node.body, &b); err != nil {
		return nil, err
	}
	return b.String(), nil
}
