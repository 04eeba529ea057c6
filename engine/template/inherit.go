package template

import (
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Template inheritance runs as Jinja2's generated code runs it: a template
// renders its top level; an extends tag there loads the parent, adds the
// parent's blocks below the template's own and, from then on, drops the
// top level's text and outputs; once the top level ends, the parent's top
// level renders in the same context, and so on up the chain. Wherever a
// block tag stands, the most derived definition of that block renders,
// and super() inside it renders the next one up.

// maxExtends bounds a chain of parents, which a template extending itself
// would make endless.
const maxExtends = 200

// layoutState is the inheritance state of one template render, Jinja2's
// Context.blocks: each block name's definitions, the most derived first.
type layoutState struct {
	blocks map[string][]*syntax.Block
	// base is how many scopes (from the first) form the template's
	// context: the variables and top-level names that a block which is
	// not scoped sees.
	base int
	// block is the block definition being rendered, nil at the top level.
	block *blockFrame
}

// rootRun is one run of a template's top level; parent is the template
// it extends, set by its extends tag.
type rootRun struct{ parent *syntax.Layout }

// blockFrame is the block definition being rendered: its name, its place
// in the name's definitions, and the scopes it sees.
type blockFrame struct {
	name   string
	depth  int
	scopes []*value.Dict
}

// execLayout renders a template that uses inheritance: its top level,
// then, while one extends another, each parent's top level in turn.
func (c *Ctx) execLayout(x *syntax.Layout, b *sink) error {
	st := &layoutState{blocks: make(map[string][]*syntax.Block, len(x.Blocks))}
	for name, blk := range x.Blocks {
		st.blocks[name] = []*syntax.Block{blk}
	}
	if len(c.scopes) == 0 {
		c.pushScope()
	}
	st.base = len(c.scopes)
	// The state stays with the context after the render: the macros the
	// template defined may render its blocks later.
	c.layout = st
	body := x.Body
	for range maxExtends {
		run := &sink{root: &rootRun{}}
		err := c.execBody(body, run)
		if terr := b.take(run); err == nil {
			err = terr
		}
		if err != nil || run.root.parent == nil {
			return err
		}
		body = run.root.parent.Body
	}
	return &extendsLoopError{}
}

// execExtends runs {% extends %}: the parent is found on the search path
// as {% include %} finds it and its blocks are added below the ones known.
func (c *Ctx) execExtends(x *syntax.Extends, b *sink) error {
	run := b.root
	if run == nil || c.layout == nil {
		// The parser only allows extends at a template's top level.
		return &RuntimeError{Msg: "cannot use extend from a non top-level scope"}
	}
	if run.parent != nil {
		return &RuntimeError{Msg: "extended multiple times"}
	}
	path, err := c.findParent(x.Template)
	if err != nil {
		return err
	}
	nodes, err := c.readTemplate(path)
	if err != nil {
		return err
	}
	parent := asLayout(nodes)
	for name, blk := range parent.Blocks {
		c.layout.blocks[name] = append(c.layout.blocks[name], blk)
	}
	run.parent = parent
	return nil
}

// findParent finds the template an extends tag names. Unlike include,
// Jinja2 takes one name only: a list or dict is no key of its template
// cache, and any other value no path its loader can split.
func (c *Ctx) findParent(name syntax.Expr) (string, error) {
	v, err := c.evalDefined(name)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	switch {
	case ok:
	case isUnhashable(v):
		return "", TypeErrorf("unhashable type: '%s'", value.TypeName(v))
	default:
		return "", TypeErrorf("'%s' object has no attribute 'split'", value.TypeName(v))
	}
	path, found := c.findInclude(s)
	if !found {
		return "", &RuntimeError{Msg: s}
	}
	return path, nil
}

// isUnhashable reports whether Python could not hash v: a list or dict.
func isUnhashable(v any) bool {
	switch v.(type) {
	case []any, *value.Dict:
		return true
	}
	return false
}

// asLayout returns a parsed template as a Layout; one without inheritance
// has no blocks.
func asLayout(nodes []syntax.Node) *syntax.Layout {
	if len(nodes) == 1 {
		if l, ok := nodes[0].(*syntax.Layout); ok {
			return l
		}
	}
	return &syntax.Layout{Body: nodes}
}

// execBlock renders the most derived definition of a block where its tag
// stands. At a child template's top level, once it extends, the parent's
// layout places the block instead. A block that is not scoped sees the
// template's context only, not the loop or other local names around it.
func (c *Ctx) execBlock(x *syntax.Block, b *sink) error {
	if x.TopLevel && b.dropping() {
		return nil
	}
	if c.layout == nil {
		// A macro of a template that has since been left; Jinja2 keeps the
		// template's context, which knows this definition alone.
		c.layout = &layoutState{blocks: map[string][]*syntax.Block{x.Name: {x}}}
	}
	chain := c.layout.blocks[x.Name]
	if x.Required && len(chain) <= 1 {
		return &RuntimeError{Msg: "Required block '" + x.Name + "' not found"}
	}
	scopes := c.scopes
	if !x.Scoped {
		scopes = c.scopes[:min(c.layout.base, len(c.scopes))]
	}
	return c.renderBlock(&blockFrame{name: x.Name, scopes: scopes}, b)
}

// renderBlock renders the block definition f names into b, in a scope of
// its own over f's scopes; its output is written whatever the sink's top
// level drops.
func (c *Ctx) renderBlock(f *blockFrame, b *sink) error {
	blk := c.layout.blocks[f.name][f.depth]
	savedScopes, savedBlock := c.scopes, c.layout.block
	c.scopes = append(f.scopes[:len(f.scopes):len(f.scopes)], value.NewDict(2))
	c.layout.block = f
	defer func() { c.scopes, c.layout.block = savedScopes, savedBlock }()
	var inner sink
	err := c.execBody(blk.Body, &inner)
	if terr := b.take(&inner); err == nil {
		err = terr
	}
	return err
}

// inheritanceName resolves the names Jinja2 gives a template that uses
// inheritance: self (the template's blocks) and, inside a block, super
// (the next definition up).
func (c *Ctx) inheritanceName(name string) (any, bool) {
	switch {
	case name == "self":
		scopes := c.scopes[:min(c.layout.base, len(c.scopes))]
		if c.layout.block != nil {
			scopes = c.layout.block.scopes
		}
		return &templateRef{layout: c.layout, scopes: scopes}, true
	case name == "super" && c.layout.block != nil:
		return blockRef{layout: c.layout, frame: *c.layout.block}.super(), true
	}
	return nil, false
}

// templateRef is Jinja2's `self`: its attributes are the template's
// blocks.
type templateRef struct {
	layout *layoutState
	scopes []*value.Dict
}

func (*templateRef) String() string { return "<TemplateReference None>" }

// PyType is the type name in error messages.
func (*templateRef) PyType() string { return "TemplateReference" }

// block returns self.name: a reference to the most derived definition of
// the block, or an undefined value.
func (t *templateRef) block(name string) any {
	if _, ok := t.layout.blocks[name]; !ok {
		return noAttr(t, name)
	}
	return blockRef{layout: t.layout, frame: blockFrame{name: name, scopes: t.scopes}}
}

// blockRef is Jinja2's BlockReference: calling it renders one definition
// of a block to text; its super attribute is the next definition up.
type blockRef struct {
	layout *layoutState
	frame  blockFrame
}

func (blockRef) String() string { return "<BlockReference>" }

// PyType is the type name in error messages.
func (blockRef) PyType() string { return "BlockReference" }

// super returns the reference to the next definition up, or an undefined
// value when there is none.
func (r blockRef) super() any {
	if r.frame.depth+1 >= len(r.layout.blocks[r.frame.name]) {
		return value.Undefined{Msg: "there is no parent block called '" + r.frame.name + "'."}
	}
	r.frame.depth++
	return r
}

// render renders the definition r refers to as text.
func (r blockRef) render(c *Ctx) (any, error) {
	savedLayout := c.layout
	c.layout = r.layout
	defer func() { c.layout = savedLayout }()
	var out sink
	frame := r.frame
	if err := c.renderBlock(&frame, &out); err != nil {
		return nil, err
	}
	// Jinja2 joins the block's outputs as text: a native value among them
	// fails, as Python's str.join does.
	var s strings.Builder
	for i, p := range out.parts {
		switch x := p.(type) {
		case string:
			s.WriteString(x)
		case markup:
			s.WriteString(string(x))
		default:
			return nil, &originlessError{&RuntimeError{Msg: fmt.Sprintf("sequence item %d: expected str instance, %s found", i, value.TypeName(p))}}
		}
	}
	return s.String(), nil
}

// originlessError is a Python exception raised outside the template's own
// code (in Jinja2's runtime), which ansible-core reports without the
// template file as its origin.
type originlessError struct{ err error }

func (e *originlessError) Error() string { return e.err.Error() }

// Unwrap returns the exception.
func (e *originlessError) Unwrap() error { return e.err }

// extendsLoopError is a chain of parents that never ends (a template that
// extends itself), which Python stops at its recursion limit.
type extendsLoopError struct{}

func (*extendsLoopError) Error() string {
	return "Recursive loop detected in template: maximum recursion depth exceeded in comparison"
}
