package run

import (
	"strings"

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
		// A value written without any template (a string, or a list or
		// dict of them) is the playbook's own.
		if raw != nil && isStatic(raw) && value.Equal(raw, v) {
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

// untrustedOrigin is the origin ansible-core gives an untrusted
// expression, the result of the conditional or `var` template src: a
// value keeps where it was written or computed. src is followed through
// the variables it names (and those their values name, when they are
// one variable reference too); the last of them whose origin is known
// (a set_fact or include argument, an add_host variable) is the origin,
// else src's own position, as for a module result, which has none.
func (tr *taskRun) untrustedOrigin(src string, sc *scope, pos value.Pos) value.Pos {
	for depth := 0; depth < 10; depth++ {
		m := singleRef.FindStringSubmatch(strings.TrimSpace(src))
		if m == nil {
			return pos
		}
		name, path, ok := tr.r.Engine.ExprVarRef(m[1])
		if !ok {
			return pos
		}
		cur, _, found := sc.Lookup(name)
		if !found {
			return pos
		}
		for _, step := range path {
			if u, isData := cur.(value.Untrusted); isData {
				cur = u.V
			}
			switch c := cur.(type) {
			case *value.Dict:
				cur, found = c.Get(value.Str(step))
			case []any:
				n, isInt := value.AsInt(step)
				found = isInt && n >= 0 && n < len(c)
				if found {
					cur = c[n]
				}
			default:
				found = false
			}
			if !found {
				return pos
			}
		}
		if p, known := sc.Origin(name, path); known {
			pos = p
		}
		s, isStr := cur.(string)
		if !isStr || !template.HasMarkers(s) {
			return pos
		}
		src = s
	}
	return pos
}

// loopTrust says, per loop item, whether it is a string ansible-core
// still trusts: one written in the playbook's loop list, or in a trusted
// list the loop names ("{{ conds }}"). Loop items are otherwise data
// (they were rendered). nil means none is.
func (tr *taskRun) loopTrust(n int) []bool {
	t := tr.t
	switch t.LoopKind {
	case "loop", "with_list", "with_items":
	default:
		return nil
	}
	var raw []any
	switch x := t.Loop.(type) {
	case []any:
		raw = x
	case string:
		src, ok := tr.r.Engine.TrustedSource(x, tr.sc, tr.optAt(t.LoopPos))
		if l, isList := src.([]any); ok && isList {
			raw = l
		}
	}
	if len(raw) != n {
		return nil
	}
	out := make([]bool, n)
	for i, e := range raw {
		switch x := e.(type) {
		case string:
			out[i] = !template.HasMarkers(x)
		case []any:
			if t.LoopKind == "with_items" {
				// Flattened: the items no longer line up.
				return nil
			}
		}
	}
	return out
}
