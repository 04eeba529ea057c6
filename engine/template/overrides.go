package template

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// HeaderPrefix starts a template whose first line sets its environment
// options, as in "#jinja2: trim_blocks: False, lstrip_blocks: True"
// (ansible-core's JINJA2_OVERRIDE). A string that starts with it is a
// template even without delimiters.
const HeaderPrefix = "#jinja2:"

// isTemplate is ansible-core's is_possibly_template: s starts with a
// #jinja2: header or holds one of the start strings of cfg (nil: the
// default delimiters).
func isTemplate(s string, cfg *syntax.Config) bool {
	if strings.HasPrefix(s, HeaderPrefix) {
		return true
	}
	if cfg == nil {
		return strings.Contains(s, "{{") || strings.Contains(s, "{%") || strings.Contains(s, "{#")
	}
	return strings.Contains(s, cfg.VariableStart) || strings.Contains(s, cfg.BlockStart) || strings.Contains(s, cfg.CommentStart)
}

// overrideFields are the options a #jinja2: header may set, each with the
// function that stores a value of the right type in a Config.
var overrideFields = map[string]func(*syntax.Config, any) error{
	"block_start_string":    stringOverride(func(c *syntax.Config) *string { return &c.BlockStart }),
	"block_end_string":      stringOverride(func(c *syntax.Config) *string { return &c.BlockEnd }),
	"variable_start_string": stringOverride(func(c *syntax.Config) *string { return &c.VariableStart }),
	"variable_end_string":   stringOverride(func(c *syntax.Config) *string { return &c.VariableEnd }),
	"comment_start_string":  stringOverride(func(c *syntax.Config) *string { return &c.CommentStart }),
	"comment_end_string":    stringOverride(func(c *syntax.Config) *string { return &c.CommentEnd }),
	"line_statement_prefix": prefixOverride(func(c *syntax.Config) *string { return &c.LineStatementPrefix }),
	"line_comment_prefix":   prefixOverride(func(c *syntax.Config) *string { return &c.LineCommentPrefix }),
	"trim_blocks":           boolOverride(func(c *syntax.Config) *bool { return &c.TrimBlocks }),
	"lstrip_blocks":         boolOverride(func(c *syntax.Config) *bool { return &c.LStripBlocks }),
	"keep_trailing_newline": boolOverride(func(c *syntax.Config) *bool { return &c.KeepTrailingNewline }),
	"newline_sequence":      newlineOverride,
}

func stringOverride(field func(*syntax.Config) *string) func(*syntax.Config, any) error {
	return func(c *syntax.Config, v any) error {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("must be %s instead of %s", py.ClassRepr("str"), py.ClassRepr(value.TypeName(v)))
		}
		*field(c) = s
		return nil
	}
}

// prefixOverride sets a line prefix, which may also be None (no prefix).
func prefixOverride(field func(*syntax.Config) *string) func(*syntax.Config, any) error {
	return func(c *syntax.Config, v any) error {
		switch s := v.(type) {
		case nil:
			*field(c) = ""
		case string:
			*field(c) = s
		default:
			return fmt.Errorf("must be %s or %s instead of %s", py.ClassRepr("NoneType"), py.ClassRepr("str"), py.ClassRepr(value.TypeName(v)))
		}
		return nil
	}
}

func boolOverride(field func(*syntax.Config) *bool) func(*syntax.Config, any) error {
	return func(c *syntax.Config, v any) error {
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("must be %s instead of %s", py.ClassRepr("bool"), py.ClassRepr(value.TypeName(v)))
		}
		*field(c) = b
		return nil
	}
}

// NewlineSequences are the line breaks Jinja2 can write.
var NewlineSequences = []string{"\n", "\r\n", "\r"}

func newlineOverride(c *syntax.Config, v any) error {
	for _, seq := range NewlineSequences {
		if v == seq {
			c.NewlineSequence = seq
			return nil
		}
	}
	return fmt.Errorf(`must be one of ('\n', '\r\n', '\r') instead of %s`, value.Repr(v))
}

// splitHeader removes a #jinja2: first line from src and returns the
// template that follows it with the options the header sets on top of
// cfg. Its failures read as ansible-core's.
func splitHeader(src string, cfg syntax.Config) (string, syntax.Config, error) {
	if !strings.HasPrefix(src, HeaderPrefix) {
		return src, cfg, nil
	}
	return applyHeader(src, cfg)
}

// applyHeader is splitHeader for a template that has a header; it is
// apart so that the common case does not move cfg to the heap.
func applyHeader(src string, cfg syntax.Config) (string, syntax.Config, error) {
	eol := strings.IndexByte(src, '\n')
	if eol < 0 {
		return "", cfg, headerError("Missing newline after '%s' override.", HeaderPrefix)
	}
	line, body := src[len(HeaderPrefix):eol], src[eol+1:]
	for _, pair := range strings.Split(line, ",") {
		if strings.TrimFunc(pair, py.IsSpace) == "" {
			return "", cfg, headerError("Empty '%s' override pair not allowed.", HeaderPrefix)
		}
		key, raw, ok := strings.Cut(pair, ":")
		if !ok {
			return "", cfg, headerError("Missing key-value separator `:` in '%s' override pair %s.", HeaderPrefix, value.Repr(pair))
		}
		key = strings.TrimFunc(key, py.IsSpace)
		set, known := overrideFields[key]
		if !known {
			return "", cfg, headerError("Invalid '%s' override key %s.", HeaderPrefix, value.Repr(key))
		}
		v, err := pyLiteral(raw)
		if err != nil {
			return "", cfg, headerError("%s", err.Error())
		}
		if err := set(&cfg, v); err != nil {
			return "", cfg, headerError("TemplateOverrides.%s %s", key, err.Error())
		}
	}
	if !cfg.DistinctStarts() {
		return "", cfg, headerError(syntax.ErrSameStart)
	}
	return body, cfg, nil
}

func headerError(format string, a ...any) error {
	return &TemplateSyntaxError{Msg: fmt.Sprintf(format, a...)}
}

// pyLiteral reads a header value as Python's ast.literal_eval reads the
// values an option can take: quoted strings, True, False, None and
// numbers. Other names and expressions fail as they do in Python.
func pyLiteral(s string) (any, error) {
	s = strings.TrimRightFunc(strings.TrimLeft(s, " \t"), py.IsSpace)
	switch s {
	case "True":
		return true, nil
	case "False":
		return false, nil
	case "None":
		return nil, nil
	case "":
		return nil, fmt.Errorf("invalid syntax (<unknown>, line 1)")
	}
	if n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64); err == nil {
		return int(n), nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f, nil
	}
	if s[0] == '\'' || s[0] == '"' {
		return pyString(s)
	}
	if s[0] == '[' || s[0] == '{' {
		return py.LiteralEval(s), nil
	}
	if isIdentifier(s) {
		// ast.literal_eval names the node it refused, with its address.
		return nil, fmt.Errorf("malformed node or string on line 1: <ast.Name object at 0x%x>", 0x7f0000000000+len(s))
	}
	return nil, fmt.Errorf("invalid syntax (<unknown>, line 1)")
}

// pyString reads one quoted Python string literal with its escapes.
func pyString(s string) (any, error) {
	nodes, err := syntax.Parse("{{ "+s+" }}", false)
	if err == nil && len(nodes) == 1 {
		if o, ok := nodes[0].(*syntax.Output); ok {
			if lit, ok := o.Expr.(*syntax.Literal); ok {
				if str, ok := lit.Value.(string); ok {
					return str, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("unterminated string literal (detected at line 1) (<unknown>, line 1)")
}

func isIdentifier(s string) bool {
	for i, r := range s {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && (i == 0 || !(r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}
