package run

import (
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// frame is the chain of blocks around a task: their keywords, vars and
// include parameters, and the role the tasks run as.
type frame struct {
	parent      *frame
	kw          *playbook.Keywords
	includeVars *value.Dict
	role        *playbook.RoleInstance
	// rescueVars are ansible_failed_task/ansible_failed_result in rescue.
	rescueVars *value.Dict
}

func (f *frame) child(b *playbook.Block) *frame {
	c := &frame{parent: f, kw: &b.Keywords, includeVars: b.IncludeVars, role: f.role}
	if b.Role != nil && !b.Static {
		c.role = b.Role
	}
	return c
}

// chain lists frames from the outermost to f.
func (f *frame) chain() []*frame {
	var out []*frame
	for x := f; x != nil; x = x.parent {
		out = append([]*frame{x}, out...)
	}
	return out
}

// keyword returns the innermost explicit value of a keyword.
func (f *frame) keyword(t *playbook.Task, name string, get func(*playbook.Keywords) any) any {
	if t != nil && t.Set[name] {
		return get(&t.Keywords)
	}
	for x := f; x != nil; x = x.parent {
		if x.kw != nil && x.kw.Set[name] {
			return get(x.kw)
		}
	}
	return nil
}

func (f *frame) conds(t *playbook.Task) []playbook.Cond {
	var out []playbook.Cond
	for _, x := range f.chain() {
		if x.kw != nil {
			out = append(out, x.kw.When...)
		}
	}
	return append(out, t.When...)
}

func (f *frame) tags(t *playbook.Task) []string {
	var out []string
	for _, x := range f.chain() {
		if x.kw != nil {
			out = append(out, x.kw.Tags...)
		}
	}
	if t.Role != nil && t.Role.Ref != nil {
		out = append(out, t.Role.Ref.Tags...)
	}
	return append(out, t.Tags...)
}
