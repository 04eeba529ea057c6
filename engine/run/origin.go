package run

import (
	"regexp"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// singleRef matches a template that is exactly one expression.
var singleRef = regexp.MustCompile(`^\{\{-?\s*(.*?)\s*-?\}\}$`)

// originOf finds where the value of expr was written when expr is a plain
// variable reference (`a`, `a.b`, `a['b'][0]`), following variables whose
// value is itself such a reference. Otherwise, or when the source is
// unknown, it returns fallback: ansible-core tags computed values with
// the origin of the expression.
func (tr *taskRun) originOf(expr string, sc *scope, fallback value.Pos) value.Pos {
	for depth := 0; depth < 10; depth++ {
		name, path, ok := tr.r.Engine.ExprVarRef(strings.TrimSpace(expr))
		if !ok {
			return fallback
		}
		cur, _, found := sc.Lookup(name)
		if !found {
			return fallback
		}
		for _, step := range path {
			switch c := cur.(type) {
			case *value.Dict:
				v, ok := c.Get(value.Str(step))
				if !ok {
					return fallback
				}
				cur = v
			case []any:
				n, ok := value.AsInt(step)
				if !ok || n < 0 || n >= len(c) {
					return fallback
				}
				cur = c[n]
			default:
				return fallback
			}
		}
		if s, ok := cur.(string); ok && template.HasMarkers(s) {
			if m := singleRef.FindStringSubmatch(strings.TrimSpace(s)); m != nil && !strings.Contains(m[1], "{{") {
				expr = m[1]
				continue
			}
		}
		if pos, known := sc.Origin(name, path); known {
			return pos
		}
		return fallback
	}
	return fallback
}

// recordFactOrigins remembers where set_fact values came from: the task
// argument, or the variable a bare reference template names.
func recordFactOrigins(tr *taskRun, facts, set *value.Dict) {
	set.Each(func(k string, v any) bool {
		pos, ok := tr.t.ArgPos[k]
		if !ok {
			return true
		}
		if raw, ok := tr.t.Args.Get(k); ok {
			if s, ok := raw.(string); ok {
				if m := singleRef.FindStringSubmatch(strings.TrimSpace(s)); m != nil {
					pos = tr.originOf(m[1], tr.sc, pos)
				}
			}
			tr.recordNestedOrigins(raw, v)
		}
		playbook.SetOrigin(facts, k, pos)
		return true
	})
}

// recordNestedOrigins gives the dicts of a rendered set_fact value the
// origins of the argument's dicts they were rendered from, key by key
// (ansible-core tags each value with where it was written).
func (tr *taskRun) recordNestedOrigins(raw, rendered any) {
	rd, ok := raw.(*value.Dict)
	if !ok {
		return
	}
	d, ok := rendered.(*value.Dict)
	if !ok || d == rd {
		return
	}
	d.Each(func(k string, v any) bool {
		e, _ := rd.Get(k)
		if pos, known := playbook.OriginOf(rd, k); known {
			if s, ok := e.(string); ok {
				if m := singleRef.FindStringSubmatch(strings.TrimSpace(s)); m != nil {
					pos = tr.originOf(m[1], tr.sc, pos)
				}
			}
			playbook.SetOrigin(d, k, pos)
		}
		tr.recordNestedOrigins(e, v)
		return true
	})
}
