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
	// rescue is set on a block's body when the block has a rescue (a
	// failure in it is rescued); pending when a failure in the section
	// still leaves more of the block to run for the host (a rescue or
	// always section after it).
	rescue, pending bool
	// handler is set for handler tasks; flushedAt is then the frame of the
	// flush_handlers task that runs them, whose blocks a failing handler
	// falls back to (ansible-core restores the host's pre-flush state).
	handler   bool
	flushedAt *frame
	// included marks the frame of a file or role loaded by a dynamic
	// include (include_tasks, include_role): their number up the chain is
	// the include depth (includeDepth).
	included bool
}

// includeDepth is the number of dynamic includes f runs inside.
func (f *frame) includeDepth() int {
	n := 0
	for ; f != nil; f = f.parent {
		if f.included {
			n++
		}
	}
	return n
}

// sectionKind tells the three sections of a block apart.
type sectionKind int

const (
	sectionBlock sectionKind = iota
	sectionRescue
	sectionAlways
)

func (f *frame) child(b *playbook.Block) *frame {
	c := &frame{parent: f, kw: &b.Keywords, includeVars: b.IncludeVars, role: f.role, handler: f.handler}
	if b.Role != nil && !b.Static {
		c.role = b.Role
	}
	return c
}

// sectionOf is the frame of one section of block b: whether a failure in
// it is rescued, and whether the host still has a section of b to run.
func (f *frame) sectionOf(b *playbook.Block, kind sectionKind, hasRescue, hasAlways bool) *frame {
	c := f.child(b)
	switch kind {
	case sectionBlock:
		c.rescue = hasRescue
		c.pending = hasRescue || hasAlways
	case sectionRescue:
		c.pending = hasAlways
	}
	return c
}

// outward walks the frames a failure travels through: f and its parents,
// then, for a handler, the frames of the flush that runs it.
func (f *frame) outward(visit func(*frame) bool) {
	for x := f; x != nil; {
		if visit(x) {
			return
		}
		if x.flushedAt != nil {
			x = x.flushedAt
			continue
		}
		x = x.parent
	}
}

// rescuable reports whether a failure in this frame will be rescued
// (ansible-core's is_any_block_rescuing), which counts it as rescued.
func (f *frame) rescuable() bool {
	found := false
	f.outward(func(x *frame) bool { found = x.rescue; return found })
	return found
}

// stillRunning reports whether a host that fails in this frame has more
// of an enclosing block to run (a rescue or always section); otherwise
// its iteration is complete and ansible-core counts it as a failed host
// of the batch at once.
func (f *frame) stillRunning() bool {
	found := false
	f.outward(func(x *frame) bool { found = x.pending; return found })
	return found
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

// notify is the task's notify list, or the nearest block's (notify is
// inherited, not merged).
func (f *frame) notify(t *playbook.Task) []string {
	v, _ := f.keyword(t, "notify", func(k *playbook.Keywords) any { return k.Notify }).([]string)
	return v
}
