package syntax

import (
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// Template inheritance follows Jinja2's parser and compiler: an extends
// tag may only stand at the top level of a template (inside if bodies at
// most), a block name is a plain identifier defined once per template, and
// a required block holds nothing but whitespace.

// atTopLevel reports whether the statement being parsed stands in what
// Jinja2 calls a top-level frame: the template's body or the bodies of ifs
// in it, not a loop, block, macro or any other scope. The statement's own
// tag is the last entry of tagStack.
func (p *parser) atTopLevel() bool {
	for _, tag := range p.tagStack[:len(p.tagStack)-1] {
		if tag != "if" {
			return false
		}
	}
	return true
}

// parseExtends parses {% extends template %}.
func (p *parser) parseExtends(start Pos) (Node, error) {
	if !p.atTopLevel() {
		return nil, &SyntaxError{Msg: "cannot use extend from a non top-level scope", Line: start.Line}
	}
	p.inherits = true
	e, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	return &Extends{Pos: start, Template: e}, p.endBlock()
}

// parseBlock parses {% block name [scoped] [required] %}body{% endblock
// [name] %}.
func (p *parser) parseBlock(start Pos) (Node, error) {
	p.inherits = true
	name, err := p.expect(tokens.Name, "name")
	if err != nil {
		return nil, err
	}
	n := &Block{Pos: start, Name: name.Val, TopLevel: p.atTopLevel()}
	if p.isName("scoped") {
		p.next()
		n.Scoped = true
	}
	if p.isName("required") {
		p.next()
		n.Required = true
	}
	if p.is(tokens.Subtraction) {
		return nil, p.errf("Block names in Jinja have to be valid Python identifiers and may not contain hyphens, use an underscore instead.")
	}
	if err := p.endBlock(); err != nil {
		return nil, err
	}
	if n.Body, _, err = p.parseBody("endblock"); err != nil {
		return nil, err
	}
	if n.Required && !onlyWhitespace(n.Body) {
		return nil, p.errf("Required blocks can only contain comments or whitespace")
	}
	if p.isName(n.Name) {
		p.next()
	}
	return n, p.endBlock()
}

// onlyWhitespace reports whether a body is text made of whitespace alone.
func onlyWhitespace(body []Node) bool {
	for _, n := range body {
		t, ok := n.(*Text)
		if !ok || strings.TrimFunc(t.Text, py.IsSpace) != "" {
			return false
		}
	}
	return true
}

// layout wraps the body of a template that uses inheritance with the
// blocks it defines; a block name defined twice is an error at the second
// definition, as Jinja2's compiler reports it.
func layout(body []Node) (*Layout, error) {
	l := &Layout{Body: body, Blocks: map[string]*Block{}}
	if len(body) > 0 {
		l.Pos = body[0].Position()
	}
	var err error
	Walk(body, func(n Node) bool {
		b, ok := n.(*Block)
		if !ok || err != nil {
			return err == nil
		}
		if _, dup := l.Blocks[b.Name]; dup {
			err = &SyntaxError{Msg: fmt.Sprintf("block '%s' defined twice", b.Name), Line: b.Line}
			return false
		}
		l.Blocks[b.Name] = b
		return true
	})
	return l, err
}

// Walk calls visit for every statement node in nodes and, while visit
// returns true, for the statements nested in it, in source order.
func Walk(nodes []Node, visit func(Node) bool) {
	for _, n := range nodes {
		if !visit(n) {
			continue
		}
		for _, body := range children(n) {
			Walk(body, visit)
		}
	}
}

// children lists the statement bodies nested in n.
func children(n Node) [][]Node {
	switch x := n.(type) {
	case *If:
		return x.Bodies
	case *For:
		return [][]Node{x.Body, x.Else}
	case *Set:
		return [][]Node{x.Body}
	case *Macro:
		return [][]Node{x.Body}
	case *CallBlock:
		return [][]Node{x.Caller.Body}
	case *With:
		return [][]Node{x.Body}
	case *FilterBlock:
		return [][]Node{x.Body}
	case *Block:
		return [][]Node{x.Body}
	case *Layout:
		return [][]Node{x.Body}
	}
	return nil
}
