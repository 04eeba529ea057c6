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
		return x.Items()
	case value.Undefined:
		return nil, &UndefinedUse{Value: x}
	}
	return nil, Errorf("'%s' object is not iterable", value.TypeName(v))
}

// Range is a lazy Python range, as range() returns it.
type Range struct{ Start, Stop, Step int }

// Len is the number of elements of the range, as Python's len(range).
func (r *Range) Len() int {
	switch {
	case r.Step > 0 && r.Stop > r.Start:
		return int((uint64(r.Stop-r.Start) + uint64(r.Step) - 1) / uint64(r.Step))
	case r.Step < 0 && r.Start > r.Stop:
		return int((uint64(r.Start-r.Stop) + uint64(-r.Step) - 1) / uint64(-r.Step))
	}
	return 0
}

// Items returns the numbers of the range, or MemoryError for a range too
// large to list (MaxListLen), allocating nothing.
func (r *Range) Items() ([]any, error) {
	if r.Len() > MaxListLen {
		return nil, MemoryError()
	}
	return r.List(), nil
}

// List returns the numbers of the range; callers check its size first
// (Items).
func (r *Range) List() []any {
	out := make([]any, 0, r.Len())
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
