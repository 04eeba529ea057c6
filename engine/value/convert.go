package value

import (
	"fmt"
	"sort"
)

// FromGo converts values produced by encoding/json, yaml.v3 or Go code
// (map[string]any, []any, int64, uint, float32, ...) into the model.
// *Dict and model values pass through, recursively converted.
func FromGo(v any) any {
	switch x := v.(type) {
	case nil, bool, int, float64, string, Undefined, Omit:
		return x
	case int64:
		return int(x)
	case int32:
		return int(x)
	case uint64:
		return int(x)
	case uint:
		return int(x)
	case float32:
		return float64(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = FromGo(e)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case Tuple:
		out := make(Tuple, len(x))
		for i, e := range x {
			out[i] = FromGo(e)
		}
		return out
	case *Dict:
		out := NewDict(x.Len())
		x.Each(func(k string, e any) bool { out.Set(k, FromGo(e)); return true })
		return out
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := NewDict(len(x))
		for _, k := range keys {
			out.Set(k, FromGo(x[k]))
		}
		return out
	case map[any]any:
		out := NewDict(len(x))
		for k, e := range x {
			out.Set(fmt.Sprint(k), FromGo(e))
		}
		return out
	}
	return v
}

// ToGo converts a model value into plain Go data (map[string]any, []any,
// int64, float64, ...) for libraries such as client-go and encoding/json.
func ToGo(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = ToGo(e)
		}
		return out
	case Tuple:
		return ToGo([]any(x))
	case *Dict:
		out := make(map[string]any, x.Len())
		x.Each(func(k string, e any) bool { out[k] = ToGo(e); return true })
		return out
	case Omit:
		return OmitPlaceholder
	case Undefined:
		return nil
	}
	return v
}

// DeepCopy copies lists and dicts recursively; scalars are shared.
func DeepCopy(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = DeepCopy(e)
		}
		return out
	case *Dict:
		out := NewDict(x.Len())
		x.Each(func(k string, e any) bool { out.Set(k, DeepCopy(e)); return true })
		return out
	}
	return v
}
