package run

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/template"
)

// embeddedOnly reports whether every template marker of a conditional
// stands inside one of its quoted string constants ("x == '{{ y }}'").
// Such a conditional is evaluated as an expression, whose constants the
// template engine renders (template.Options.Conditional), rather than
// rendered as a template first.
func embeddedOnly(expr string) bool {
	found := false
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		if c == '{' && strings.HasPrefix(expr[i:], "{{") || strings.HasPrefix(expr[i:], "{%") {
			return false
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
			return false
		}
		if template.HasMarkers(expr[i+1 : j]) {
			found = true
		}
		i = j
	}
	return found
}
