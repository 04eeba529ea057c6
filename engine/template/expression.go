package template

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/template/syntax"
)

// ExpressionSyntaxError is an expression (a conditional, debug's `var`)
// that does not parse as one Jinja2 expression, in ansible-core's words:
// template delimiters in it get their own sentence.
type ExpressionSyntaxError struct {
	Msg        string
	Delimiters bool
}

func (e *ExpressionSyntaxError) Error() string {
	if e.Delimiters {
		return "Syntax error in expression. Template delimiters are not supported in expressions: " + e.Msg
	}
	return "Syntax error in expression: " + e.Msg
}

// PossiblyAllTemplate is ansible-core's is_possibly_all_template: s
// starts with a #jinja2: header, or starts and ends with template
// delimiters. A conditional that is not is evaluated as an expression.
func PossiblyAllTemplate(s string) bool {
	if strings.HasPrefix(s, HeaderPrefix) {
		return true
	}
	starts := strings.HasPrefix(s, "{%") || strings.HasPrefix(s, "{{") || strings.HasPrefix(s, "{#")
	ends := strings.HasSuffix(s, "%}") || strings.HasSuffix(s, "}}") || strings.HasSuffix(s, "#}")
	return starts && ends
}

// exprConfig lexes an expression as Jinja2's compile_expression does:
// inside the expression, "{{", "}}", "{%"... are operators, not
// delimiters, so the delimiters that wrap it must be ones no expression
// holds.
var exprConfig = func() syntax.Config {
	cfg := syntax.Default()
	cfg.VariableStart, cfg.VariableEnd = "\x00<", ">\x00"
	cfg.BlockStart, cfg.BlockEnd = "\x00[", "]\x00"
	cfg.CommentStart, cfg.CommentEnd = "\x00(", ")\x00"
	return cfg
}()

// expressionSyntax checks that expression (src is it as a template, "{{
// expression }}") parses as one expression; if not, it returns Jinja2's
// syntax error for it.
func (e *Engine) expressionSyntax(expression, src string, rawVarStrings bool) error {
	nodes, err := e.parseConfig(src, rawVarStrings, nil)
	if err == nil {
		if _, single := singleOutput(nodes); single {
			return nil
		}
	}
	if strings.ContainsRune(expression, 0) {
		return err
	}
	_, xerr := syntax.ParseConfig(exprConfig.VariableStart+" "+expression+" "+exprConfig.VariableEnd, rawVarStrings, exprConfig)
	se, ok := xerr.(*syntax.SyntaxError)
	if !ok {
		if err == nil {
			return &ExpressionSyntaxError{Msg: "chunk after expression", Delimiters: isTemplate(expression, nil)}
		}
		return err
	}
	msg := se.Msg
	switch {
	case msg == "unexpected 'end of print statement'":
		msg = "unexpected 'end of template'"
	case strings.HasPrefix(msg, "expected token 'end of print statement'"):
		msg = "chunk after expression"
	}
	return &ExpressionSyntaxError{Msg: msg, Delimiters: isTemplate(expression, nil)}
}
