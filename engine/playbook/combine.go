package playbook

import "github.com/cfzt/cfzt-runner/engine/value"

// CombineVars returns b layered over a, as ansible-core's combine_vars
// does for every pair of variable sources: with merge (the "merge" hash
// behaviour) dicts under the same name are merged recursively, otherwise
// b's value replaces a's. Neither dict changes, and the result remembers
// where each top-level value was written.
func CombineVars(a, b *value.Dict, merge bool) *value.Dict {
	switch {
	case b.Len() == 0:
		if a == nil {
			return value.NewDict(0)
		}
		return a
	case a.Len() == 0:
		return b
	}
	var out *value.Dict
	if merge {
		out = value.MergeHash(a, b, true, "replace")
	} else {
		out = a.Copy()
		out.Update(b)
	}
	copyOrigins(out, a, b)
	return out
}

// copyOrigins records in out where each of its keys was written in the
// sources, the later source winning.
func copyOrigins(out *value.Dict, sources ...*value.Dict) {
	for _, src := range sources {
		src.Each(func(k string, _ any) bool {
			if p, ok := OriginOf(src, k); ok {
				kp, _ := KeyOriginOf(src, k)
				setOrigin(out, k, p, kp)
			}
			return true
		})
	}
}
