package template

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// sink collects the output nodes of a template body. ansible-core 2.19
// renders with Jinja2's native concatenation: None outputs are dropped, a
// body with one output keeps that value's type, and several outputs are
// joined as text.
type sink struct {
	parts []any
	// size is the length of the text and string outputs collected: past
	// py.MaxStrLen (or past py.MaxListLen outputs) the template fails with
	// Python's MemoryError rather than growing without end.
	size int
	// root is the top-level run of a template that uses inheritance,
	// whose text and outputs are dropped once it extends another; nil
	// elsewhere (macros, blocks, set blocks).
	root *rootRun
}

// dropping reports whether text and outputs written here are dropped: the
// template extends another, whose layout makes the output.
func (s *sink) dropping() bool { return s.root != nil && s.root.parent != nil }

func (s *sink) text(t string) error {
	s.parts = append(s.parts, t)
	s.size += len(t)
	return s.bounded()
}

// bounded fails once the collected output is larger than a string may be.
func (s *sink) bounded() error {
	if s.size > py.MaxStrLen || len(s.parts) > py.MaxListLen {
		return fromPy(py.MemoryError())
	}
	return nil
}

// take adds the outputs of an inner run.
func (s *sink) take(inner *sink) error {
	s.parts = append(s.parts, inner.parts...)
	s.size += inner.size
	return s.bounded()
}

// value adds an expression's output; an undefined value fails here, as
// Jinja2 raises when it prints one.
func (s *sink) value(v any) error {
	switch x := v.(type) {
	case nil:
		return nil
	case value.Undefined:
		return UndefinedErr(x)
	}
	s.parts = append(s.parts, v)
	if t, ok := v.(string); ok {
		s.size += len(t)
	}
	return s.bounded()
}

// concatTemplate is concat for the outputs of a whole template: as
// ansible-core's concat finalizes the outputs before joining them, an
// output that is omit adds nothing, and omit drops out of the containers
// among them.
func (s *sink) concatTemplate() any {
	if len(s.parts) < 2 {
		return s.concat()
	}
	var b strings.Builder
	for _, p := range s.parts {
		switch p.(type) {
		case value.Omit:
			continue
		case []any, value.Tuple, *value.Dict:
			p = stripOmit(p)
		}
		b.WriteString(concatText(p))
	}
	return b.String()
}

// stripOmit removes omit from the lists and dicts inside v, at any depth.
func stripOmit(v any) any {
	switch x := v.(type) {
	case value.Tuple:
		return value.Tuple(stripOmitList(x))
	case []any:
		return stripOmitList(x)
	case *value.Dict:
		var out *value.Dict
		for i, k := range x.Keys() {
			e, _ := x.Get(k)
			_, omit := e.(value.Omit)
			r := e
			if !omit {
				r = stripOmit(e)
			}
			if out == nil && (omit || !value.Same(r, e)) {
				out = value.NewDict(x.Len())
				for _, pk := range x.Keys()[:i] {
					out.SetKey(x.Key(pk), mustGet(x, pk))
				}
			}
			if out != nil && !omit {
				out.SetKey(x.Key(k), r)
			}
		}
		if out != nil {
			return out
		}
	}
	return v
}

func stripOmitList(x []any) []any {
	var out []any
	for i, e := range x {
		_, omit := e.(value.Omit)
		r := e
		if !omit {
			r = stripOmit(e)
		}
		if out == nil && (omit || !value.Same(r, e)) {
			out = append(make([]any, 0, len(x)), x[:i]...)
		}
		if out != nil && !omit {
			out = append(out, r)
		}
	}
	if out != nil {
		return out
	}
	return x
}

func mustGet(d *value.Dict, k string) any {
	v, _ := d.Get(k)
	return v
}

// concat joins the collected outputs: nothing is None, one output is
// itself, several are joined as text.
func (s *sink) concat() any {
	switch len(s.parts) {
	case 0:
		return nil
	case 1:
		return s.parts[0]
	}
	var b strings.Builder
	for _, p := range s.parts {
		b.WriteString(concatText(p))
	}
	return b.String()
}

// concatText converts one output for a text result as ansible-core does:
// containers are finalized first (tuples become lists), then str() applies;
// Jinja2's own Undefined prints as nothing.
func concatText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case jinjaUndefined:
		return ""
	case value.Tuple, []any, *value.Dict, *groupTuple:
		return value.Str(listifyTuples(x))
	}
	return value.Str(v)
}

// toText converts a value to text as Python's str() does; undefined values
// fail.
func toText(v any) (string, error) {
	switch x := v.(type) {
	case value.Undefined:
		return "", UndefinedErr(x)
	case jinjaUndefined:
		return "", nil
	}
	return value.Str(v), nil
}

func (c *Ctx) execBody(nodes []syntax.Node, b *sink) error {
	for _, n := range nodes {
		if err := c.exec(n, b); err != nil {
			return err
		}
	}
	return nil
}

func (c *Ctx) exec(n syntax.Node, b *sink) error {
	switch x := n.(type) {
	case *syntax.Text:
		if !b.dropping() {
			return b.text(x.Text)
		}
	case *syntax.Output:
		if b.dropping() {
			return nil
		}
		v, err := c.eval(x.Expr)
		if err == nil {
			if u, ok := v.(value.Undefined); ok {
				err = UndefinedErr(u)
			}
		}
		if err != nil {
			if s, ok := c.opt.Markers.replace(err); ok {
				return b.text(s)
			}
			return err
		}
		return b.value(v)
	case *syntax.If:
		for i, cond := range x.Conds {
			v, err := c.evalDefined(cond)
			if err != nil {
				return err
			}
			if value.Truthy(v) {
				return c.execBody(x.Bodies[i], b)
			}
		}
		if len(x.Bodies) > len(x.Conds) {
			return c.execBody(x.Bodies[len(x.Conds)], b)
		}
	case *syntax.For:
		return c.execFor(x, b)
	case *syntax.Set:
		return c.execSet(x)
	case *syntax.Macro:
		c.assign(x.Name, &macro{node: x, ctx: c})
	case *syntax.CallBlock:
		return c.execCall(x, b)
	case *syntax.With:
		return c.execWith(x, b)
	case *syntax.Include:
		return c.execInclude(x, b)
	case *syntax.Import:
		return c.execImport(x)
	case *syntax.FromImport:
		return c.execFromImport(x)
	case *syntax.Layout:
		return c.execLayout(x, b)
	case *syntax.Extends:
		return c.execExtends(x, b)
	case *syntax.Block:
		return c.execBlock(x, b)
	case *syntax.FilterBlock:
		inner := sink{root: b.root}
		if err := c.execBody(x.Body, &inner); err != nil {
			return err
		}
		v := inner.concat()
		for _, f := range x.Filters {
			var err error
			if v, err = c.applyFilter(f, v); err != nil {
				return err
			}
		}
		return b.value(v)
	}
	return nil
}

// execWith runs {% with %}: the names are bound in a new scope.
func (c *Ctx) execWith(x *syntax.With, b *sink) error {
	vals := make([]any, len(x.Values))
	for i, e := range x.Values {
		v, err := c.eval(e)
		if err != nil {
			return err
		}
		vals[i] = v
	}
	s := c.pushScope()
	defer c.popScope()
	for i, name := range x.Names {
		s.Set(name, vals[i])
	}
	return c.execBody(x.Body, b)
}

func (c *Ctx) execSet(x *syntax.Set) error {
	if ok, err := c.execAppend(x); ok {
		return err
	}
	var v any
	if x.Body != nil {
		var inner sink
		if err := c.execBody(x.Body, &inner); err != nil {
			return err
		}
		v = inner.concat()
	} else {
		var err error
		if v, err = c.eval(x.Value); err != nil {
			return err
		}
	}
	if a := x.Target; a != nil {
		obj, err := c.evalDefined(a.Obj)
		if err != nil {
			return err
		}
		ns, ok := obj.(*namespace)
		if !ok {
			return TypeErrorf("cannot assign attribute on non-namespace object")
		}
		// What a namespace carries from one loop iteration to the next is
		// bounded in depth, so no loop can nest a value without end.
		if value.TooDeep(v) {
			return &recursionError{}
		}
		ns.set(a.Attr, v)
		return nil
	}
	if len(x.Names) == 1 {
		c.assign(x.Names[0], v)
		return nil
	}
	items, err := Iterate(v)
	if err != nil {
		return err
	}
	if len(items) != len(x.Names) {
		return TypeErrorf("too many values to unpack (expected %d)", len(x.Names))
	}
	for i, name := range x.Names {
		c.assign(name, items[i])
	}
	return nil
}

func (c *Ctx) execFor(x *syntax.For, b *sink) error {
	seq, err := c.evalDefined(x.Iter)
	if err != nil {
		return err
	}
	if r, ok := seq.(*py.Range); ok && x.Cond == nil {
		return c.execForRange(x, r, b)
	}
	items, err := Iterate(seq)
	if err != nil {
		return err
	}
	if x.Cond != nil {
		var kept []any
		for _, it := range items {
			s := c.pushScope()
			bindTargets(s, x.Targets, it)
			v, err := c.evalDefined(x.Cond)
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
		return c.execBody(x.Else, b)
	}
	s := c.pushScope()
	defer c.popScope()
	for i, it := range items {
		bindTargets(s, x.Targets, it)
		s.Set("loop", &loopInfo{index: i, items: items})
		if err := c.execBody(x.Body, b); err != nil {
			return err
		}
	}
	return nil
}

// execForRange runs a for loop over a range one number at a time, as
// Python iterates it, so that `for i in range(10**7)` costs no list of
// ten million numbers.
func (c *Ctx) execForRange(x *syntax.For, r *py.Range, b *sink) error {
	n := r.Len()
	if n == 0 {
		return c.execBody(x.Else, b)
	}
	s := c.pushScope()
	defer c.popScope()
	for i := 0; i < n; i++ {
		it := r.Start + i*r.Step
		bindTargets(s, x.Targets, it)
		s.Set("loop", &loopInfo{index: i, rng: r})
		if err := c.execBody(x.Body, b); err != nil {
			return err
		}
	}
	return nil
}

// execCall runs {% call %}: the called macro gets the block as caller.
func (c *Ctx) execCall(x *syntax.CallBlock, b *sink) error {
	fn, err := c.evalDefined(x.Call.Fn)
	if err != nil {
		return err
	}
	m, ok := fn.(*macro)
	if !ok {
		return TypeErrorf("'%s' object is not callable", value.TypeName(fn))
	}
	a, err := c.evalArgs(x.Call.Arguments, x.Call.Star, x.Call.DStar)
	if err != nil {
		return err
	}
	kw := value.NewDict(1)
	if a.Kw != nil {
		kw.Update(a.Kw)
	}
	kw.Set("caller", &macro{node: x.Caller, ctx: c})
	v, err := m.call(a.Pos, kw)
	if err != nil {
		return err
	}
	return b.value(v)
}

func bindTargets(s *value.Dict, targets []string, it any) {
	if len(targets) == 1 {
		s.Set(targets[0], it)
		return
	}
	parts, _ := Iterate(it)
	for i, t := range targets {
		if i < len(parts) {
			s.Set(t, parts[i])
		} else {
			s.Set(t, undefinedName(t))
		}
	}
}

// listOrTuple returns the elements of a list or tuple; ok is false for any
// other value.
func listOrTuple(v any) (items []any, ok bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case value.Tuple:
		return x, true
	}
	return nil, false
}

// Iterate lists the elements of an iterable as Python's iter() would;
// template-only wrappers (Markup, groupby's tuples) iterate as the value
// they wrap.
func Iterate(v any) ([]any, error) {
	switch x := v.(type) {
	case *groupTuple:
		return x.t, nil
	case markup:
		v = string(x)
	}
	items, err := py.Iterate(v)
	return items, fromPy(err)
}

// loopInfo is Jinja2's `loop` variable.
type loopInfo struct {
	index int
	items []any
	// rng is the range a loop goes through without listing it (items is
	// then nil).
	rng *py.Range
}

// item is the loop's i-th element.
func (l *loopInfo) item(i int) any {
	if l.rng != nil {
		return l.rng.Start + i*l.rng.Step
	}
	return l.items[i]
}

func (l *loopInfo) attr(name string) (any, bool) {
	n := len(l.items)
	if l.rng != nil {
		n = l.rng.Len()
	}
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
			return l.item(l.index - 1), true
		}
		return undefinedName("previtem"), true
	case "nextitem":
		if l.index < n-1 {
			return l.item(l.index + 1), true
		}
		return undefinedName("nextitem"), true
	}
	return nil, false
}

// namespace is Jinja2's namespace(), whose attributes {% set %} can change.
type namespace struct {
	d *value.Dict
	// showing is set while String runs, so that a namespace that holds
	// itself shows as Python shows a dict met again: {...}.
	showing bool
	// grown names the attributes whose list was last made by execAppend:
	// its backing array belongs to this namespace alone and has room to
	// grow.
	grown map[string]bool
}

func (n *namespace) String() string {
	if n.showing {
		return "<Namespace {...}>"
	}
	n.showing = true
	defer func() { n.showing = false }()
	return "<Namespace " + value.Repr(n.d) + ">"
}

// get returns attribute name. A list the namespace grows in place is
// returned with its capacity cut to its length, so that no holder of it
// can see, or write over, the elements appended later.
func (n *namespace) get(name string) (any, bool) {
	v, ok := n.d.Get(name)
	if l, isList := v.([]any); isList && n.grown[name] {
		return l[:len(l):len(l)], true
	}
	return v, ok
}

// set stores attribute name as `{% set ns.name = v %}` does.
func (n *namespace) set(name string, v any) {
	n.d.Set(name, v)
	delete(n.grown, name)
}

// execAppend runs `{% set ns.a = ns.a + [...] %}` (any list on the right)
// as an amortized append instead of a copy of the whole list, so that a
// loop accumulating N items costs O(N) rather than O(N²). The result is
// the same as Python's: a holder of the old list (which get gave with its
// capacity cut) never sees the new items. It reports whether x had that
// shape and was run.
func (c *Ctx) execAppend(x *syntax.Set) (bool, error) {
	t := x.Target
	if t == nil || x.Body != nil {
		return false, nil
	}
	b, ok := x.Value.(*syntax.Binary)
	if !ok || b.Op != "+" {
		return false, nil
	}
	l, ok := b.L.(*syntax.Attr)
	if !ok || l.Attr != t.Attr {
		return false, nil
	}
	ln, ok1 := l.Obj.(*syntax.Name)
	tn, ok2 := t.Obj.(*syntax.Name)
	if !ok1 || !ok2 || ln.Name != tn.Name {
		return false, nil
	}
	obj, err := c.evalDefined(tn)
	if err != nil {
		return false, nil // the general path reports it
	}
	ns, ok := obj.(*namespace)
	if !ok {
		return false, nil
	}
	cur, _ := ns.d.Get(t.Attr)
	left, ok := cur.([]any)
	if !ok {
		return false, nil
	}
	rv, err := c.eval(b.R)
	if err != nil {
		return true, err
	}
	right, ok := rv.([]any)
	if !ok {
		// Not list + list: the general operator gives the value or error.
		v, err := py.BinaryOp("+", left[:len(left):len(left)], rv)
		if err == nil {
			ns.set(t.Attr, v)
		}
		return true, fromPy(err)
	}
	return true, ns.grow(t.Attr, left, right)
}

// grow appends right to the list left held in attribute name, in place
// when the namespace already owns the backing array, else in a fresh one
// with room to grow.
func (ns *namespace) grow(name string, left, right []any) error {
	if len(left)+len(right) > py.MaxListLen {
		return fromPy(py.MemoryError())
	}
	if value.TooDeep(right) {
		return &recursionError{}
	}
	if !ns.grown[name] {
		grown := make([]any, len(left), 2*(len(left)+len(right))+4)
		copy(grown, left)
		left = grown
		if ns.grown == nil {
			ns.grown = map[string]bool{}
		}
	}
	ns.d.Set(name, append(left, right...))
	ns.grown[name] = true
	return nil
}

// callGrow runs `ns.a.append(x)` and `ns.a.extend(xs)` on a namespace's
// list as amortized appends, as execAppend does for `ns.a = ns.a + xs`.
// It reports whether the call had that shape and was run.
func (c *Ctx) callGrow(x *syntax.Call) (bool, any, error) {
	m, ok := x.Fn.(*syntax.Attr)
	if !ok || (m.Attr != "append" && m.Attr != "extend") || x.Star != nil || x.DStar != nil ||
		len(x.Args) != 1 || len(x.KwNames) != 0 {
		return false, nil, nil
	}
	l, ok := m.Obj.(*syntax.Attr)
	if !ok {
		return false, nil, nil
	}
	n, ok := l.Obj.(*syntax.Name)
	if !ok {
		return false, nil, nil
	}
	obj, err := c.evalDefined(n)
	if err != nil {
		return false, nil, nil // the general path reports it
	}
	ns, ok := obj.(*namespace)
	if !ok {
		return false, nil, nil
	}
	cur, _ := ns.d.Get(l.Attr)
	left, ok := cur.([]any)
	if !ok {
		return false, nil, nil
	}
	v, err := c.evalArg(x.Args[0])
	if err != nil {
		return true, nil, err
	}
	if _, undef := v.(value.Undefined); undef {
		return false, nil, nil // the general path gives the undefined
	}
	right := []any{v}
	if m.Attr == "extend" {
		if right, err = Iterate(v); err != nil {
			return true, nil, err
		}
	}
	return true, nil, ns.grow(l.Attr, left, right)
}

// macro is a callable {% macro %}.
type macro struct {
	node *syntax.Macro
	ctx  *Ctx
}

// maxMacroDepth is how deep macro calls nest before the render stops as
// Jinja2 stops at Python's recursion limit (1000 frames), which
// ansible-core 2.19 reports as a recursive loop: the depth its Jinja2
// reaches is measured from the oracle (golden limit-macro-recursion).
const maxMacroDepth = 159

func (m *macro) call(args []any, kw *value.Dict) (any, error) {
	c := m.ctx
	if c.calls >= maxMacroDepth {
		return nil, &macroRecursionError{}
	}
	c.calls++
	defer func() { c.calls-- }()
	s := c.pushScope()
	defer c.popScope()
	for i, p := range m.node.Params {
		switch {
		case i < len(args):
			s.Set(p, args[i])
		case kw.Has(p):
			v, _ := kw.Get(p)
			s.Set(p, v)
		case m.node.Defaults[i] != nil:
			v, err := c.eval(m.node.Defaults[i])
			if err != nil {
				return nil, err
			}
			s.Set(p, v)
		default:
			s.Set(p, undefinedName(p))
		}
	}
	if caller, ok := kw.Get("caller"); ok {
		s.Set("caller", caller)
	}
	var b sink
	if err := c.execBody(m.node.Body, &b); err != nil {
		return nil, err
	}
	return b.concat(), nil
}
