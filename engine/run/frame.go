package run

import (
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// frame is the chain of blocks around a task: their keywords, vars and
// include parameters, and the role the tasks run as.
type frame struct {
	parent *frame
	kw     *playbook.Keywords
	// play marks the root frame, whose keywords are the play's; its vars
	// are play vars, not block vars.
	play bool
	// includeVars are include_tasks/include_role `vars:` (include params);
	// includeLocals the loop variables of the item that included the file.
	includeVars   *value.Dict
	includeLocals *value.Dict
	role          *playbook.RoleInstance
	// rescue is set on the frame of a block section whose block has a
	// rescue section: failures in it are rescued.
	rescue bool
	// handler is set for handler tasks.
	handler bool
}

func (f *frame) child(b *playbook.Block) *frame {
	c := &frame{parent: f, kw: &b.Keywords, includeVars: b.IncludeVars, role: f.role, handler: f.handler}
	if b.Role != nil && !b.Static {
		c.role = b.Role
	}
	return c
}

// rescuable reports whether a failure in this frame will be rescued.
func (f *frame) rescuable() bool {
	for x := f; x != nil; x = x.parent {
		if x.rescue {
			return true
		}
	}
	return false
}

// chain lists frames from the outermost to f.
func (f *frame) chain() []*frame {
	var out []*frame
	for x := f; x != nil; x = x.parent {
		out = append(out, x)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
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
