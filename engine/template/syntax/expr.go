package syntax

import (
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/tokens"
)

// parseTupleOr parses an expression, or an unparenthesised tuple when a
// comma follows (as in `{% for x in a, b %}` or `{% set t = 1, 2 %}`).
func (p *parser) parseTupleOr() (Expr, error) {
	e, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	if !p.is(tokens.Comma) {
		return e, nil
	}
	items := []Expr{e}
	for p.is(tokens.Comma) {
		p.next()
		if p.is(tokens.BlockEnd) || p.is(tokens.VariableEnd) || p.is(tokens.RightParenthesis) {
			break
		}
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		items = append(items, e)
	}
	return &Tuple{Pos: items[0].Position(), Items: items}, nil
}

// parseExpr parses a conditional expression (the top of Jinja's grammar).
func (p *parser) parseExpr() (Expr, error) {
	e, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	for p.isName("if") {
		p.next()
		cond, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		var els Expr
		if p.isName("else") {
			p.next()
			if els, err = p.parseExpr(); err != nil {
				return nil, err
			}
		}
		e = &Cond{Pos: e.Position(), Cond: cond, Then: e, Else: els}
	}
	return e, nil
}

func (p *parser) parseOr() (Expr, error) {
	l, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.is(tokens.Or) {
		p.next()
		r, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		l = &Or{Pos: l.Position(), L: l, R: r}
	}
	return l, nil
}

func (p *parser) parseAnd() (Expr, error) {
	l, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	for p.is(tokens.And) {
		p.next()
		r, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		l = &And{Pos: l.Position(), L: l, R: r}
	}
	return l, nil
}

func (p *parser) parseNot() (Expr, error) {
	if p.is(tokens.Not) {
		start := p.next()
		e, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return &Not{Pos: pos(start), Expr: e}, nil
	}
	return p.parseCompare()
}

func (p *parser) parseCompare() (Expr, error) {
	first, err := p.parseMath1()
	if err != nil {
		return nil, err
	}
	c := &Compare{Pos: first.Position(), First: first}
	for {
		var op string
		switch t := p.cur(); {
		case t.Type == tokens.Equals:
			op = "=="
		case t.Type == tokens.Ne:
			op = "!="
		case t.Type == tokens.LowerThan:
			op = "<"
		case t.Type == tokens.LowerThanOrEqual:
			op = "<="
		case t.Type == tokens.GreaterThan:
			op = ">"
		case t.Type == tokens.GreaterThanOrEqual:
			op = ">="
		case t.Type == tokens.In:
			op = "in"
		case t.Type == tokens.Not && p.peekTok(1).Type == tokens.In:
			p.next()
			op = "not in"
		}
		if op == "" {
			break
		}
		p.next()
		r, err := p.parseMath1()
		if err != nil {
			return nil, err
		}
		c.Ops = append(c.Ops, op)
		c.Rest = append(c.Rest, r)
	}
	if len(c.Ops) == 0 {
		return first, nil
	}
	return c, nil
}

func (p *parser) parseMath1() (Expr, error) {
	l, err := p.parseConcat()
	if err != nil {
		return nil, err
	}
	for p.is(tokens.Addition) || p.is(tokens.Subtraction) {
		op := p.next().Val
		r, err := p.parseConcat()
		if err != nil {
			return nil, err
		}
		l = &Binary{Pos: l.Position(), Op: op, L: l, R: r}
	}
	return l, nil
}

func (p *parser) parseConcat() (Expr, error) {
	l, err := p.parseMath2()
	if err != nil {
		return nil, err
	}
	for p.is(tokens.Tilde) {
		p.next()
		r, err := p.parseMath2()
		if err != nil {
			return nil, err
		}
		l = &Binary{Pos: l.Position(), Op: "~", L: l, R: r}
	}
	return l, nil
}

func (p *parser) parseMath2() (Expr, error) {
	l, err := p.parsePow()
	if err != nil {
		return nil, err
	}
	for p.is(tokens.Multiply) || p.is(tokens.Division) || p.is(tokens.FloorDivision) || p.is(tokens.Modulo) {
		op := p.next().Val
		r, err := p.parsePow()
		if err != nil {
			return nil, err
		}
		l = &Binary{Pos: l.Position(), Op: op, L: l, R: r}
	}
	return l, nil
}

func (p *parser) parsePow() (Expr, error) {
	l, err := p.parseUnary(true)
	if err != nil {
		return nil, err
	}
	for p.is(tokens.Power) {
		p.next()
		r, err := p.parseUnary(true)
		if err != nil {
			return nil, err
		}
		l = &Binary{Pos: l.Position(), Op: "**", L: l, R: r}
	}
	return l, nil
}

func (p *parser) parseUnary(withFilter bool) (Expr, error) {
	var e Expr
	var err error
	switch {
	case p.is(tokens.Subtraction), p.is(tokens.Addition):
		op := p.next()
		inner, err := p.parseUnary(false)
		if err != nil {
			return nil, err
		}
		e = &Unary{Pos: pos(op), Expr: inner, Plus: op.Val == "+"}
	default:
		if e, err = p.parsePrimary(); err != nil {
			return nil, err
		}
	}
	if e, err = p.parsePostfix(e); err != nil {
		return nil, err
	}
	if withFilter {
		return p.parseFilterChain(e)
	}
	return e, nil
}

func (p *parser) parsePrimary() (Expr, error) {
	t := p.cur()
	switch t.Type {
	case tokens.Name:
		p.next()
		switch t.Val {
		case "true", "True":
			return &Literal{Pos: pos(t), Value: true}, nil
		case "false", "False":
			return &Literal{Pos: pos(t), Value: false}, nil
		case "none", "None":
			return &Literal{Pos: pos(t)}, nil
		}
		return &Name{Pos: pos(t), Name: t.Val}, nil
	case tokens.String:
		s := p.decodeString(p.next())
		for p.is(tokens.String) {
			s += p.decodeString(p.next())
		}
		return &Literal{Pos: pos(t), Value: s}, nil
	case tokens.Integer:
		p.next()
		v, err := strconv.ParseInt(strings.ReplaceAll(t.Val, "_", ""), 0, 64)
		if err != nil {
			return nil, p.errf("invalid integer %s", t.Val)
		}
		return &Literal{Pos: pos(t), Value: int(v)}, nil
	case tokens.Float:
		p.next()
		v, err := strconv.ParseFloat(strings.ReplaceAll(t.Val, "_", ""), 64)
		if err != nil {
			return nil, p.errf("invalid float %s", t.Val)
		}
		return &Literal{Pos: pos(t), Value: v}, nil
	case tokens.LeftParenthesis:
		p.next()
		if p.is(tokens.RightParenthesis) {
			p.next()
			return &Tuple{Pos: pos(t)}, nil
		}
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		if p.is(tokens.Comma) {
			items := []Expr{e}
			for p.is(tokens.Comma) {
				p.next()
				if p.is(tokens.RightParenthesis) {
					break
				}
				x, err := p.parseExpr()
				if err != nil {
					return nil, err
				}
				items = append(items, x)
			}
			e = &Tuple{Pos: pos(t), Items: items}
		}
		if _, err := p.expect(tokens.RightParenthesis, ")"); err != nil {
			return nil, err
		}
		return e, nil
	case tokens.LeftBracket:
		p.next()
		l := &List{Pos: pos(t)}
		for !p.is(tokens.RightBracket) {
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			l.Items = append(l.Items, e)
			if !p.is(tokens.Comma) {
				break
			}
			p.next()
		}
		if _, err := p.expect(tokens.RightBracket, "]"); err != nil {
			return nil, err
		}
		return l, nil
	case tokens.LeftBrace:
		p.next()
		d := &Dict{Pos: pos(t)}
		for !p.is(tokens.RightBrace) {
			k, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			if _, err := p.expect(tokens.Colon, ":"); err != nil {
				return nil, err
			}
			v, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			d.Keys = append(d.Keys, k)
			d.Values = append(d.Values, v)
			if !p.is(tokens.Comma) {
				break
			}
			p.next()
		}
		if _, err := p.expect(tokens.RightBrace, "}"); err != nil {
			return nil, err
		}
		return d, nil
	}
	return nil, p.errf("unexpected '%s'", tokenText(t))
}

// expectExpression fails as Jinja2's parse_tuple does when an expression
// is missing before the end of a tag or a closing parenthesis.
func (p *parser) expectExpression() error {
	if p.is(tokens.VariableEnd) || p.is(tokens.BlockEnd) || p.is(tokens.RightParenthesis) {
		return p.errf("Expected an expression, got '%s'", tokenText(p.cur()))
	}
	return nil
}

func (p *parser) parsePostfix(e Expr) (Expr, error) {
	for {
		switch {
		case p.is(tokens.Dot):
			p.next()
			t := p.cur()
			switch t.Type {
			case tokens.Name:
				p.next()
				e = &Attr{Pos: e.Position(), Obj: e, Attr: t.Val}
			case tokens.Integer:
				p.next()
				n, _ := strconv.Atoi(t.Val)
				e = &Item{Pos: e.Position(), Obj: e, Key: &Literal{Pos: pos(t), Value: n}}
			default:
				return nil, p.errf("expected name or number")
			}
		case p.is(tokens.LeftBracket):
			p.next()
			var err error
			if e, err = p.parseSubscript(e); err != nil {
				return nil, err
			}
		case p.is(tokens.LeftParenthesis):
			p.next()
			c := &Call{Pos: e.Position(), Fn: e}
			if err := p.parseArgs(&c.Arguments, &c.Star, &c.DStar); err != nil {
				return nil, err
			}
			e = c
		default:
			return e, nil
		}
	}
}

func (p *parser) parseSubscript(obj Expr) (Expr, error) {
	var parts [3]Expr
	idx := 0
	isSlice := false
	for {
		if p.is(tokens.Colon) {
			isSlice = true
			p.next()
			idx++
			if idx > 2 {
				return nil, p.errf("invalid slice")
			}
			continue
		}
		if p.is(tokens.RightBracket) {
			p.next()
			break
		}
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		parts[idx] = e
	}
	if isSlice {
		return &Slice{Pos: obj.Position(), Obj: obj, Start: parts[0], Stop: parts[1], Step: parts[2]}, nil
	}
	if parts[0] == nil {
		return nil, p.errf("expected subscript expression")
	}
	return &Item{Pos: obj.Position(), Obj: obj, Key: parts[0]}, nil
}

// parseArgs parses call arguments after '(' up to and including ')'.
func (p *parser) parseArgs(a *Arguments, star, dstar *Expr) error {
	for !p.is(tokens.RightParenthesis) {
		switch {
		case p.is(tokens.Power):
			p.next()
			e, err := p.parseExpr()
			if err != nil {
				return err
			}
			*dstar = e
		case p.is(tokens.Multiply):
			p.next()
			e, err := p.parseExpr()
			if err != nil {
				return err
			}
			*star = e
		case p.is(tokens.Name) && p.peekTok(1).Type == tokens.Assign:
			name := p.next().Val
			p.next()
			e, err := p.parseExpr()
			if err != nil {
				return err
			}
			a.KwNames = append(a.KwNames, name)
			a.KwValues = append(a.KwValues, e)
		default:
			e, err := p.parseExpr()
			if err != nil {
				return err
			}
			a.Args = append(a.Args, e)
		}
		if !p.is(tokens.Comma) {
			break
		}
		p.next()
	}
	_, err := p.expect(tokens.RightParenthesis, ")")
	return err
}

func (p *parser) parseFilterCall() (*FilterCall, error) {
	name, err := p.expect(tokens.Name, "name")
	if err != nil {
		return nil, err
	}
	f := &FilterCall{Pos: pos(name), Name: name.Val}
	for p.is(tokens.Dot) { // FQCN filter names such as ansible.builtin.to_json
		p.next()
		part, err := p.expect(tokens.Name, "name")
		if err != nil {
			return nil, err
		}
		f.Name += "." + part.Val
	}
	if p.is(tokens.LeftParenthesis) {
		p.next()
		var star, dstar Expr // Jinja2 parses them; filters ignore them
		if err := p.parseArgs(&f.Arguments, &star, &dstar); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func (p *parser) parseFilterChain(e Expr) (Expr, error) {
	for {
		switch {
		case p.is(tokens.Pipe):
			p.next()
			f, err := p.parseFilterCall()
			if err != nil {
				return nil, err
			}
			if fe, ok := e.(*Filter); ok {
				fe.Filters = append(fe.Filters, f)
			} else {
				e = &Filter{Pos: e.Position(), Expr: e, Filters: []*FilterCall{f}}
			}
		case p.is(tokens.Is):
			p.next()
			t, err := p.parseTest(e)
			if err != nil {
				return nil, err
			}
			e = t
		default:
			return e, nil
		}
	}
}

func (p *parser) parseTest(e Expr) (Expr, error) {
	t := &Test{Pos: e.Position(), Expr: e}
	if p.is(tokens.Not) {
		p.next()
		t.Negate = true
	}
	var name string
	switch {
	case p.is(tokens.Name):
		name = p.next().Val
	case p.is(tokens.In): // `is in`
		name = p.next().Val
	default:
		return nil, p.errf("expected test name")
	}
	for p.is(tokens.Dot) {
		p.next()
		part, err := p.expect(tokens.Name, "name")
		if err != nil {
			return nil, err
		}
		name += "." + part.Val
	}
	switch name {
	case "true", "True":
		name = "true"
	case "false", "False":
		name = "false"
	case "none", "None":
		name = "none"
	}
	t.Name = name
	switch {
	case p.is(tokens.LeftParenthesis):
		p.next()
		var star, dstar Expr // Jinja2 parses them; tests ignore them
		if err := p.parseArgs(&t.Arguments, &star, &dstar); err != nil {
			return nil, err
		}
	case p.startsPrimary():
		arg, err := p.parsePrimary()
		if err != nil {
			return nil, err
		}
		if arg, err = p.parsePostfix(arg); err != nil {
			return nil, err
		}
		t.Args = []Expr{arg}
	}
	return t, nil
}

// startsPrimary reports whether the current token can begin a bare test
// argument, as in `x is divisibleby 3` or `x is sameas false`.
func (p *parser) startsPrimary() bool {
	switch t := p.cur(); t.Type {
	case tokens.String, tokens.Integer, tokens.Float, tokens.LeftBracket, tokens.LeftBrace:
		return true
	case tokens.Name:
		switch t.Val {
		case "else", "or", "and", "if", "not", "in", "is":
			return false
		}
		return true
	}
	return false
}
