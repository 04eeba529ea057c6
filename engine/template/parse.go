package template

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// SyntaxError is a template that does not parse.
type SyntaxError struct {
	Msg  string
	Line int
	Col  int
}

func (e *SyntaxError) Error() string { return e.Msg }

// parser turns gonja's token stream into our AST.
type parser struct {
	src  string
	toks []*tokens.Token
	i    int
	// rawVarStrings keeps string constants inside {{ }} verbatim, as
	// ansible-core's escape_backslashes does for templates from YAML.
	rawVarStrings bool
	inVar         bool
	// endStack holds the end tags each open block waits for and tagStack
	// the open blocks' names, for Jinja2's unknown-tag messages.
	endStack [][]string
	tagStack []string
}

func lexerConfig() *config.Config {
	c := config.New()
	c.TrimBlocks = true
	c.KeepTrailingNewline = true
	return c
}

var lexCfg = lexerConfig()

// parseTemplate parses a whole template. With rawVarStrings, backslashes in
// string constants inside {{ }} are not escapes (ansible-core pre-escapes
// them for templates that come from YAML, whose parser already processed
// escapes); in {% %} statements they always are.
func parseTemplate(src string, rawVarStrings bool) ([]node, error) {
	norm := strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
	st := tokens.LexAll(maskEscapedBackslashes(norm), lexCfg)
	p := &parser{src: norm, rawVarStrings: rawVarStrings}
	for {
		t := st.Current()
		p.toks = append(p.toks, t)
		if t.Type == tokens.EOF || t.Type == tokens.Error {
			break
		}
		st.Next()
	}
	if last := p.toks[len(p.toks)-1]; last.Type == tokens.Error {
		return nil, &SyntaxError{Msg: "unexpected end of template, " + strings.TrimSpace(last.Val), Line: last.Line, Col: last.Col}
	}
	body, _, err := p.parseBody()
	if err != nil {
		return nil, err
	}
	return body, nil
}

func (p *parser) cur() *tokens.Token { return p.toks[p.i] }
func (p *parser) peekTok(n int) *tokens.Token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) next() *tokens.Token {
	t := p.toks[p.i]
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

func (p *parser) errf(format string, a ...any) error {
	t := p.cur()
	return &SyntaxError{Msg: fmt.Sprintf(format, a...), Line: t.Line, Col: t.Col}
}

func (p *parser) is(tt tokens.Type, val ...string) bool {
	t := p.cur()
	if t.Type != tt {
		return false
	}
	if len(val) == 0 {
		return true
	}
	for _, v := range val {
		if t.Val == v {
			return true
		}
	}
	return false
}

func (p *parser) isName(names ...string) bool { return p.is(tokens.Name, names...) }

// expect consumes a token of type tt; what is Jinja2's description of the
// expected token ("end of print statement", "name", ")").
func (p *parser) expect(tt tokens.Type, what string) (*tokens.Token, error) {
	if t := p.cur(); t.Type != tt {
		if t.Type == tokens.EOF {
			return nil, p.errf("unexpected end of template, expected '%s'.", what)
		}
		return nil, p.errf("expected token '%s', got '%s'", what, tokenText(t))
	}
	return p.next(), nil
}

// parseBody parses document elements until EOF or, inside a block, one of
// the block's end tags (ends), whose name it returns with the parser
// positioned after the tag name. Any other tag must start a statement.
func (p *parser) parseBody(ends ...string) ([]node, string, error) {
	if ends != nil {
		p.endStack = append(p.endStack, ends)
		defer func() { p.endStack = p.endStack[:len(p.endStack)-1] }()
	}
	var out []node
	for {
		t := p.cur()
		switch t.Type {
		case tokens.EOF:
			if ends != nil {
				return nil, "", p.failUnknownTag("")
			}
			return out, "", nil
		case tokens.Data:
			trimLeft := p.i > 0 && strings.HasPrefix(p.toks[p.i-1].Val, "-") && isEndToken(p.toks[p.i-1].Type)
			p.next()
			text := t.Val
			if t.Trim || trimLeft {
				text = strings.TrimLeft(text, " \t\n\r")
			}
			if nt := p.cur(); (nt.Type == tokens.VariableBegin || nt.Type == tokens.BlockBegin || nt.Type == tokens.CommentBegin) && strings.HasSuffix(nt.Val, "-") {
				text = strings.TrimRight(text, " \t\n\r")
			}
			if text != "" {
				out = append(out, &textNode{text: text})
			}
		case tokens.CommentBegin:
			for p.cur().Type != tokens.CommentEnd && p.cur().Type != tokens.EOF {
				p.next()
			}
			p.next()
		case tokens.VariableBegin:
			p.next()
			if err := p.expectExpression(); err != nil {
				return nil, "", err
			}
			p.inVar = true
			e, err := p.parseTupleOr(false)
			p.inVar = false
			if err != nil {
				return nil, "", err
			}
			if _, err := p.expect(tokens.VariableEnd, "end of print statement"); err != nil {
				return nil, "", err
			}
			out = append(out, &outputNode{e: e})
		case tokens.BlockBegin:
			p.next()
			name := p.cur()
			if name.Type != tokens.Name {
				return nil, "", p.errf("tag name expected")
			}
			for _, e := range ends {
				if name.Val == e {
					p.next()
					return out, e, nil
				}
			}
			n, err := p.parseStatement(name.Val)
			if err != nil {
				return nil, "", err
			}
			out = append(out, n)
		default:
			return nil, "", p.errf("unexpected '%s'", t.Val)
		}
	}
}

func isEndToken(t tokens.Type) bool {
	return t == tokens.VariableEnd || t == tokens.BlockEnd || t == tokens.CommentEnd
}

func (p *parser) endBlock() error {
	_, err := p.expect(tokens.BlockEnd, "end of statement block")
	return err
}

// failUnknownTag is Jinja2's error for an unknown tag name, or (with an
// empty name) for the end of the template inside an open block.
func (p *parser) failUnknownTag(name string) error {
	var msg []string
	if name == "" {
		msg = append(msg, "Unexpected end of template.")
	} else {
		msg = append(msg, fmt.Sprintf("Encountered unknown tag '%s'.", name))
	}
	if n := len(p.endStack); n > 0 {
		quoted := make([]string, len(p.endStack[n-1]))
		for i, e := range p.endStack[n-1] {
			quoted[i] = "'" + e + "'"
		}
		looking := strings.Join(quoted, " or ")
		expected := false
		for _, ends := range p.endStack {
			for _, e := range ends {
				expected = expected || e == name
			}
		}
		if name != "" && expected {
			msg = append(msg, "You probably made a nesting mistake. Jinja is expecting this tag, but currently looking for "+looking+".")
		} else {
			msg = append(msg, "Jinja was looking for the following tags: "+looking+".")
		}
	}
	if n := len(p.tagStack); n > 0 {
		msg = append(msg, fmt.Sprintf("The innermost block that needs to be closed is '%s'.", p.tagStack[n-1]))
	}
	return p.errf("%s", strings.Join(msg, " "))
}

// parseStatement parses the statement a block tag opens; only Jinja2's
// statements and the extensions ansible-core enables are known (not do,
// break or continue).
func (p *parser) parseStatement(name string) (node, error) {
	var parse func() (node, error)
	switch name {
	case "if":
		parse = p.parseIf
	case "for":
		parse = p.parseFor
	case "set":
		parse = p.parseSet
	case "macro":
		parse = p.parseMacro
	case "with":
		parse = p.parseWith
	case "filter":
		parse = p.parseFilterBlock
	case "call":
		parse = p.parseCall
	case "raw":
		parse = p.parseRaw
	case "print":
		parse = p.parsePrint
	default:
		return nil, p.failUnknownTag(name)
	}
	p.next()
	p.tagStack = append(p.tagStack, name)
	defer func() { p.tagStack = p.tagStack[:len(p.tagStack)-1] }()
	return parse()
}

func (p *parser) parsePrint() (node, error) {
	e, err := p.parseTupleOr(false)
	if err != nil {
		return nil, err
	}
	return &outputNode{e: e}, p.endBlock()
}

// parseRaw keeps the text up to {% endraw %} as it is.
func (p *parser) parseRaw() (node, error) {
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
			return &textNode{text: b.String()}, p.endBlock()
		}
		b.WriteString(t.Val)
		p.next()
	}
}

// parseCall parses {% call(params) macro(args) %}body{% endcall %}.
func (p *parser) parseCall() (node, error) {
	n := &callNode{caller: &macroNode{name: "caller"}}
	if p.is(tokens.LeftParenthesis) {
		p.next()
		if err := p.parseParams(n.caller); err != nil {
			return nil, err
		}
	}
	e, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	call, ok := e.(*callExpr)
	if !ok {
		return nil, p.errf("expected call")
	}
	n.call = call
	if err := p.endBlock(); err != nil {
		return nil, err
	}
	if n.caller.body, _, err = p.parseBody("endcall"); err != nil {
		return nil, err
	}
	return n, p.endBlock()
}

func (p *parser) parseIf() (node, error) {
	n := &ifNode{}
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
	n.conds = append(n.conds, cond)
	for {
		body, end, err := p.parseBody("elif", "else", "endif")
		if err != nil {
			return nil, err
		}
		n.bodies = append(n.bodies, body)
		switch end {
		case "elif":
			c, err := p.parseOr()
			if err != nil {
				return nil, err
			}
			if err := p.endBlock(); err != nil {
				return nil, err
			}
			n.conds = append(n.conds, c)
		case "else":
			if err := p.endBlock(); err != nil {
				return nil, err
			}
			body, _, err := p.parseBody("endif")
			if err != nil {
				return nil, err
			}
			n.bodies = append(n.bodies, body)
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

func (p *parser) parseFor() (node, error) {
	n := &forNode{}
	var err error
	if n.targets, err = p.parseTargets(); err != nil {
		return nil, err
	}
	if !p.is(tokens.In) {
		return nil, p.errf("expected 'in'")
	}
	p.next()
	if n.iter, err = p.parseForIter(); err != nil {
		return nil, err
	}
	if p.isName("if") {
		p.next()
		if n.cond, err = p.parseExpr(); err != nil {
			return nil, err
		}
	}
	if p.isName("recursive") {
		p.next()
		n.recursive = true
	}
	if err := p.endBlock(); err != nil {
		return nil, err
	}
	body, end, err := p.parseBody("endfor", "else")
	if err != nil {
		return nil, err
	}
	n.body = body
	if end == "else" {
		if err := p.endBlock(); err != nil {
			return nil, err
		}
		if n.elseBody, _, err = p.parseBody("endfor"); err != nil {
			return nil, err
		}
	}
	return n, p.endBlock()
}

// parseForIter parses what a for loop iterates over: an or-expression or
// a tuple of them (Jinja2 leaves `if` to the loop filter).
func (p *parser) parseForIter() (expr, error) {
	if err := p.expectExpression(); err != nil {
		return nil, err
	}
	e, err := p.parseOr()
	if err != nil || !p.is(tokens.Comma) {
		return e, err
	}
	items := []expr{e}
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
	return &tupleExpr{items: items}, nil
}

func (p *parser) parseSet() (node, error) {
	n := &setNode{}
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
		n.target = &attrExpr{obj: &nameExpr{name: first.Val}, attr: attr.Val}
	default:
		n.names = []string{first.Val}
		for p.is(tokens.Comma) {
			p.next()
			t, err := p.expect(tokens.Name, "name")
			if err != nil {
				return nil, err
			}
			n.names = append(n.names, t.Val)
		}
	}
	if p.is(tokens.BlockEnd) {
		p.next()
		body, _, err := p.parseBody("endset")
		if err != nil {
			return nil, err
		}
		n.body = body
		return n, p.endBlock()
	}
	if _, err := p.expect(tokens.Assign, "="); err != nil {
		return nil, err
	}
	if n.value, err = p.parseTupleOr(false); err != nil {
		return nil, err
	}
	return n, p.endBlock()
}

func (p *parser) parseMacro() (node, error) {
	name, err := p.expect(tokens.Name, "name")
	if err != nil {
		return nil, err
	}
	n := &macroNode{name: name.Val}
	if _, err := p.expect(tokens.LeftParenthesis, "("); err != nil {
		return nil, err
	}
	if err := p.parseParams(n); err != nil {
		return nil, err
	}
	if err := p.endBlock(); err != nil {
		return nil, err
	}
	if n.body, _, err = p.parseBody("endmacro"); err != nil {
		return nil, err
	}
	return n, p.endBlock()
}

// parseParams parses a macro's parameter list after its '('.
func (p *parser) parseParams(n *macroNode) error {
	for !p.is(tokens.RightParenthesis) {
		pn, err := p.expect(tokens.Name, "name")
		if err != nil {
			return err
		}
		n.params = append(n.params, pn.Val)
		var def expr
		if p.is(tokens.Assign) {
			p.next()
			if def, err = p.parseExpr(); err != nil {
				return err
			}
		}
		n.defaults = append(n.defaults, def)
		if p.is(tokens.Comma) {
			p.next()
		}
	}
	p.next()
	return nil
}

func (p *parser) parseWith() (node, error) {
	n := &withNode{}
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
		n.names = append(n.names, t.Val)
		n.values = append(n.values, v)
		if p.is(tokens.Comma) {
			p.next()
		}
	}
	p.next()
	body, _, err := p.parseBody("endwith")
	if err != nil {
		return nil, err
	}
	n.body = body
	return n, p.endBlock()
}

func (p *parser) parseFilterBlock() (node, error) {
	n := &filterBlockNode{}
	for {
		f, err := p.parseFilterCall()
		if err != nil {
			return nil, err
		}
		n.filters = append(n.filters, f)
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
	n.body = body
	return n, p.endBlock()
}

// parseTupleOr parses an expression, or an unparenthesised tuple when a
// comma follows (as in `{% for x in a, b %}` or `{% set t = 1, 2 %}`).
func (p *parser) parseTupleOr(allowEmpty bool) (expr, error) {
	e, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	if !p.is(tokens.Comma) {
		return e, nil
	}
	items := []expr{e}
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
	return &tupleExpr{items: items}, nil
}

// parseExpr parses a conditional expression (the top of Jinja's grammar).
func (p *parser) parseExpr() (expr, error) {
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
		var els expr
		if p.isName("else") {
			p.next()
			if els, err = p.parseExpr(); err != nil {
				return nil, err
			}
		}
		e = &condExpr{cond: cond, then: e, els: els}
	}
	return e, nil
}

func (p *parser) parseOr() (expr, error) {
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
		l = &orExpr{l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseAnd() (expr, error) {
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
		l = &andExpr{l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseNot() (expr, error) {
	if p.is(tokens.Not) {
		p.next()
		e, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return &notExpr{e: e}, nil
	}
	return p.parseCompare()
}

func (p *parser) parseCompare() (expr, error) {
	first, err := p.parseMath1()
	if err != nil {
		return nil, err
	}
	c := &compareExpr{first: first}
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
		c.ops = append(c.ops, op)
		c.rest = append(c.rest, r)
	}
	if len(c.ops) == 0 {
		return first, nil
	}
	return c, nil
}

func (p *parser) parseMath1() (expr, error) {
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
		l = &binExpr{op: op, l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseConcat() (expr, error) {
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
		l = &binExpr{op: "~", l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseMath2() (expr, error) {
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
		l = &binExpr{op: op, l: l, r: r}
	}
	return l, nil
}

func (p *parser) parsePow() (expr, error) {
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
		l = &binExpr{op: "**", l: l, r: r}
	}
	return l, nil
}

func (p *parser) parseUnary(withFilter bool) (expr, error) {
	var e expr
	var err error
	switch {
	case p.is(tokens.Subtraction), p.is(tokens.Addition):
		plus := p.next().Val == "+"
		inner, err := p.parseUnary(false)
		if err != nil {
			return nil, err
		}
		e = &negExpr{e: inner, plus: plus}
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

func (p *parser) parsePrimary() (expr, error) {
	t := p.cur()
	switch t.Type {
	case tokens.Name:
		p.next()
		switch t.Val {
		case "true", "True":
			return &literalExpr{v: true}, nil
		case "false", "False":
			return &literalExpr{v: false}, nil
		case "none", "None":
			return &literalExpr{v: nil}, nil
		}
		return &nameExpr{name: t.Val}, nil
	case tokens.String:
		s := p.decodeString(p.next())
		for p.is(tokens.String) {
			s += p.decodeString(p.next())
		}
		return &literalExpr{v: s}, nil
	case tokens.Integer:
		p.next()
		v, err := strconv.ParseInt(strings.ReplaceAll(t.Val, "_", ""), 0, 64)
		if err != nil {
			return nil, p.errf("invalid integer %s", t.Val)
		}
		return &literalExpr{v: int(v)}, nil
	case tokens.Float:
		p.next()
		v, err := strconv.ParseFloat(strings.ReplaceAll(t.Val, "_", ""), 64)
		if err != nil {
			return nil, p.errf("invalid float %s", t.Val)
		}
		return &literalExpr{v: v}, nil
	case tokens.LeftParenthesis:
		p.next()
		if p.is(tokens.RightParenthesis) {
			p.next()
			return &tupleExpr{}, nil
		}
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		if p.is(tokens.Comma) {
			items := []expr{e}
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
			e = &tupleExpr{items: items}
		}
		if _, err := p.expect(tokens.RightParenthesis, ")"); err != nil {
			return nil, err
		}
		return e, nil
	case tokens.LeftBracket:
		p.next()
		l := &listExpr{}
		for !p.is(tokens.RightBracket) {
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			l.items = append(l.items, e)
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
		d := &dictExpr{}
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
			d.keys = append(d.keys, k)
			d.values = append(d.values, v)
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

// tokenText is Jinja2's describe_token: a name or operator is itself,
// other tokens are named by their type.
func tokenText(t *tokens.Token) string {
	switch t.Type {
	case tokens.VariableBegin:
		return "begin of print statement"
	case tokens.VariableEnd:
		return "end of print statement"
	case tokens.BlockBegin:
		return "begin of statement block"
	case tokens.BlockEnd:
		return "end of statement block"
	case tokens.CommentBegin:
		return "begin of comment"
	case tokens.CommentEnd:
		return "end of comment"
	case tokens.Data:
		return "template data / text"
	case tokens.EOF:
		return "end of template"
	case tokens.String:
		return "string"
	case tokens.Integer:
		return "integer"
	case tokens.Float:
		return "float"
	}
	return t.Val
}

// expectExpression fails as Jinja2's parse_tuple does when an expression
// is missing before the end of a tag or a closing parenthesis.
func (p *parser) expectExpression() error {
	if p.is(tokens.VariableEnd) || p.is(tokens.BlockEnd) || p.is(tokens.RightParenthesis) {
		return p.errf("Expected an expression, got '%s'", tokenText(p.cur()))
	}
	return nil
}

func (p *parser) parsePostfix(e expr) (expr, error) {
	for {
		switch {
		case p.is(tokens.Dot):
			p.next()
			t := p.cur()
			switch t.Type {
			case tokens.Name:
				p.next()
				e = &attrExpr{obj: e, attr: t.Val}
			case tokens.Integer:
				p.next()
				n, _ := strconv.Atoi(t.Val)
				e = &itemExpr{obj: e, key: &literalExpr{v: n}}
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
			c := &callExpr{fn: e}
			if err := p.parseArgs(&c.args, &c.kwNames, &c.kwVals, &c.star, &c.dstar); err != nil {
				return nil, err
			}
			e = c
		default:
			return e, nil
		}
	}
}

func (p *parser) parseSubscript(obj expr) (expr, error) {
	var parts [3]expr
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
		return &sliceExpr{obj: obj, start: parts[0], stop: parts[1], step: parts[2]}, nil
	}
	if parts[0] == nil {
		return nil, p.errf("expected subscript expression")
	}
	return &itemExpr{obj: obj, key: parts[0]}, nil
}

// parseArgs parses call arguments after '(' up to and including ')'.
func (p *parser) parseArgs(args *[]expr, kwNames *[]string, kwVals *[]expr, star, dstar *expr) error {
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
			*kwNames = append(*kwNames, name)
			*kwVals = append(*kwVals, e)
		default:
			e, err := p.parseExpr()
			if err != nil {
				return err
			}
			*args = append(*args, e)
		}
		if !p.is(tokens.Comma) {
			break
		}
		p.next()
	}
	_, err := p.expect(tokens.RightParenthesis, ")")
	return err
}

func (p *parser) parseFilterCall() (*filterCall, error) {
	name, err := p.expect(tokens.Name, "name")
	if err != nil {
		return nil, err
	}
	f := &filterCall{name: name.Val}
	for p.is(tokens.Dot) { // FQCN filter names such as ansible.builtin.to_json
		p.next()
		part, err := p.expect(tokens.Name, "name")
		if err != nil {
			return nil, err
		}
		f.name += "." + part.Val
	}
	if p.is(tokens.LeftParenthesis) {
		p.next()
		var star, dstar expr
		if err := p.parseArgs(&f.args, &f.kwNames, &f.kwVals, &star, &dstar); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func (p *parser) parseFilterChain(e expr) (expr, error) {
	for {
		switch {
		case p.is(tokens.Pipe):
			p.next()
			f, err := p.parseFilterCall()
			if err != nil {
				return nil, err
			}
			if fe, ok := e.(*filterExpr); ok {
				fe.filters = append(fe.filters, f)
			} else {
				e = &filterExpr{e: e, filters: []*filterCall{f}}
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

func (p *parser) parseTest(e expr) (expr, error) {
	t := &testExpr{e: e}
	if p.is(tokens.Not) {
		p.next()
		t.negate = true
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
	t.name = name
	switch {
	case p.is(tokens.LeftParenthesis):
		p.next()
		var star, dstar expr
		if err := p.parseArgs(&t.args, &t.kwNames, &t.kwVals, &star, &dstar); err != nil {
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
		t.args = []expr{arg}
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

// decodeString re-reads a string literal from the source and applies
// Python's escape rules (gonja only unescapes quotes).
func (p *parser) decodeString(t *tokens.Token) string {
	if t.Pos < 0 || t.Pos >= len(p.src) || (p.src[t.Pos] != '\'' && p.src[t.Pos] != '"') {
		return t.Val
	}
	q := p.src[t.Pos]
	var b strings.Builder
	s := p.src[t.Pos+1:]
	if p.rawVarStrings && p.inVar {
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case q:
				return s[:i]
			}
		}
		return t.Val
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == q {
			return b.String()
		}
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\':
			b.WriteByte('\\')
		case '\'':
			b.WriteByte('\'')
		case '"':
			b.WriteByte('"')
		case '0':
			b.WriteByte(0)
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case '\n':
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
			if i+n < len(s) {
				if r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32); err == nil {
					b.WriteRune(rune(r))
					i += n
					continue
				}
			}
			b.WriteByte('\\')
			b.WriteByte(s[i])
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return t.Val
}

// maskEscapedBackslashes hides escaped backslashes inside the string
// constants of {{ }} and {% %} tags from gonja's lexer, which ends a string
// at the quote of '\\' as if it were escaped. The masked text has the same
// length, so token positions stay valid; string constants are re-read from
// the original source (decodeString).
func maskEscapedBackslashes(src string) string {
	if !strings.Contains(src, `\\`) {
		return src
	}
	b := []byte(src)
	inTag := false
	var quote byte
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0:
			switch {
			case c == '\\' && i+1 < len(b):
				if b[i+1] == '\\' {
					b[i], b[i+1] = '_', '_'
				}
				i++
			case c == quote:
				quote = 0
			}
		case !inTag:
			if c == '{' && i+1 < len(b) && (b[i+1] == '{' || b[i+1] == '%') {
				inTag = true
				i++
			}
		case c == '\'' || c == '"':
			quote = c
		case (c == '}' || c == '%') && i+1 < len(b) && b[i+1] == '}':
			inTag = false
			i++
		}
	}
	return string(b)
}
