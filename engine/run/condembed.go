package run

import (
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// embeddedTemplateHelp is the advice that follows the warning.
const embeddedTemplateHelp = "Use inline expressions, for example: `when: \"{{ a_var }}\" == 42` becomes `when: a_var == 42`"

// stringLiteral is one quoted string constant of an expression: its
// bounds (quotes included) and its text between the quotes.
type stringLiteral struct {
	start, end int
	text       string
}

// embeddedOnly returns the string constants of expr that hold template
// markers, when every marker of expr is inside one: ansible-core then
// renders each such constant (to a native value) before it evaluates the
// expression. ok is false when a marker stands outside the constants.
func embeddedOnly(expr string) (lits []stringLiteral, ok bool) {
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		if c == '{' && strings.HasPrefix(expr[i:], "{{") || strings.HasPrefix(expr[i:], "{%") {
			return nil, false
		}
		if c != '\'' && c != '"' {
			continue
		}
		j := i + 1
		for j < len(expr) && expr[j] != c {
			if expr[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(expr) {
			return nil, false
		}
		if text := expr[i+1 : j]; template.HasMarkers(text) && !strings.Contains(text, "\\") {
			lits = append(lits, stringLiteral{start: i, end: j + 1, text: text})
		}
		i = j
	}
	return lits, len(lits) > 0
}

// evalEmbedded evaluates a conditional whose templates are all inside
// string constants: each constant is rendered, bound to a variable of its
// own and the expression evaluated with those in place, with
// ansible-core's warning at the conditional.
func (tr *taskRun) evalEmbedded(expr string, lits []stringLiteral, sc *scope, opt template.Options, pos value.Pos) (any, error) {
	bound := value.NewDict(len(lits))
	var b strings.Builder
	last := 0
	for i, l := range lits {
		v, err := tr.r.Engine.Render(l.text, sc, opt)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("__cfzt_embedded_%d", i)
		bound.Set(name, v)
		b.WriteString(expr[last:l.start])
		b.WriteString(name)
		last = l.end
	}
	b.WriteString(expr[last:])
	p := pos
	tr.r.warn(&diag.Diagnostic{Severity: diag.Warning, Summary: template.EmbeddedTemplateWarning, Origin: &p, Help: embeddedTemplateHelp})
	return tr.r.Engine.Eval(b.String(), sc.with(bound, false), opt)
}
