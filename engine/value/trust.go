package value

// Trust marks. ansible-core 2.19 renders only templates from trusted
// sources (playbooks, roles, vars files, inventory, extra vars); a string
// that arrived as data (a module result, registered output, facts, what a
// template or lookup produced) is never rendered or evaluated. The
// executor keeps most data apart from playbook values by precedence
// layer; these types mark data where the two meet in one value.

// Untrusted wraps a value from data that sits among values from trusted
// sources, in a view such as `vars`, `hostvars` or a hash_behaviour=merge
// combination: the template engine returns what it holds as it is, never
// rendering the templates it may contain. It never leaves the engine:
// resolving a value removes the wrapper.
type Untrusted struct{ V any }

// MarkUntrusted returns v with every string that holds template markers
// (hasMarkers) replaced by an Unsafe string, copying only the containers
// on the way to one: for data kept where trusted values live (add_host
// variables in the inventory).
func MarkUntrusted(v any, hasMarkers func(string) bool) any {
	switch x := v.(type) {
	case string:
		if hasMarkers(x) {
			return Unsafe(x)
		}
		return x
	case Untrusted:
		return MarkUntrusted(x.V, hasMarkers)
	case []any:
		r, _ := MapList(x, func(_ int, e any) (any, error) { return MarkUntrusted(e, hasMarkers), nil })
		return r
	case *Dict:
		r, _ := MapDict(x, func(_ string, e any) (any, error) { return MarkUntrusted(e, hasMarkers), nil })
		return r
	}
	return v
}

// UntrustedLeaves returns a copy of d whose values are wrapped in
// Untrusted, except dicts, which are copied the same way: a dict from data
// that hash_behaviour=merge combines key by key with dicts from trusted
// sources.
func UntrustedLeaves(d *Dict) *Dict {
	out := NewDict(d.Len())
	d.Each(func(k string, v any) bool {
		if sub, ok := v.(*Dict); ok {
			out.Set(k, UntrustedLeaves(sub))
		} else {
			out.Set(k, Untrusted{V: v})
		}
		return true
	})
	return out
}
