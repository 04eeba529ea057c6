package k8s

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// LastAppliedAnnotation holds, on an object the k8s module applied, the
// definition it was last applied from (as kubectl's client-side apply).
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// apply is kubernetes.core's `apply: true`. Without server_side_apply it
// is a client-side apply: an absent object is created with the
// last-applied annotation; a present one is patched (JSON merge patch)
// with the three-way merge of its last-applied configuration, the
// definition and the live object, or only read when that patch is empty.
// With server_side_apply it is a server-side apply with its field
// manager. existing is the object perform read (nil when absent).
func (s *service) apply(res *apiResource, def *value.Dict, namespace string, existing any) (any, []string, error) {
	name := ""
	if n := field(def, "metadata", "name"); n != nil {
		name = value.Str(n)
	}
	if name == "" {
		return nil, nil, failf("Failed to apply object: name is required to apply %s.%s", res.GroupVersion, res.Kind)
	}
	ns, err := s.namespaceFor(res, namespace)
	if err != nil {
		return nil, nil, failWith("Failed to apply object", err)
	}
	if res.Namespaced {
		// As the dynamic client does, the namespace goes into the body
		// (and so into the last-applied configuration); the caller's
		// definition is left as it was.
		def = def.Copy()
		md := ensureMetadata(def).Copy()
		md.Set("namespace", ns)
		def.Set("metadata", md)
	}
	live, _ := existing.(*value.Dict)
	if live != nil && strings.HasSuffix(value.Str(field(live, "kind")), "List") {
		live = nil
	}

	if ssa := s.p.dict("server_side_apply"); ssa != nil {
		manager := value.Str(field(ssa, "field_manager"))
		force := fmt.Sprint(value.Truthy(field(ssa, "force_conflicts")))
		resp, err := s.c.do(s.ctx, request{verb: "PATCH", path: res.path(name, ns), query: s.query("fieldManager", manager, "force", force),
			contentType: "application/apply-patch+yaml", body: def})
		if err != nil {
			return nil, nil, failWith("Failed to apply object", err)
		}
		return resp.obj, resp.warnings, nil
	}

	if live == nil {
		body, err := withLastApplied(def)
		if err != nil {
			return nil, nil, failWith("Failed to apply object", err)
		}
		// The create goes through the owner injection, as every POST
		// through ansible-operator's proxy does; the annotation, computed
		// before, does not hold the injected reference.
		s.injectOwner(res, body, ns)
		resp, err := s.c.do(s.ctx, request{verb: "POST", path: res.path("", ns), query: s.query(), body: body})
		if err != nil {
			return nil, nil, failWith("Failed to apply object", err)
		}
		return resp.obj, resp.warnings, nil
	}

	patch, err := applyPatch(live, def)
	if err != nil {
		var ae *applyError
		if errors.As(err, &ae) && ae.strategic {
			err = fmt.Errorf("Could not apply strategic merge to %s/%s: %s", value.Str(field(def, "kind")), name, ae.msg)
		}
		return nil, nil, failWith("Failed to apply object", err)
	}
	if patch == nil {
		resp, err := s.c.do(s.ctx, request{verb: "GET", path: res.path(name, ns)})
		if err != nil {
			return nil, nil, failWith("Failed to apply object", err)
		}
		return resp.obj, resp.warnings, nil
	}
	resp, err := s.c.do(s.ctx, request{verb: "PATCH", path: res.path(name, ns), query: s.query(),
		contentType: "application/merge-patch+json", body: patch})
	if err != nil {
		return nil, nil, failWith("Failed to apply object", err)
	}
	return resp.obj, resp.warnings, nil
}

// ensureMetadata returns def's metadata mapping, made a fresh one when it
// is missing or not a mapping.
func ensureMetadata(def *value.Dict) *value.Dict {
	if md, ok := def.Get("metadata"); ok {
		if d, isDict := md.(*value.Dict); isDict {
			return d
		}
	}
	md := value.NewDict(2)
	def.Set("metadata", md)
	return md
}

// applyError is an error of the apply computation, worded as Python
// raises it; strategic ones are kubernetes.core's ApplyException, which
// its dynamic client rewords.
type applyError struct {
	msg       string
	strategic bool
}

func (e *applyError) Error() string { return e.msg }

func applyErrf(format string, a ...any) error { return &applyError{msg: fmt.Sprintf(format, a...)} }

// lastAppliedOf is the annotation value: the definition as compact JSON
// with sorted keys and ASCII escapes, as Python's json.dumps writes it.
func lastAppliedOf(def any) (string, error) {
	return py.JSONDumps(def, py.JSONDumpOptions{ItemSep: ",", KeySep: ":", SortKeys: true, EnsureASCII: true, SepsSet: true})
}

// withLastApplied is the definition merged with its own last-applied
// annotation.
func withLastApplied(def *value.Dict) (*value.Dict, error) {
	ann, err := annotation(def)
	if err != nil {
		return nil, err
	}
	merged, err := dictMerge(def, ann)
	if err != nil {
		return nil, err
	}
	return merged.(*value.Dict), nil
}

// annotation is {metadata: {annotations: {last-applied: json(def)}}}.
func annotation(def any) (*value.Dict, error) {
	s, err := lastAppliedOf(def)
	if err != nil {
		return nil, err
	}
	return value.DictOf("metadata", value.DictOf("annotations", value.DictOf(LastAppliedAnnotation, s))), nil
}

// applyPatch is the merge patch that brings live to def, or nil when
// there is nothing to patch. With a last-applied annotation on live it is
// the deletions from the last-applied configuration to def plus the
// changes from live to def; without one, def itself with the annotation.
func applyPatch(live, def *value.Dict) (*value.Dict, error) {
	raw := ""
	if ann, ok := field(live, "metadata", "annotations").(*value.Dict); ok {
		if v, ok := ann.Get(LastAppliedAnnotation); ok {
			raw, _ = v.(string)
		}
	}
	desired, err := withLastApplied(def)
	if err != nil {
		return nil, err
	}
	if raw == "" {
		if value.Equal(live, desired) {
			return nil, nil
		}
		return desired, nil
	}
	last, err := value.DecodeJSON([]byte(raw))
	if err != nil {
		return nil, applyErrf("the %s annotation is not valid JSON: %s", LastAppliedAnnotation, err)
	}
	lastAnn, err := annotation(last)
	if err != nil {
		return nil, err
	}
	lastMerged, err := dictMerge(last, lastAnn)
	if err != nil {
		return nil, err
	}
	patch, err := threeWay(lastMerged, desired, live, value.Str(field(desired, "kind")))
	if err != nil {
		return nil, err
	}
	if patch.Len() == 0 || value.Equal(live, patch) {
		return nil, nil
	}
	return patch, nil
}

// threeWay is the patch from actual to desired without deletions plus the
// deletions from lastApplied to desired.
func threeWay(lastApplied, desired, actual any, position string) (*value.Dict, error) {
	ld, ok := lastApplied.(*value.Dict)
	if !ok {
		return nil, applyErrf("'%s' object has no attribute 'items'", value.TypeName(lastApplied))
	}
	dd, ok := desired.(*value.Dict)
	if !ok {
		return nil, applyErrf("'%s' object has no attribute 'items'", value.TypeName(desired))
	}
	deletions, err := deletionsOf(ld, dd)
	if err != nil {
		return nil, err
	}
	delta, err := deltaOf(ld, actual, dd, position)
	if err != nil {
		return nil, err
	}
	merged, err := dictMerge(deletions, delta)
	if err != nil {
		return nil, err
	}
	return merged.(*value.Dict), nil
}

// dictMerge is Ansible's dict_merge: b's keys over a copy of a, merging
// where both hold a mapping.
func dictMerge(a, b any) (any, error) {
	bd, ok := b.(*value.Dict)
	if !ok {
		return b, nil
	}
	ad, ok := a.(*value.Dict)
	if !ok {
		switch a.(type) {
		case []any:
			return nil, applyErrf("list indices must be integers or slices, not str")
		case string:
			return nil, applyErrf("'str' object does not support item assignment")
		}
		return nil, applyErrf("argument of type '%s' is not iterable", value.TypeName(a))
	}
	result := value.DeepCopy(ad).(*value.Dict)
	var err error
	bd.Each(func(k string, v any) bool {
		if cur, ok := result.Get(k); ok {
			if cd, isDict := cur.(*value.Dict); isDict {
				var m any
				m, err = dictMerge(cd, v)
				if err != nil {
					return false
				}
				result.Set(k, m)
				return true
			}
		}
		result.Set(k, value.DeepCopy(v))
		return true
	})
	return result, err
}

// pyGet is Python's obj.get(k, def) on a value that should be a mapping.
func pyGet(obj any, k string, def any) (any, error) {
	d, ok := obj.(*value.Dict)
	if !ok {
		return nil, applyErrf("'%s' object has no attribute 'get'", value.TypeName(obj))
	}
	if v, ok := d.Get(k); ok {
		return v, nil
	}
	return def, nil
}

// deletionsOf is what changed from lastApplied to desired, with removed
// keys as None (null, a deletion in a merge patch).
func deletionsOf(lastApplied *value.Dict, desired any) (*value.Dict, error) {
	patch := value.NewDict(0)
	var err error
	lastApplied.Each(func(k string, lv any) bool {
		var dv any
		dv, err = pyGet(desired, k, nil)
		if err != nil {
			return false
		}
		ld, lIsDict := lv.(*value.Dict)
		dd, dIsDict := dv.(*value.Dict)
		if lIsDict && dIsDict {
			var p *value.Dict
			p, err = deletionsOf(ld, dd)
			if err != nil {
				return false
			}
			if p.Len() > 0 {
				patch.Set(k, p)
			}
		} else if !value.Equal(lv, dv) {
			patch.Set(k, dv)
		}
		return true
	})
	return patch, err
}

// deltaOf is what changed from actual to desired, without deletions;
// lists at a position with a known merge key merge item by item.
func deltaOf(lastApplied, actual any, desired *value.Dict, position string) (*value.Dict, error) {
	patch := value.NewDict(0)
	var err error
	desired.Each(func(k string, dv any) bool {
		here := position + "." + k
		var av any
		if av, err = pyGet(actual, k, nil); err != nil {
			return false
		}
		switch d := dv.(type) {
		case nil:
			// None differs from any live value, and a missing one is set.
			patch.Set(k, dv)
			return true
		case *value.Dict:
			if av == nil {
				patch.Set(k, dv)
				return true
			}
			var lv any
			if lv, err = pyGet(lastApplied, k, value.NewDict(0)); err != nil {
				return false
			}
			var p *value.Dict
			if p, err = deltaOf(lv, av, d, here); err != nil {
				return false
			}
			if p.Len() > 0 {
				patch.Set(k, p)
			}
		case []any:
			if av == nil {
				patch.Set(k, dv)
				return true
			}
			var lv any
			if lv, err = pyGet(lastApplied, k, []any{}); err != nil {
				return false
			}
			var p []any
			if p, err = listMerge(lv, av, d, here); err != nil {
				return false
			}
			if len(p) > 0 {
				kept := make([]any, 0, len(p))
				for _, item := range p {
					if item != nil {
						kept = append(kept, item)
					}
				}
				patch.Set(k, kept)
			}
		default:
			if av == nil || !value.Equal(av, dv) {
				patch.Set(k, dv)
			}
		}
		return true
	})
	return patch, err
}

// keyedList is an ordered mapping of a list's items by their merge key
// (Python's OrderedDict: a repeated key keeps its first place and takes
// the last item).
type keyedList struct {
	order []string
	items map[string]*value.Dict
}

func (l *keyedList) has(k string) bool { _, ok := l.items[k]; return ok }

// pyIter lists what Python's `for item in v` yields.
func pyIter(v any) ([]any, error) {
	switch x := v.(type) {
	case []any:
		return x, nil
	case *value.Dict:
		keys := x.Keys()
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = k
		}
		return out, nil
	case string:
		out := make([]any, 0, len(x))
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, nil
	}
	return nil, applyErrf("'%s' object is not iterable", value.TypeName(v))
}

// hashKey is a merge key's identity as a Python dict key: numbers equal
// in Python are one key; lists and mappings cannot be keys.
func hashKey(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return "s:" + x, nil
	case nil:
		return "n:", nil
	case *value.Dict, []any:
		return "", applyErrf("unhashable type: '%s'", value.TypeName(v))
	}
	if f, ok := value.AsFloat(v); ok {
		return "f:" + fmt.Sprint(f), nil
	}
	return "o:" + value.Str(v), nil
}

func listToDict(lst any, key, position string) (*keyedList, error) {
	items, err := pyIter(lst)
	if err != nil {
		return nil, err
	}
	out := &keyedList{items: map[string]*value.Dict{}}
	for _, it := range items {
		d, ok := it.(*value.Dict)
		if !ok {
			switch it.(type) {
			case string:
				return nil, applyErrf("string indices must be integers, not 'str'")
			case []any:
				return nil, applyErrf("list indices must be integers or slices, not str")
			}
			return nil, applyErrf("'%s' object is not subscriptable", value.TypeName(it))
		}
		kv, ok := d.Get(key)
		if !ok {
			return nil, &applyError{msg: fmt.Sprintf("Expected key '%s' not found in position %s", key, position), strategic: true}
		}
		h, err := hashKey(kv)
		if err != nil {
			return nil, err
		}
		if !out.has(h) {
			out.order = append(out.order, h)
		}
		out.items[h] = d
	}
	return out, nil
}

// listMerge merges a list item by item when its position has a known
// merge key and there is a last-applied list: items of desired (merged
// with the live item when both it and the last-applied list have it),
// then live items that neither names. Otherwise the list is desired.
func listMerge(lastApplied, actual any, desired []any, position string) ([]any, error) {
	key, known := smpKeys[position]
	if !known || !value.Truthy(lastApplied) {
		return desired, nil
	}
	last, err := listToDict(lastApplied, key, position)
	if err != nil {
		return nil, err
	}
	act, err := listToDict(actual, key, position)
	if err != nil {
		return nil, err
	}
	des, err := listToDict(desired, key, position)
	if err != nil {
		return nil, err
	}
	var result []any
	for _, k := range des.order {
		if !act.has(k) || !last.has(k) {
			result = append(result, des.items[k])
			continue
		}
		p, err := threeWay(last.items[k], des.items[k], act.items[k], position)
		if err != nil {
			return nil, err
		}
		merged, err := dictMerge(act.items[k], p)
		if err != nil {
			return nil, err
		}
		result = append(result, merged)
	}
	for _, k := range act.order {
		if !des.has(k) && !last.has(k) {
			result = append(result, act.items[k])
		}
	}
	return result, nil
}
