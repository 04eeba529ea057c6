package run

import (
	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// untrustedError is ansible-core 2.19's TemplateTrustCheckFailedError: a
// conditional or expression that is not from a trusted source (a template
// result, a module result, registered output, facts) was to be evaluated.
func untrustedError(pos value.Pos) error {
	p := pos
	return &diag.Diagnostic{
		Summary: "Encountered untrusted template or expression.",
		Origin:  &p,
		Help:    "Templates and expressions must be defined by trusted sources such as playbooks or roles, not untrusted sources such as module results.",
	}
}

// markUntrusted marks the strings holding templates in data that is kept
// where trusted values live (add_host's variables, in the inventory), so
// that they are never rendered.
func markUntrusted(v any) any { return value.MarkUntrusted(v, template.HasMarkers) }
