package py

import "github.com/cfzt/cfzt-runner/engine/value"

// Iterate lists the elements of an iterable as Python's iter() would.
func Iterate(v any) ([]any, error) {
	switch x := v.(type) {
	case []any:
		return x, nil
	case value.Tuple:
		return x, nil
	case *value.Dict:
		keys := x.Keys()
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = x.Key(k)
		}
		return out, nil
	case string:
		out := make([]any, 0, len(x))
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, nil
	case *Range:
		return x.List(), nil
	case value.Undefined:
		return nil, &UndefinedUse{Value: x}
	}
	return nil, Errorf("'%s' object is not iterable", value.TypeName(v))
}

// Range is a lazy Python range, as range() returns it.
type Range struct{ Start, Stop, Step int }

// List returns the numbers of the range.
func (r *Range) List() []any {
	var out []any
	if r.Step > 0 {
		for i := r.Start; i < r.Stop; i += r.Step {
			out = append(out, i)
		}
	} else {
		for i := r.Start; i > r.Stop; i += r.Step {
			out = append(out, i)
		}
	}
	if out == nil {
		out = []any{}
	}
	return out
}

func (r *Range) String() string {
	if r.Step != 1 {
		return "range(" + value.Str(r.Start) + ", " + value.Str(r.Stop) + ", " + value.Str(r.Step) + ")"
	}
	return "range(" + value.Str(r.Start) + ", " + value.Str(r.Stop) + ")"
}

// PyType implements value.PyTyper.
func (*Range) PyType() string { return "range" }

// JSONValue implements value.JSONer.
func (r *Range) JSONValue() any { return r.List() }
