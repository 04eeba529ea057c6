// Package syntax parses Ansible's Jinja2 templates into typed nodes. It
// lexes with gonja v2's lexer (configured as ansible-core configures
// Jinja2) and parses with its own grammar, which follows Jinja2's parser so
// that syntax errors read as Jinja2's. Every node carries the position of
// its first token in the template source.
//
// The tree is pure data: engine/template evaluates it and caches it, so a
// parsed template is never changed.
package syntax

// Pos is a position in a template's source (with \r\n and \r read as \n):
// a byte offset and a 1-based line and column.
type Pos struct{ Offset, Line, Col int }

// Position returns p; it gives every node, which embeds its Pos, the
// method.
func (p Pos) Position() Pos { return p }

// Node is a statement-level element of a template: text, an output
// ({{ }}) or a tag ({% %}).
type Node interface {
	Position() Pos
	node()
}

// Expr is an expression.
type Expr interface {
	Position() Pos
	expr()
}

// The statement nodes.
type (
	// Text is literal template text.
	Text struct {
		Pos
		Text string
	}
	// Output is {{ expr }}, or {% print expr %}.
	Output struct {
		Pos
		Expr Expr
	}
	// If is {% if %}, its {% elif %}s and an optional {% else %}: Bodies
	// has one body per condition, and one more for the else branch.
	If struct {
		Pos
		Conds  []Expr
		Bodies [][]Node
	}
	// For is {% for targets in iter if cond %}body{% else %}else{% endfor %}.
	For struct {
		Pos
		Targets   []string
		Iter      Expr
		Cond      Expr // nil without a loop filter
		Body      []Node
		Else      []Node
		Recursive bool
	}
	// Set is {% set names = value %}, {% set ns.attr = value %} (Target
	// set) or the block form {% set name %}body{% endset %}.
	Set struct {
		Pos
		Target *Attr
		Names  []string
		Value  Expr
		Body   []Node // the block form; nil otherwise
	}
	// Macro is {% macro name(params) %}body{% endmacro %}; Defaults has a
	// nil entry for a parameter without a default.
	Macro struct {
		Pos
		Name     string
		Params   []string
		Defaults []Expr
		Body     []Node
	}
	// CallBlock is {% call(params) macro(args) %}body{% endcall %}: Call
	// invokes a macro that can call back the body as caller().
	CallBlock struct {
		Pos
		Caller *Macro
		Call   *Call
	}
	// With is {% with names = values %}body{% endwith %}.
	With struct {
		Pos
		Names  []string
		Values []Expr
		Body   []Node
	}
	// FilterBlock is {% filter f | g %}body{% endfilter %}.
	FilterBlock struct {
		Pos
		Filters []*FilterCall
		Body    []Node
	}
	// Include is {% include template [ignore missing] [with|without
	// context] %}; Template evaluates to a name or a list of names, the
	// first found of which is rendered in place.
	Include struct {
		Pos
		Template      Expr
		IgnoreMissing bool
		WithContext   bool
	}
	// Extends is {% extends template %}: the template it names becomes the
	// parent whose layout this template's blocks fill in.
	Extends struct {
		Pos
		Template Expr
	}
	// Block is {% block name [scoped] [required] %}body{% endblock %}.
	// Where it stands, the most derived definition of the block renders;
	// TopLevel is set when it stands outside any loop, block or other
	// scope (only if bodies around it), where a child template's output
	// is dropped once it extends.
	Block struct {
		Pos
		Name     string
		Body     []Node
		Scoped   bool
		Required bool
		TopLevel bool
	}
	// Layout is a whole template that uses inheritance (an extends tag or
	// a block): Body is the template, Blocks every block it defines, at
	// any depth, by name.
	Layout struct {
		Pos
		Body   []Node
		Blocks map[string]*Block
	}
	// Import is {% import template as name [with|without context] %}.
	Import struct {
		Pos
		Template    Expr
		Name        string
		WithContext bool
	}
	// FromImport is {% from template import name [as alias], ...
	// [with|without context] %}: Names and Aliases are parallel.
	FromImport struct {
		Pos
		Template       Expr
		Names, Aliases []string
		WithContext    bool
	}
)

// The expression nodes.
type (
	// Literal is a constant: a string, int, float, bool or None (nil).
	Literal struct {
		Pos
		Value any
	}
	// Name is a variable reference.
	Name struct {
		Pos
		Name string
	}
	// List is [items].
	List struct {
		Pos
		Items []Expr
	}
	// Tuple is (items) or an unparenthesised a, b.
	Tuple struct {
		Pos
		Items []Expr
	}
	// Dict is {keys: values}.
	Dict struct {
		Pos
		Keys, Values []Expr
	}
	// Attr is obj.attr.
	Attr struct {
		Pos
		Obj  Expr
		Attr string
	}
	// Item is obj[key], or obj.N for an integer N.
	Item struct {
		Pos
		Obj, Key Expr
	}
	// Slice is obj[start:stop:step]; absent bounds are nil.
	Slice struct {
		Pos
		Obj               Expr
		Start, Stop, Step Expr
	}
	// Call is fn(args, kw=values, *star, **dstar).
	Call struct {
		Pos
		Fn Expr
		Arguments
		Star, DStar Expr // nil when absent
	}
	// Binary is l op r for the arithmetic operators and ~.
	Binary struct {
		Pos
		Op   string
		L, R Expr
	}
	// And is l and r.
	And struct {
		Pos
		L, R Expr
	}
	// Or is l or r.
	Or struct {
		Pos
		L, R Expr
	}
	// Not is not expr.
	Not struct {
		Pos
		Expr Expr
	}
	// Unary is -expr, or +expr with Plus.
	Unary struct {
		Pos
		Expr Expr
		Plus bool
	}
	// Compare is a chain first op1 rest1 op2 rest2 ... of ==, !=, <, <=,
	// >, >=, in and not in.
	Compare struct {
		Pos
		First Expr
		Ops   []string
		Rest  []Expr
	}
	// Cond is then if cond else els; Else is nil without an else.
	Cond struct {
		Pos
		Cond, Then, Else Expr
	}
	// Filter is expr | filter | filter ...
	Filter struct {
		Pos
		Expr    Expr
		Filters []*FilterCall
	}
	// Test is expr is [not] name(args).
	Test struct {
		Pos
		Expr   Expr
		Name   string
		Negate bool
		Arguments
	}
)

// Arguments are the arguments written in a call, filter or test.
type Arguments struct {
	Args     []Expr
	KwNames  []string
	KwValues []Expr
}

// FilterCall is one `| name(args)` step; Name may be fully qualified.
type FilterCall struct {
	Pos
	Name string
	Arguments
}

func (*Text) node()        {}
func (*Output) node()      {}
func (*If) node()          {}
func (*For) node()         {}
func (*Set) node()         {}
func (*Macro) node()       {}
func (*CallBlock) node()   {}
func (*With) node()        {}
func (*FilterBlock) node() {}
func (*Include) node()     {}
func (*Import) node()      {}
func (*FromImport) node()  {}
func (*Extends) node()     {}
func (*Block) node()       {}
func (*Layout) node()      {}

func (*Literal) expr() {}
func (*Name) expr()    {}
func (*List) expr()    {}
func (*Tuple) expr()   {}
func (*Dict) expr()    {}
func (*Attr) expr()    {}
func (*Item) expr()    {}
func (*Slice) expr()   {}
func (*Call) expr()    {}
func (*Binary) expr()  {}
func (*And) expr()     {}
func (*Or) expr()      {}
func (*Not) expr()     {}
func (*Unary) expr()   {}
func (*Compare) expr() {}
func (*Cond) expr()    {}
func (*Filter) expr()  {}
func (*Test) expr()    {}
