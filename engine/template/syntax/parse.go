package syntax

import (
	"fmt"
	"strings"

	"github.com/nikolalohinski/gonja/v2/tokens"
)

// parser turns gonja's token stream into nodes.
type parser struct {
	cfg Config
	// lex is cfg as the lexer sees it (see maskSignedCommentEnds).
	lex  Config
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
	// inherits is set once an extends or block tag is parsed: the
	// template is then a Layout.
	inherits bool
}

// Parse parses a whole template with ansible-core's default environment
// (see ParseConfig).
func Parse(src string, rawVarStrings bool) ([]Node, error) {
	return ParseConfig(src, rawVarStrings, Default())
}

// ParseConfig parses a whole template with the delimiters and whitespace
// options of cfg. As in Jinja2, every line break becomes "\n" first and,
// unless cfg keeps it, the last one is dropped. With rawVarStrings,
// backslashes in string constants inside {{ }} are not escapes
// (ansible-core pre-escapes them for templates that come from YAML, whose
// parser already processed escapes); in {% %} statements they always are.
// A template that does not parse fails with a *SyntaxError.
func ParseConfig(src string, rawVarStrings bool, cfg Config) ([]Node, error) {
	norm := strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
	if !cfg.KeepTrailingNewline {
		norm = strings.TrimSuffix(norm, "\n")
	}
	input, lex := maskSignedCommentEnds(maskEscapedBackslashes(norm, cfg), cfg)
	st := tokens.LexAll(input, lex.lexer())
	p := &parser{cfg: cfg, lex: lex, src: norm, rawVarStrings: rawVarStrings}
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
	if p.inherits {
		l, err := layout(body)
		if err != nil {
			return nil, err
		}
		return []Node{l}, nil
	}
	return body, nil
}

func (p *parser) cur() *tokens.Token { return p.toks[p.i] }

// pos is the position of token t.
func pos(t *tokens.Token) Pos { return Pos{Offset: t.Pos, Line: t.Line, Col: t.Col} }

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
func (p *parser) parseBody(ends ...string) ([]Node, string, error) {
	if ends != nil {
		p.endStack = append(p.endStack, ends)
		defer func() { p.endStack = p.endStack[:len(p.endStack)-1] }()
	}
	var out []Node
	for {
		t := p.cur()
		switch t.Type {
		case tokens.EOF:
			if ends != nil {
				return nil, "", p.failUnknownTag("")
			}
			return out, "", nil
		case tokens.Data:
			text := p.dataText()
			p.next()
			if text != "" {
				out = append(out, &Text{Pos: pos(t), Text: text})
			}
		case tokens.CommentBegin:
			for p.cur().Type != tokens.CommentEnd && p.cur().Type != tokens.EOF {
				p.next()
			}
			p.next()
		case tokens.VariableBegin:
			start := p.next()
			if err := p.expectExpression(); err != nil {
				return nil, "", err
			}
			p.inVar = true
			e, err := p.parseTupleOr()
			p.inVar = false
			if err != nil {
				return nil, "", err
			}
			if _, err := p.expect(tokens.VariableEnd, "end of print statement"); err != nil {
				return nil, "", err
			}
			out = append(out, &Output{Pos: pos(start), Expr: e})
		case tokens.BlockBegin:
			start := p.next()
			name := p.cur()
			if name.Type != tokens.Name || name.Val == "" {
				return nil, "", p.errf("tag name expected")
			}
			for _, e := range ends {
				if name.Val == e {
					p.next()
					return out, e, nil
				}
			}
			n, err := p.parseStatement(name.Val, pos(start))
			if err != nil {
				return nil, "", err
			}
			out = append(out, n)
		default:
			return nil, "", p.errf("unexpected '%s'", t.Val)
		}
	}
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

// parseStatement parses the statement a block tag opens at start; only
// Jinja2's statements and the extensions ansible-core enables are known
// (not do, break or continue).
func (p *parser) parseStatement(name string, start Pos) (Node, error) {
	var parse func(Pos) (Node, error)
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
	case "include":
		parse = p.parseInclude
	case "import":
		parse = p.parseImport
	case "from":
		parse = p.parseFrom
	case "extends":
		parse = p.parseExtends
	case "block":
		parse = p.parseBlock
	default:
		return nil, p.failUnknownTag(name)
	}
	p.next()
	p.tagStack = append(p.tagStack, name)
	defer func() { p.tagStack = p.tagStack[:len(p.tagStack)-1] }()
	return parse(start)
}
