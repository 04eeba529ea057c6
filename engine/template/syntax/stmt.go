package syntax

import (
	"strings"

	"github.com/nikolalohinski/gonja/v2/tokens"
)

func (p *parser) parsePrint(start Pos) (Node, error) {
	e, err := p.parseTupleOr()
	if err != nil {
		return nil, err
	}
	return &Output{Pos: start, Expr: e}, p.endBlock()
}

// parseInclude parses {% include template [ignore missing] [with|without
// context] %}, with Jinja2's defaults (the context is passed).
func (p *parser) parseInclude(start Pos) (Node, error) {
	n := &Include{Pos: start, WithContext: true}
	if err := p.expectExpression(); err != nil {
		return nil, err
	}
	var err error
	if n.Template, err = p.parseExpr(); err != nil {
		return nil, err
	}
	if p.isName("ignore") && p.peekTok(1).Type == tokens.Name && p.peekTok(1).Val == "missing" {
		p.next()
		p.next()
		n.IgnoreMissing = true
	}
	n.WithContext = p.parseContext(true)
	return n, p.endBlock()
}

// isContext reports whether "with context" or "without context" follows.
func (p *parser) isContext() bool {
	return p.isName("with", "without") && p.peekTok(1).Type == tokens.Name && p.peekTok(1).Val == "context"
}

// parseContext reads an optional "with context" or "without context" and
// returns whether the context is passed (def when neither is written).
func (p *parser) parseContext(def bool) bool {
	if p.isContext() {
		with := p.next().Val == "with"
		p.next()
		return with
	}
	return def
}

// parseLoaded parses the template name of an import or from tag and the
// keyword that must follow it.
func (p *parser) parseLoaded(keyword string) (Expr, error) {
	if err := p.expectExpression(); err != nil {
		return nil, err
	}
	e, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	if !p.isName(keyword) {
		return nil, p.errf("expected token '%s', got '%s'", keyword, tokenText(p.cur()))
	}
	p.next()
	return e, nil
}

// parseImport parses {% import template as name [with|without context] %};
// an import does not pass the context unless asked to.
func (p *parser) parseImport(start Pos) (Node, error) {
	n := &Import{Pos: start}
	var err error
	if n.Template, err = p.parseLoaded("as"); err != nil {
		return nil, err
	}
	t, err := p.expect(tokens.Name, "name")
	if err != nil {
		return nil, err
	}
	n.Name = t.Val
	n.WithContext = p.parseContext(false)
	return n, p.endBlock()
}

// parseFrom parses {% from template import name [as alias], ...
// [with|without context] %}.
func (p *parser) parseFrom(start Pos) (Node, error) {
	n := &FromImport{Pos: start}
	var err error
	if n.Template, err = p.parseLoaded("import"); err != nil {
		return nil, err
	}
	for {
		if len(n.Names) > 0 {
			if _, err := p.expect(tokens.Comma, ","); err != nil {
				return nil, err
			}
		}
		if p.isContext() {
			n.WithContext = p.parseContext(false)
			break
		}
		name, err := p.expect(tokens.Name, "name")
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(name.Val, "_") {
			return nil, &SyntaxError{Msg: "names starting with an underline can not be imported", Line: name.Line, Col: name.Col}
		}
		alias := name.Val
		if p.isName("as") {
			p.next()
			t, err := p.expect(tokens.Name, "name")
			if err != nil {
				return nil, err
			}
			alias = t.Val
		}
		n.Names, n.Aliases = append(n.Names, name.Val), append(n.Aliases, alias)
		if p.isContext() {
			n.WithContext = p.parseContext(false)
			break
		}
		if !p.is(tokens.Comma) {
			break
		}
	}
	return n, p.endBlock()
}

// parseRaw keeps the text up to {% endraw %} as it is.
func (p *parser) parseRaw(start Pos) (Node, error) {
	if err := p.endBlock(); err != nil {
		return nil, err
	}
	var b strings.Builder
	for {
		t := p.cur()
		switch {
		case t.Type == tokens.EOF:
			p.endStack = append(p.endStack, []string{"endraw"})
			defer func() { p.endStack = p.endStack[:len(p.endStack)-1] }()
			return nil, p.failUnknownTag("")
		case t.Type == tokens.BlockBegin && p.peekTok(1).Type == tokens.Name && p.peekTok(1).Val == "endraw":
			p.next()
			p.next()
			return &Text{Pos: start, Text: b.String()}, p.endBlock()
		}
		if t.Type == tokens.Data {
			b.WriteString(p.dataText())
		} else {
			b.WriteString(t.Val)
		}
		p.next()
	}
}

// parseCall parses {% call(params) macro(args) %}body{% endcall %}.
func (p *parser) parseCall(start Pos) (Node, error) {
	n := &CallBlock{Pos: start, Caller: &Macro{Pos: start, Name: "caller"}}
	if p.is(tokens.LeftParenthesis) {
		p.next()
		if err := p.parseParams(n.Caller); err != nil {
			return nil, err
		}
	}
	e, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	call, ok := e.(*Call)
	if !ok {
		return nil, p.errf("expected call")
	}
	n.Call = call
	if err := p.endBlock(); err != nil {
		return nil, err
	}
	if n.Caller.Body, _, err = p.parseBody("endcall"); err != nil {
		return nil, err
	}
	return n, p.endBlock()
}

func (p *parser) parseIf(start Pos) (Node, error) {
	n := &If{Pos: start}
	if err := p.expectExpression(); err != nil {
		return nil, err
	}
	cond, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if err := p.endBlock(); err != nil {
		return nil, err
	}
	n.Conds = append(n.Conds, cond)
	for {
		body, end, err := p.parseBody("elif", "else", "endif")
		if err != nil {
			return nil, err
		}
		n.Bodies = append(n.Bodies, body)
		switch end {
		case "elif":
			c, err := p.parseOr()
			if err != nil {
				return nil, err
			}
			if err := p.endBlock(); err != nil {
				return nil, err
			}
			n.Conds = append(n.Conds, c)
		case "else":
			if err := p.endBlock(); err != nil {
				return nil, err
			}
			body, _, err := p.parseBody("endif")
			if err != nil {
				return nil, err
			}
			n.Bodies = append(n.Bodies, body)
			return n, p.endBlock()
		default:
			return n, p.endBlock()
		}
	}
}

func (p *parser) parseTargets() ([]string, error) {
	var names []string
	paren := p.is(tokens.LeftParenthesis)
	if paren {
		p.next()
	}
	for {
		t, err := p.expect(tokens.Name, "name")
		if err != nil {
			return nil, err
		}
		names = append(names, t.Val)
		if !p.is(tokens.Comma) {
			break
		}
		p.next()
	}
	if paren {
		if _, err := p.expect(tokens.RightParenthesis, ")"); err != nil {
			return nil, err
		}
	}
	return names, nil
}

func (p *parser) parseFor(start Pos) (Node, error) {
	n := &For{Pos: start}
	// Jinja2 reads the target as a tuple that ends at the block's end or
	// at "in", and an empty one is no expression.
	if p.is(tokens.In) {
		return nil, p.errf("Expected an expression, got 'in'")
	}
	if err := p.expectExpression(); err != nil {
		return nil, err
	}
	var err error
	if n.Targets, err = p.parseTargets(); err != nil {
		return nil, err
	}
	if !p.is(tokens.In) {
		return nil, p.errf("expected 'in'")
	}
	p.next()
	if n.Iter, err = p.parseForIter(); err != nil {
		return nil, err
	}
	if p.isName("if") {
		p.next()
		if n.Cond, err = p.parseExpr(); err != nil {
			return nil, err
		}
	}
	if p.isName("recursive") {
		p.next()
		n.Recursive = true
	}
	if err := p.endBlock(); err != nil {
		return nil, err
	}
	body, end, err := p.parseBody("endfor", "else")
	if err != nil {
		return nil, err
	}
	n.Body = body
	if end == "else" {
		if err := p.endBlock(); err != nil {
			return nil, err
		}
		if n.Else, _, err = p.parseBody("endfor"); err != nil {
			return nil, err
		}
	}
	return n, p.endBlock()
}

// parseForIter parses what a for loop iterates over: an or-expression or
// a tuple of them (Jinja2 leaves `if` to the loop filter).
func (p *parser) parseForIter() (Expr, error) {
	if err := p.expectExpression(); err != nil {
		return nil, err
	}
	e, err := p.parseOr()
	if err != nil || !p.is(tokens.Comma) {
		return e, err
	}
	items := []Expr{e}
	for p.is(tokens.Comma) {
		p.next()
		if p.is(tokens.BlockEnd) || p.isName("if", "recursive") {
			break
		}
		e, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		items = append(items, e)
	}
	return &Tuple{Pos: e.Position(), Items: items}, nil
}

func (p *parser) parseSet(start Pos) (Node, error) {
	n := &Set{Pos: start}
	first, err := p.expect(tokens.Name, "name")
	if err != nil {
		return nil, err
	}
	switch {
	case p.is(tokens.Dot):
		p.next()
		attr, err := p.expect(tokens.Name, "name")
		if err != nil {
			return nil, err
		}
		n.Target = &Attr{Pos: pos(first), Obj: &Name{Pos: pos(first), Name: first.Val}, Attr: attr.Val}
	default:
		n.Names = []string{first.Val}
		for p.is(tokens.Comma) {
			p.next()
			t, err := p.expect(tokens.Name, "name")
			if err != nil {
				return nil, err
			}
			n.Names = append(n.Names, t.Val)
		}
	}
	if p.is(tokens.BlockEnd) {
		p.next()
		body, _, err := p.parseBody("endset")
		if err != nil {
			return nil, err
		}
		n.Body = body
		return n, p.endBlock()
	}
	if _, err := p.expect(tokens.Assign, "="); err != nil {
		return nil, err
	}
	if n.Value, err = p.parseTupleOr(); err != nil {
		return nil, err
	}
	return n, p.endBlock()
}

func (p *parser) parseMacro(start Pos) (Node, error) {
	name, err := p.expect(tokens.Name, "name")
	if err != nil {
		return nil, err
	}
	n := &Macro{Pos: start, Name: name.Val}
	if _, err := p.expect(tokens.LeftParenthesis, "("); err != nil {
		return nil, err
	}
	if err := p.parseParams(n); err != nil {
		return nil, err
	}
	if err := p.endBlock(); err != nil {
		return nil, err
	}
	if n.Body, _, err = p.parseBody("endmacro"); err != nil {
		return nil, err
	}
	return n, p.endBlock()
}

// parseParams parses a macro's parameter list after its '('.
func (p *parser) parseParams(n *Macro) error {
	for !p.is(tokens.RightParenthesis) {
		pn, err := p.expect(tokens.Name, "name")
		if err != nil {
			return err
		}
		n.Params = append(n.Params, pn.Val)
		var def Expr
		if p.is(tokens.Assign) {
			p.next()
			if def, err = p.parseExpr(); err != nil {
				return err
			}
		}
		n.Defaults = append(n.Defaults, def)
		if p.is(tokens.Comma) {
			p.next()
		}
	}
	p.next()
	return nil
}

func (p *parser) parseWith(start Pos) (Node, error) {
	n := &With{Pos: start}
	for !p.is(tokens.BlockEnd) {
		t, err := p.expect(tokens.Name, "name")
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tokens.Assign, "="); err != nil {
			return nil, err
		}
		v, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		n.Names = append(n.Names, t.Val)
		n.Values = append(n.Values, v)
		if p.is(tokens.Comma) {
			p.next()
		}
	}
	p.next()
	body, _, err := p.parseBody("endwith")
	if err != nil {
		return nil, err
	}
	n.Body = body
	return n, p.endBlock()
}

func (p *parser) parseFilterBlock(start Pos) (Node, error) {
	n := &FilterBlock{Pos: start}
	for {
		f, err := p.parseFilterCall()
		if err != nil {
			return nil, err
		}
		n.Filters = append(n.Filters, f)
		if !p.is(tokens.Pipe) {
			break
		}
		p.next()
	}
	if err := p.endBlock(); err != nil {
		return nil, err
	}
	body, _, err := p.parseBody("endfilter")
	if err != nil {
		return nil, err
	}
	n.Body = body
	return n, p.endBlock()
}
