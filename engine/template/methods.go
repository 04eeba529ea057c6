package template

import "github.com/cfzt/cfzt-runner/engine/py"

// boundMethod is a Python method taken from a value, e.g. `s.startswith`.
type boundMethod struct {
	recv any
	name string
}

func (b *boundMethod) String() string { return methodRepr(b) }

// callMethod runs a method: loop.cycle here, Python's methods in py. For
// list and dict methods that mutate, it returns the new list or dict as
// mutated so the caller can store it back.
func callMethod(m *boundMethod, a *Args) (res any, mutated any, err error) {
	if r, ok := m.recv.(*loopInfo); ok && m.name == "cycle" {
		if len(a.Pos) == 0 {
			return nil, nil, TypeErrorf("no items for cycling given")
		}
		return a.Pos[r.index%len(a.Pos)], nil, nil
	}
	res, mutated, err = py.CallMethod(m.recv, m.name, a)
	return res, mutated, fromPy(err)
}
