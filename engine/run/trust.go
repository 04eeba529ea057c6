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

// trackFactTrust records which facts set_fact set to a string written as
// such in the task (no template): ansible-core keeps such a string's
// trust, so a conditional may use it as an expression through a
// variable ("{{ fact }}"). Any other value is data.
func (tr *taskRun) trackFactTrust(hs *hostState, facts *value.Dict) {
	facts.Each(func(k string, v any) bool {
		raw, _ := tr.t.Args.Get(k)
		s, isStr := v.(string)
		if rs, rawStr := raw.(string); rawStr && isStr && rs == s && !template.HasMarkers(rs) {
			if hs.trustedFacts == nil {
				hs.trustedFacts = map[string]bool{}
			}
			hs.trustedFacts[k] = true
		} else {
			delete(hs.trustedFacts, k)
		}
		return true
	})
}
